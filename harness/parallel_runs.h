// Running independent simulations on several threads.
//
// Why this is safe: run_simulation() shares no mutable state between calls (each run owns
// its world, cluster and clients), so runs on different threads cannot influence each other;
// nothing inside one simulation ever uses a thread.
#pragma once

#include <vector>

#include "lockstep/harness/run_config.h"
#include "lockstep/harness/sim_runner.h"

namespace lockstep {

// The results of run_simulation(configs[i]), in order, using up to `jobs` threads.
std::vector<RunResult> run_in_parallel(const std::vector<RunConfig>& configs, int jobs);

// The number of threads "all cores" means here (at least 1).
int default_jobs();

}  // namespace lockstep
