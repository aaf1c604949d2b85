// Exploration: many seeds of one algorithm, each drawing its own fault mix, run in parallel
// until one fails; that failure is shrunk to a small scenario.
//
// Contract:
//   - The seeds of a shard are first_seed + shard_index + k * shard_count for k = 0, 1, ...:
//     N shards with the same options and first_seed cover disjoint seeds, and together the
//     same seeds one machine would run.
//   - A seed fails when its verdict is "violated" (a check that answers "unknown" is counted,
//     not a failure).
//   - With `seeds` set, the failure reported is the lowest failing seed of the shard, whatever
//     the number of jobs: after a failure at position k, no position after k is started and
//     every position before k is finished. With a time budget, no seed starts after it ends.
//   - Threads run independent run_simulation() calls only (see parallel_runs.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/harness/run_request.h"
#include "lockstep/harness/shrink.h"

namespace lockstep {

struct ExploreOptions {
  RunRequest run;                  // algorithm, options, clients, members, duration, faults
                                   // (run.seed is ignored: every seed is drawn below)
  std::vector<std::string> checks; // empty: every check
  std::optional<Duration> liveness_bound;  // unset: the RunConfig default
  std::uint64_t first_seed = 1;
  std::uint64_t seeds = 0;          // seeds of this shard to run; 0: until the time budget
  double time_budget_seconds = 0;   // 0: none (then `seeds` must be set)
  int jobs = 0;                     // 0: default_jobs()
  int shard_index = 0;              // 0-based
  int shard_count = 1;
  bool shrink = true;
  ShrinkOptions shrink_options;     // jobs 0: ours
};

struct ExploreProgress {
  std::uint64_t seeds_done = 0;
  std::uint64_t failures = 0;
  std::uint64_t unknown = 0;
  double elapsed_seconds = 0;
  double seeds_per_second() const { return elapsed_seconds > 0 ? seeds_done / elapsed_seconds : 0; }
};

struct ExploreResult {
  std::string error;                   // bad options (nothing ran)
  ExploreProgress progress;            // at the end
  std::uint64_t positions_run = 0;     // the shard's seeds 0..positions_run-1 all ran
  std::optional<std::uint64_t> failing_seed;  // the lowest failing seed found
  RunConfig failing_config;            // that seed's config, as drawn
  std::optional<ShrinkResult> shrunk;  // when options.shrink
  std::uint64_t seed_at(const ExploreOptions& o, std::uint64_t position) const;
};

// How many seeds this shard has before its seeds would pass 2^64-1 and wrap around to 0
// (first_seed + shard_index + k * shard_count for k below it). explore() refuses more --seeds
// than that and stops a time budget there.
std::uint64_t seeds_before_wrap(const ExploreOptions& options);

// The config of one seed, as explore draws it. Returns an error message or empty.
std::string explore_config(const ExploreOptions& options, std::uint64_t seed, RunConfig& out);

// `on_progress` (may be empty) is called from the calling thread about five times a second
// while seeds run, and once at the end of the seeds.
ExploreResult explore(const ExploreOptions& options,
                      const std::function<void(const ExploreProgress&)>& on_progress);

// The most shards one exploration may be split into (a Kubernetes Indexed Job runs at most
// 100,000 completions; a CI matrix far fewer). `merge` refuses a summary claiming more.
inline constexpr int kMaxShardCount = 100000;

// Parses "I/N" (1-based I, as CI matrices and `--shard 2/4` count, N <= kMaxShardCount) into
// 0-based index and count; returns an error message or empty.
std::string parse_shard(const std::string& text, int& index, int& count);

}  // namespace lockstep
