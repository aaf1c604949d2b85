// Shrinking a failing run to a small scenario that fails the same way.
//
// Contract:
//   - The input config must violate a check; the "same violation" is that check (the first
//     violated one, in run order: mutex, resource, liveness) violated again.
//   - Shrinking is greedy: it tries simpler configs in a fixed order (fewer faults, fewer
//     clients and members, fewer lock cycles, less time (unless liveness is the check, a
//     fixed-length load first; a shorter load; a shorter tail), rounder fault times) and keeps the
//     first that still fails, until nothing simpler fails or the budget runs out. Candidates
//     may be run in parallel (`jobs`), but the result is the one a sequential search would
//     find: a function of the input and max_runs (not of jobs), unless the wall-clock budget
//     cuts the search short.
//   - The seed is kept: a run is a pure function of its config, so every candidate is itself
//     a replayable scenario.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lockstep/harness/run_config.h"
#include "lockstep/harness/scenario.h"
#include "lockstep/harness/sim_runner.h"

namespace lockstep {

struct ShrinkOptions {
  int jobs = 0;                    // candidates run at once (threads); 0: all cores
  int max_runs = 400;              // runs counted as a sequential search would count them
  double time_budget_seconds = 60; // wall clock; 0: none
  // Called after each accepted step with a one-line description (from the calling thread).
  std::function<void(const std::string&)> on_step;
};

struct ShrinkResult {
  std::string error;            // non-empty: the input did not violate any check
  std::string violated_check;   // the check kept violated
  RunConfig config;             // the smallest failing config found (its checks as the
                                // input's, no fault_classes: the schedule is no longer drawn)
  RunResult result;             // its run
  int runs = 0;                 // simulations run, counted sequentially
  bool budget_exhausted = false;
  std::vector<std::string> steps;  // what each accepted step removed, in order
};

ShrinkResult shrink_failure(const RunConfig& failing, const ShrinkOptions& options);

// The scenario file of a shrink: the shrunk config, expecting "violated", described by the
// check's own summary and how it was found (`origin`, e.g. "lockstep explore, seed 12") and
// shrunk from `original`.
Scenario shrunk_scenario(const RunConfig& original, const ShrinkResult& shrunk,
                         const std::string& origin);

// The first violated check's name, or empty.
std::string first_violated_check(const RunResult& result);

// `config` without client `index`: later clients are renumbered down and faults that only
// named the removed client are dropped. Exposed for tests.
RunConfig without_client(const RunConfig& config, int index);
// `config` with `members` etcd members; faults naming only removed members are dropped.
RunConfig with_members(const RunConfig& config, int members);

}  // namespace lockstep
