// Replaying a scenario: run it and compare what happened with what the scenario expects.
//
// Contract: replay_scenario() is a pure function of the scenario (run_simulation is). The
// outcome lists every expectation that failed, each as one sentence; an empty list with
// expectations present means the replay reproduced them.
#pragma once

#include <string>
#include <vector>

#include "lockstep/harness/scenario.h"
#include "lockstep/harness/sim_runner.h"

namespace lockstep {

// The verdict of a run: "violated" if any check is violated, else "unknown" if any check ran
// out of budget, else "ok".
std::string run_verdict(const RunResult& result);

struct ReplayOutcome {
  RunResult result;
  std::string verdict;        // run_verdict(result)
  std::string history_hash;   // hash_hex(history_hash(result.history))
  std::vector<std::string> mismatches;  // e.g. "expected verdict ok, got violated"
  bool has_expectation = false;          // the scenario expects a verdict or a hash
  bool as_expected() const { return mismatches.empty(); }
};

// Every expectation of the scenario the run does not meet, one sentence each.
std::vector<std::string> expectation_mismatches(const Scenario& scenario, const RunResult& result);
bool has_expectation(const Scenario& scenario);

// Compares a finished run with the scenario's expectations.
ReplayOutcome judge_replay(const Scenario& scenario, RunResult result);
ReplayOutcome replay_scenario(const Scenario& scenario);

}  // namespace lockstep
