// SimRunner: one run of a lock algorithm on the simulated cluster, from a RunConfig to a
// recorded history and the checks' results.
//
// Contract: the run is a pure function of the RunConfig: the same config gives a
// byte-identical history on every build type and machine.
#pragma once

#include <vector>

#include "lockstep/checker/check_result.h"
#include "lockstep/checker/history.h"
#include "lockstep/harness/run_config.h"

namespace lockstep {

struct RunStats {
  std::uint64_t events_run = 0;
  std::uint64_t messages_sent = 0;
  std::uint64_t messages_dropped = 0;
  double simulated_seconds = 0;
};

struct RunResult {
  History history;
  std::vector<CheckResult> checks;
  RunStats stats;
  bool all_ok() const;
};

// Validates the config (algorithm name, options); returns an error message or empty.
std::string validate_run_config(RunConfig& config);

RunResult run_simulation(const RunConfig& config);

// When the clients start in a simulated run (true time): once the cluster had time to elect a
// leader. Fault times are relative to it.
inline Duration clients_start_time(const RunConfig& config) { return config.etcd.election_timeout * 3; }

}  // namespace lockstep
