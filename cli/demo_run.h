// One algorithm of `lockstep demo`: explore its seeds under every fault class, shrink the
// first failure, and write the run directory that shows the outcome, with its report.
//
// Contract:
//   - Seeds are drawn as `lockstep explore` draws them (harness/explore.h: first_seed, +1, ...,
//     each switching on its own subset of every fault class), judged by the checks of
//     demo_plan(info). Exploring stops at the first failure, which is shrunk.
//   - With `seeds` set and shrink_seconds 0, the outcome is a function of the settings (not of
//     `jobs` or the machine's speed): explore reports the lowest failing seed and the shrinker
//     the result a sequential search would find within shrink_runs. With a time budget, how
//     many seeds run, and so which failure is found, depends on the machine.
//   - `dir` receives history.jsonl, verdict.json, scenario.json and report.html: the shrunk
//     failure or, when no seed failed, the run of the first seed explored (a representative
//     survivor). `lockstep replay dir/scenario.json` reproduces it (its verdict and history).
//   - With confirm_real, a failure is then replayed that many times on a local real etcd; its
//     real runs are kept in dir/real-K and the summary goes into verdict.json and the report.
//   - Never throws for bad input or I/O: errors come back in DemoOutcome::error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lockstep/algorithms/registry.h"
#include "lockstep/cli/demo_plan.h"
#include "lockstep/kv/time.h"

namespace lockstep::cli {

struct DemoSettings {
  std::uint64_t first_seed = 1;
  std::uint64_t seeds = 0;      // seeds per algorithm; 0: run seeds for budget_seconds
  double budget_seconds = 0;    // wall-clock share of this algorithm, when seeds == 0
  double shrink_seconds = 0;    // wall-clock cap on shrinking; 0: none (shrink_runs only)
  int shrink_runs = 200;
  int jobs = 1;
  bool overwrite = false;       // replace files already in the run directory
  // The shape of every seed's run.
  int clients = 3;
  int members = 3;
  Duration duration = seconds(20);
  std::optional<Duration> max_fault_duration;  // unset: max_fault_duration()'s default
  // Real runs of each shrunk failure on a local etcd (cli/real_replay.h); 0: none.
  int confirm_real = 0;
  std::string etcd_bin;  // for them: empty = etcd from PATH
};

struct DemoOutcome {
  std::string algorithm;
  std::string summary;  // the catalogue's one-line description
  DemoPlan plan;
  std::string error;    // non-empty: the run directory may be missing or incomplete
  std::uint64_t seeds_run = 0;  // seeds explored (finished)
  std::uint64_t unknown = 0;    // of which a check answered "unknown"
  std::optional<std::uint64_t> failing_seed;
  std::string verdict;          // of the run written: "violated", "ok" or "unknown"
  std::string violated_check;   // the check the written failure violates
  std::string explanation;      // the report's explanation of that violation, as text
  // Its causal chain: the sentences from the violation back to its cause, each with the id of
  // its place in report.html ("why-mutex-2") when it names a span of the timeline, else "".
  std::vector<std::pair<std::string, std::string>> cause_chain;
  std::string cause_class;      // the explanation's cause["class"], or ""
  std::string shrink_text;      // e.g. "shrunk in 40 runs to 1 fault, 2 clients, 100 ms of load"
  // With confirm_real: e.g. "reproduced on etcd 3.4.23 in 3 of 5 runs (mutex violated in 3)".
  std::string real_summary;
  double wall_seconds = 0;
  // A violation of what the algorithm is expected to hold: a bug, to be reported loudly.
  bool unexpected() const { return plan.expected_to_hold && failing_seed.has_value(); }
};

DemoOutcome demo_algorithm(const AlgorithmInfo& info, const DemoSettings& settings,
                           const std::filesystem::path& dir);

}  // namespace lockstep::cli
