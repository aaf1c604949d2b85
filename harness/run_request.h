// RunRequest: what a user asks for (an algorithm, a seed, a few knobs, fault classes), and
// its expansion into the full RunConfig that is run and written to scenario.json.
#pragma once

#include <optional>
#include <string>

#include "lockstep/harness/run_config.h"

namespace lockstep {

struct RunRequest {
  std::string algorithm;
  std::uint64_t seed = 1;
  int clients = 3;
  int members = 3;
  Duration duration = seconds(30);
  std::string faults = "none";  // a comma list of fault classes, "all" or "none"
  // The longest fault. Unset: the default below.
  std::optional<Duration> max_fault_duration;
  // See RunConfig::extend_load_for_liveness (`lockstep run --fixed-length` sets it false).
  bool extend_load_for_liveness = true;
  AlgorithmOptions algorithm_options;
};

// The default longest fault: 20 s, or one and a half lease TTLs when the algorithm's lease
// is longer, so that pauses and partitions can outlast a 60 s session (see generate_faults).
constexpr Duration kDefaultMaxFaultDuration = seconds(20);
Duration max_fault_duration(const RunRequest& request, Duration lease_ttl);

// Fills `out` (drawing the random fault schedule from the seed); returns an error message
// naming the bad field, or empty.
std::string expand_run_request(const RunRequest& request, RunConfig& out);

}  // namespace lockstep
