// `--option NAME=INTEGER` (repeatable), as `run` and `explore` take an algorithm's options.
#pragma once

#include <string>
#include <vector>

#include "lockstep/algorithms/registry.h"

namespace lockstep::cli {

// Adds each NAME=INTEGER of `items` to `out`; returns a message naming the bad or repeated one,
// or empty. Whether the algorithm has such an option is checked when the run is expanded.
std::string parse_algorithm_options(const std::vector<std::string>& items, AlgorithmOptions& out);

}  // namespace lockstep::cli
