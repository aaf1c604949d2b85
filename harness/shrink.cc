#include "lockstep/harness/shrink.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include "lockstep/harness/parallel_runs.h"

namespace lockstep {

std::string first_violated_check(const RunResult& result) {
  for (const auto& c : result.checks)
    if (c.status == CheckStatus::violated) return c.name;
  return {};
}

namespace {

// Renames the processes a fault names; `rename` returns "" to remove a name. Returns false
// when the fault no longer names anyone on a side that named someone (an empty side of a
// network fault would mean "every process", a different fault altogether).
bool rename_processes(sim::FaultSpec& f,
                      const std::function<std::string(const std::string&)>& rename) {
  for (auto* list : {&f.from, &f.to, &f.targets}) {
    if (list->empty()) continue;
    std::vector<std::string> kept;
    for (const auto& name : *list)
      if (auto n = rename(name); !n.empty()) kept.push_back(n);
    if (kept.empty()) return false;
    *list = std::move(kept);
  }
  return true;
}

// "client-3" -> 3 for the given prefix, or -1.
int index_of(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0) return -1;
  try {
    return std::stoi(name.substr(prefix.size()));
  } catch (...) {
    return -1;
  }
}

std::int64_t round_down(std::int64_t v, std::int64_t unit) { return v / unit * unit; }

}  // namespace

RunConfig without_client(const RunConfig& config, int index) {
  RunConfig c = config;
  c.workload.clients -= 1;
  c.faults.clear();
  for (auto f : config.faults) {
    const bool keep = rename_processes(f, [&](const std::string& name) -> std::string {
      const int i = index_of(name, "client-");
      if (i < 0) return name;
      if (i == index) return "";
      return i > index ? "client-" + std::to_string(i - 1) : name;
    });
    if (keep) c.faults.push_back(std::move(f));
  }
  return c;
}

RunConfig with_members(const RunConfig& config, int members) {
  RunConfig c = config;
  c.etcd.members = members;
  c.faults.clear();
  for (auto f : config.faults) {
    const bool keep = rename_processes(f, [&](const std::string& name) -> std::string {
      const int i = index_of(name, "member-");
      return i >= members ? "" : name;
    });
    if (keep) c.faults.push_back(std::move(f));
  }
  return c;
}

namespace {

using Clock = std::chrono::steady_clock;

class Shrinker {
 public:
  Shrinker(std::string target, const ShrinkOptions& options, RunConfig best, RunResult result)
      : target_(std::move(target)), options_(options), best_(std::move(best)),
        best_result_(std::move(result)) {
    if (options_.jobs <= 0) options_.jobs = default_jobs();
    if (options_.time_budget_seconds > 0)
      deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(options_.time_budget_seconds));
  }

  bool out_of_budget() const {
    return runs_ >= options_.max_runs || (deadline_ && Clock::now() >= *deadline_);
  }

  // Tries the candidates in order and adopts the first that keeps the violation.
  bool try_candidates(const std::vector<RunConfig>& candidates, const std::string& step) {
    std::size_t i = 0;
    while (i < candidates.size() && !out_of_budget()) {
      const std::size_t room = static_cast<std::size_t>(options_.max_runs - runs_);
      const std::size_t batch = std::min({candidates.size() - i,
                                          static_cast<std::size_t>(std::max(1, options_.jobs)), room});
      std::vector<RunConfig> configs(candidates.begin() + static_cast<std::ptrdiff_t>(i),
                                     candidates.begin() + static_cast<std::ptrdiff_t>(i + batch));
      auto results = run_in_parallel(configs, options_.jobs);
      for (std::size_t j = 0; j < batch; ++j) {
        ++runs_;  // counted as if run one by one, so the result does not depend on jobs
        if (violates(results[j])) {
          best_ = std::move(configs[j]);
          best_result_ = std::move(results[j]);
          steps_.push_back(step + " (" + summary(best_) + ")");
          if (options_.on_step) options_.on_step(steps_.back());
          return true;
        }
      }
      i += batch;
    }
    return false;
  }

  // One round of every pass; true if any made progress.
  bool round() {
    bool progress = false;
    progress |= shrink_faults();
    progress |= shrink_clients();
    progress |= shrink_members();
    progress |= shrink_cycles();
    progress |= shrink_time();
    progress |= simplify_faults();
    return progress;
  }

  std::string target_;
  ShrinkOptions options_;
  std::optional<Clock::time_point> deadline_;
  std::vector<std::string> steps_;
  RunConfig best_;
  RunResult best_result_;
  int runs_ = 0;

 private:
  bool violates(const RunResult& r) const {
    for (const auto& c : r.checks)
      if (c.name == target_ && c.status == CheckStatus::violated) return true;
    return false;
  }

  static std::string summary(const RunConfig& c) {
    return std::to_string(c.faults.size()) + " faults, " + std::to_string(c.workload.clients) +
           " clients, " + std::to_string(c.etcd.members) + " members, " +
           std::to_string(to_ms(c.workload.duration)) + " ms";
  }

  // Delta debugging over the fault list: remove halves, then quarters, ... then single faults.
  bool shrink_faults() {
    bool progress = false;
    std::size_t chunk = best_.faults.size();
    while (chunk >= 1 && !best_.faults.empty() && !out_of_budget()) {
      chunk = std::min(chunk, best_.faults.size());
      std::vector<RunConfig> candidates;
      for (std::size_t start = 0; start < best_.faults.size(); start += chunk) {
        RunConfig c = best_;
        c.faults.erase(c.faults.begin() + static_cast<std::ptrdiff_t>(start),
                       c.faults.begin() + static_cast<std::ptrdiff_t>(
                                              std::min(start + chunk, best_.faults.size())));
        candidates.push_back(std::move(c));
      }
      if (try_candidates(candidates, "removed " + std::to_string(chunk) + " fault(s)")) {
        progress = true;
        continue;
      }
      if (chunk == 1) break;
      chunk /= 2;
    }
    return progress;
  }

  bool shrink_clients() {
    bool progress = false;
    while (best_.workload.clients > 1 && !out_of_budget()) {
      std::vector<RunConfig> candidates;
      for (int k = best_.workload.clients - 1; k >= 0; --k) candidates.push_back(without_client(best_, k));
      if (!try_candidates(candidates, "removed a client")) break;
      progress = true;
    }
    return progress;
  }

  bool shrink_members() {
    std::vector<RunConfig> candidates;
    for (int m : {1, 3})
      if (m < best_.etcd.members) candidates.push_back(with_members(best_, m));
    return try_candidates(candidates, "fewer etcd members");
  }

  // The most lock cycles any client started.
  static std::int64_t max_cycles(const RunResult& r) {
    std::map<std::string, std::int64_t> acquires;
    for (const auto& e : r.history.events)
      if (e.kind == EventKind::invoke && e.op == "acquire") ++acquires[e.process];
    std::int64_t most = 0;
    for (const auto& [_, n] : acquires) most = std::max(most, n);
    return most;
  }

  bool shrink_cycles() {
    std::int64_t current = best_.workload.max_cycles_per_client;
    if (current == 0) current = max_cycles(best_result_) + 1;  // unlimited: start at what ran
    std::vector<RunConfig> candidates;
    for (std::int64_t n = 1; n < current; n = n < 4 ? n + 1 : n * 2) {
      RunConfig c = best_;
      c.workload.max_cycles_per_client = n;
      candidates.push_back(std::move(c));
    }
    return try_candidates(candidates, "fewer lock cycles per client");
  }

  bool shrink_time() {
    bool progress = false;
    // A load of fixed length first, unless liveness is what fails: it stops at its duration
    // instead of running on until liveness could be judged after the last fault, so the load
    // that remains is the load the violation needs (tried before shortening the load, which an
    // extended load would otherwise mask: its extension keeps clients busy through the faults).
    if (target_ != "liveness" && best_.extend_load_for_liveness) {
      RunConfig c = best_;
      c.extend_load_for_liveness = false;
      progress |= try_candidates({c}, "fixed-length load");
    }
    // The load's duration, shortest first.
    const std::int64_t d = to_ms(best_.workload.duration);
    std::vector<std::int64_t> lengths = {1000, 2000, 5000, d / 4, d / 2, d * 3 / 4};
    std::sort(lengths.begin(), lengths.end());
    std::vector<RunConfig> candidates;
    for (std::int64_t ms : lengths) {
      ms = round_down(ms, 100);
      if (ms < 100 || ms >= d) continue;
      if (!candidates.empty() && candidates.back().workload.duration == milliseconds(ms)) continue;
      RunConfig c = best_;
      c.workload.duration = milliseconds(ms);
      candidates.push_back(std::move(c));
    }
    progress |= try_candidates(candidates, "shorter load");
    // Faults earlier: everything shifted so that the first fault starts sooner.
    if (!best_.faults.empty()) {
      Duration first = best_.faults[0].start;
      for (const auto& f : best_.faults) first = std::min(first, f.start);
      candidates.clear();
      for (Duration shift : {first, first / 2}) {
        shift = std::chrono::duration_cast<std::chrono::milliseconds>(shift);
        if (shift <= Duration(0)) continue;
        RunConfig c = best_;
        for (auto& f : c.faults) f.start -= shift;
        candidates.push_back(std::move(c));
      }
      progress |= try_candidates(candidates, "faults earlier");
    }
    // The tail after the load: the liveness bound (an extended load waits for it after the
    // last fault) and the drain, unless liveness is what fails. A fixed-length load does not
    // wait for the bound, which then only judges liveness: shortening it would change nothing
    // in the run, only make the saved scenario's liveness check stricter than the input's.
    if (target_ != "liveness") {
      if (best_.extend_load_for_liveness) {
        candidates.clear();
        for (std::int64_t ms : {1000, 5000, 10000}) {
          if (milliseconds(ms) >= best_.liveness_bound) continue;
          RunConfig c = best_;
          c.liveness_bound = milliseconds(ms);
          candidates.push_back(std::move(c));
        }
        progress |= try_candidates(candidates, "shorter liveness bound");
      }
      candidates.clear();
      for (std::int64_t ms : {1000, 5000}) {
        if (milliseconds(ms) >= best_.workload.drain_timeout) continue;
        RunConfig c = best_;
        c.workload.drain_timeout = milliseconds(ms);
        candidates.push_back(std::move(c));
      }
      progress |= try_candidates(candidates, "shorter drain");
    }
    return progress;
  }

  // Rounder, shorter faults, so that the scenario reads easily.
  bool simplify_faults() {
    bool progress = false;
    for (std::int64_t unit : {1000, 100}) {
      RunConfig c = best_;
      bool changed = false;
      for (auto& f : c.faults) {
        const auto start = milliseconds(round_down(to_ms(f.start), unit));
        const auto duration =
            f.duration.count() == 0 ? f.duration
                                    : milliseconds(std::max(unit, round_down(to_ms(f.duration), unit)));
        changed = changed || start != f.start || duration != f.duration;
        f.start = start;
        f.duration = duration;
      }
      if (changed && try_candidates({c}, "rounded fault times to " + std::to_string(unit) + " ms")) {
        progress = true;
        break;
      }
    }
    progress |= tighten_faults();
    return progress;
  }

  // Each fault as short and as late as the violation allows, so that the scenario keeps only
  // what is needed (an 88 s pause that 61 s reproduces is not minimal): a bisection in 100 ms
  // steps of its duration with its start fixed, then of its start with its end fixed. It
  // assumes the violation needs the fault to last long enough (a pause or a cut past a TTL);
  // where that does not hold, it still adopts only candidates that fail. A fault tightened
  // once is not bisected again in later rounds (tight_).
  bool tighten_faults() {
    bool progress = false;
    for (std::size_t i = 0; i < best_.faults.size() && !out_of_budget(); ++i) {
      if (best_.faults[i].duration < milliseconds(200)) continue;
      if (std::find(tight_.begin(), tight_.end(), best_.faults[i]) != tight_.end()) continue;
      const std::string kind = best_.faults[i].kind;
      // Duration: `fails_ms` is known to fail; `passes_ms` is not known to.
      std::int64_t passes_ms = 0;
      std::int64_t fails_ms = to_ms(best_.faults[i].duration);
      while (fails_ms - passes_ms > std::max<std::int64_t>(100, fails_ms / 20) && !out_of_budget()) {
        const std::int64_t mid = round_down((passes_ms + fails_ms) / 2, 100);
        if (mid <= passes_ms) break;
        RunConfig c = best_;
        c.faults[i].duration = milliseconds(mid);
        if (try_candidates({c}, "shorter " + kind + " fault (" + std::to_string(mid) + " ms)")) {
          fails_ms = mid;
          progress = true;
        } else {
          passes_ms = mid;
        }
      }
      // Start: later by `fails_shift_ms` still fails, by `passes_shift_ms` is not known to.
      std::int64_t fails_shift_ms = 0;
      std::int64_t passes_shift_ms = to_ms(best_.faults[i].duration);
      while (passes_shift_ms - fails_shift_ms > std::max<std::int64_t>(100, passes_shift_ms / 20) &&
             !out_of_budget()) {
        const std::int64_t mid = round_down((fails_shift_ms + passes_shift_ms) / 2, 100);
        if (mid <= fails_shift_ms) break;
        RunConfig c = best_;
        c.faults[i].start += milliseconds(mid - fails_shift_ms);
        c.faults[i].duration -= milliseconds(mid - fails_shift_ms);
        if (try_candidates({c}, "later " + kind + " fault (" + std::to_string(mid - fails_shift_ms) +
                                    " ms later, same end)")) {
          fails_shift_ms = mid;
          progress = true;
        } else {
          passes_shift_ms = mid;
        }
      }
      tight_.push_back(best_.faults[i]);
    }
    return progress;
  }

  std::vector<sim::FaultSpec> tight_;  // faults tighten_faults() already bisected

};

}  // namespace

ShrinkResult shrink_failure(const RunConfig& failing, const ShrinkOptions& options) {
  ShrinkResult out;
  RunResult first = run_simulation(failing);
  out.violated_check = first_violated_check(first);
  if (out.violated_check.empty()) {
    out.error = "the scenario violates no check, so there is nothing to shrink";
    out.config = failing;
    out.result = std::move(first);
    out.runs = 1;
    return out;
  }
  // Only the kept check runs while shrinking (checks judge the history afterwards; they do
  // not change the run), which saves the other checkers' time on every candidate.
  RunConfig start = failing;
  start.checks = {out.violated_check};
  start.record_kv_calls = false;  // candidates keep only verdicts; the final run records
  Shrinker s(out.violated_check, options, start, std::move(first));
  s.runs_ = 1;
  while (!s.out_of_budget() && s.round()) {
  }
  out.budget_exhausted = s.out_of_budget();
  out.steps = s.steps_;
  out.config = s.best_;
  out.config.checks = failing.checks;
  out.config.record_kv_calls = true;
  out.config.expected_verdict = "violated";
  // The schedule is no longer one drawn from these classes: it is written by the shrinker.
  out.config.fault_classes.clear();
  // The final run with every check of the input, for the verdict that goes with the scenario.
  out.result = run_simulation(out.config);
  out.runs = s.runs_ + 1;
  return out;
}

}  // namespace lockstep

namespace lockstep {

namespace {
std::string size_text(const RunConfig& c) {
  return std::to_string(c.faults.size()) + " faults, " + std::to_string(c.workload.clients) +
         " clients, " + std::to_string(c.etcd.members) + " members, " +
         std::to_string(to_ms(c.workload.duration)) + " ms of load";
}
}  // namespace

Scenario shrunk_scenario(const RunConfig& original, const ShrinkResult& shrunk,
                         const std::string& origin) {
  Scenario s;
  s.config = shrunk.config;
  s.config.expected_verdict = "violated";
  std::string summary;
  for (const auto& c : shrunk.result.checks)
    if (c.name == shrunk.violated_check) summary = c.summary;
  s.description = shrunk.config.algorithm + " violates " + shrunk.violated_check +
                  (summary.empty() ? "" : " (" + summary + ")") + ". Found by " + origin +
                  "; shrunk from " + size_text(original) + " to " + size_text(shrunk.config) +
                  " in " + std::to_string(shrunk.runs) + " runs.";
  return s;
}

}  // namespace lockstep
