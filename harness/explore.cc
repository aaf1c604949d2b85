#include "lockstep/harness/explore.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <thread>

#include "lockstep/harness/parallel_runs.h"
#include "lockstep/harness/replay.h"
#include "lockstep/harness/scenario.h"

namespace lockstep {

std::uint64_t ExploreResult::seed_at(const ExploreOptions& o, std::uint64_t position) const {
  return o.first_seed + static_cast<std::uint64_t>(o.shard_index) +
         position * static_cast<std::uint64_t>(o.shard_count);
}

std::uint64_t seeds_before_wrap(const ExploreOptions& o) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  const auto index = static_cast<std::uint64_t>(std::max(o.shard_index, 0));
  const auto stride = static_cast<std::uint64_t>(std::max(o.shard_count, 1));
  if (o.first_seed > kMax - index) return 0;
  return (kMax - o.first_seed - index) / stride + 1;
}

std::string explore_config(const ExploreOptions& options, std::uint64_t seed, RunConfig& out) {
  RunRequest request = options.run;
  request.seed = seed;
  RunConfig c;
  if (auto err = expand_run_request(request, c); !err.empty()) return err;
  c.checks = options.checks;
  if (options.liveness_bound) c.liveness_bound = *options.liveness_bound;
  if (auto err = validate_run_config(c); !err.empty()) return err;
  if (auto err = scenario_representable(c); !err.empty())
    return "seed " + std::to_string(seed) +
           " cannot be written as a scenario that replay reads back: " + err;
  out = std::move(c);
  return {};
}

std::string parse_shard(const std::string& text, int& index, int& count) {
  const auto slash = text.find('/');
  const std::string bad = "--shard must be I/N with 1 <= I <= N <= " + std::to_string(kMaxShardCount) +
                          " (e.g. 2/4), not \"" + text + "\"";
  if (slash == std::string::npos) return bad;
  try {
    std::size_t used_i = 0, used_n = 0;
    const int i = std::stoi(text.substr(0, slash), &used_i);
    const int n = std::stoi(text.substr(slash + 1), &used_n);
    if (used_i != slash || used_n != text.size() - slash - 1 || n < 1 || i < 1 || i > n ||
        n > kMaxShardCount)
      return bad;
    index = i - 1;
    count = n;
    return {};
  } catch (...) {
    return bad;
  }
}

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The state the workers share. Positions are handed out in order; `stop_at` is the lowest
// failing position found so far, past which no position starts.
struct SharedState {
  std::atomic<std::uint64_t> next{0};
  std::atomic<std::uint64_t> stop_at{kNone};
  std::atomic<std::uint64_t> done{0};
  std::atomic<std::uint64_t> unknown{0};
  std::atomic<std::uint64_t> failures{0};
  std::atomic<int> workers_left{0};
  std::mutex mutex;  // guards error and the wake-up below
  std::condition_variable finished;
  std::string error;
};

}  // namespace

ExploreResult explore(const ExploreOptions& options,
                      const std::function<void(const ExploreProgress&)>& on_progress) {
  ExploreResult out;
  if (options.seeds == 0 && options.time_budget_seconds <= 0) {
    out.error = "give --seeds N or --time-budget SECONDS";
    return out;
  }
  if (options.shard_count < 1 || options.shard_index < 0 ||
      options.shard_index >= options.shard_count) {
    out.error = "the shard index must be below the shard count";
    return out;
  }
  const std::uint64_t available = seeds_before_wrap(options);
  if (available == 0 || options.seeds > available) {
    out.error = "the seeds would pass " + std::to_string(std::numeric_limits<std::uint64_t>::max()) +
                " and wrap around to 0: from seed " + std::to_string(options.first_seed) +
                " this shard has " + std::to_string(available) + " seed" + (available == 1 ? "" : "s") +
                ", not " + std::to_string(options.seeds);
    return out;
  }
  {  // Bad options fail here, once, not in every worker.
    RunConfig probe;
    if (auto err = explore_config(options, out.seed_at(options, 0), probe); !err.empty()) {
      out.error = err;
      return out;
    }
  }
  const int jobs = options.jobs > 0 ? options.jobs : default_jobs();
  // A time budget stops at the last seed too (kNone is 2^64-1 positions: never reached).
  const std::uint64_t limit = options.seeds > 0 ? options.seeds : std::min(available, kNone);
  const auto started = Clock::now();
  const std::optional<Clock::time_point> deadline =
      options.time_budget_seconds > 0
          ? std::optional<Clock::time_point>(
                started + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(options.time_budget_seconds)))
          : std::nullopt;

  SharedState state;
  state.workers_left = jobs;
  auto worker = [&] {
    for (;;) {
      if (deadline && Clock::now() >= *deadline) {
        break;
      }
      const std::uint64_t position = state.next++;
      if (position >= limit || position > state.stop_at.load()) break;
      RunConfig config;
      if (auto err = explore_config(options, out.seed_at(options, position), config); !err.empty()) {
        std::lock_guard lock(state.mutex);
        state.error = err;
        state.stop_at = 0;
        break;
      }
      config.record_kv_calls = false;  // the search keeps only verdicts (see RunConfig)
      const RunResult result = run_simulation(config);
      const std::string verdict = run_verdict(result);
      if (verdict == "violated") {
        ++state.failures;
        std::uint64_t seen = state.stop_at.load();
        while (position < seen && !state.stop_at.compare_exchange_weak(seen, position)) {
        }
      } else if (verdict == "unknown") {
        ++state.unknown;
      }
      ++state.done;
    }
    if (--state.workers_left == 0) {
      std::lock_guard lock(state.mutex);
      state.finished.notify_all();
    }
  };

  auto progress_now = [&] {
    ExploreProgress p;
    p.seeds_done = state.done;
    p.failures = state.failures;
    p.unknown = state.unknown;
    p.elapsed_seconds = seconds_since(started);
    return p;
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < jobs; ++t) pool.emplace_back(worker);
  {
    std::unique_lock lock(state.mutex);
    while (!state.finished.wait_for(lock, std::chrono::milliseconds(200),
                                    [&] { return state.workers_left.load() == 0; })) {
      if (on_progress) {
        lock.unlock();
        on_progress(progress_now());
        lock.lock();
      }
    }
  }
  for (auto& t : pool) t.join();
  out.progress = progress_now();
  if (on_progress) on_progress(out.progress);
  if (!state.error.empty()) {
    out.error = state.error;
    return out;
  }
  const std::uint64_t stop_at = state.stop_at.load();
  out.positions_run = std::min(state.next.load(), limit);
  if (stop_at != kNone) out.positions_run = stop_at + 1;
  if (stop_at == kNone) return out;

  out.failing_seed = out.seed_at(options, stop_at);
  explore_config(options, *out.failing_seed, out.failing_config);
  if (options.shrink) {
    ShrinkOptions so = options.shrink_options;
    if (so.jobs <= 0) so.jobs = jobs;
    out.shrunk = shrink_failure(out.failing_config, so);
  }
  return out;
}

}  // namespace lockstep
