// RunRequest: what a user asks for (an algorithm, a seed, a few knobs, fault classes), and
// its expansion into the full RunConfig that is run and written to scenario.json.
#pragma once

#include <string>

#include "harness/run_config.h"

namespace lockstep {

struct RunRequest {
  std::string algorithm;
  std::uint64_t seed = 1;
  int clients = 3;
  int members = 3;
  Duration duration = seconds(30);
  std::string faults = "none";  // a comma list of fault classes, "all" or "none"
  Duration max_fault_duration = seconds(20);
  AlgorithmOptions algorithm_options;
};

// Fills `out` (drawing the random fault schedule from the seed); returns an error message
// naming the bad field, or empty.
std::string expand_run_request(const RunRequest& request, RunConfig& out);

}  // namespace lockstep
