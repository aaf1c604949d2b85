#include "lockstep/cli/demo_run.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "lockstep/cli/real_replay.h"
#include "lockstep/harness/explore.h"
#include "lockstep/harness/replay.h"
#include "lockstep/harness/run_files.h"
#include "lockstep/harness/shrink.h"
#include "lockstep/reports/explain.h"
#include "lockstep/reports/report_files.h"

namespace lockstep::cli {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

ExploreOptions explore_options(const AlgorithmInfo& info, const DemoSettings& s,
                               const DemoPlan& plan) {
  ExploreOptions o;
  o.run.algorithm = info.name;
  o.run.clients = s.clients;
  o.run.members = s.members;
  o.run.duration = s.duration;
  o.run.faults = "all";
  o.run.max_fault_duration = s.max_fault_duration;
  o.checks = plan.checks;
  o.first_seed = s.first_seed;
  o.seeds = s.seeds;
  o.time_budget_seconds = s.seeds > 0 ? 0 : std::max(s.budget_seconds, 0.001);
  o.jobs = s.jobs;
  o.shrink = false;  // shrunk below, with what is left of the budget
  return o;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Writes the run directory and its report; fills out.explanation. An error message or empty.
std::string write_files(const std::filesystem::path& dir, const Scenario& scenario,
                        const RunResult& result, bool overwrite, DemoOutcome& out) {
  if (auto err = write_run_directory(dir, scenario, result, overwrite); !err.empty()) return err;
  reports::RunFiles files;
  if (auto err = reports::load_run_files(dir, files); !err.empty()) return err;
  if (auto err = reports::write_report(files, dir / "report.html"); !err.empty()) return err;
  for (const auto& e : reports::explain_checks(files.history, files.verdict)) {
    if (!out.violated_check.empty() && e.check != out.violated_check) continue;
    for (const auto& sentence : e.sentences)
      out.explanation += (out.explanation.empty() ? "" : " ") + sentence;
    for (std::size_t i = 0; i < e.chain_length && i < e.sentences.size(); ++i) {
      const bool linked = i < e.spans.size() && e.spans[i].has_value();
      out.cause_chain.emplace_back(e.sentences[i],
                                   linked ? "why-" + e.check + "-" + std::to_string(i + 1) : "");
    }
    if (e.cause.is_object()) out.cause_class = e.cause.value("class", "");
    break;
  }
  return {};
}

}  // namespace

DemoOutcome demo_algorithm(const AlgorithmInfo& info, const DemoSettings& s,
                           const std::filesystem::path& dir) {
  const auto started = Clock::now();
  DemoOutcome out;
  out.algorithm = info.name;
  out.summary = info.summary;
  out.plan = demo_plan(info);

  ExploreOptions o = explore_options(info, s, out.plan);
  ExploreResult r = explore(o, {});
  if (r.error.empty() && r.progress.seeds_done == 0) {
    // The share ran out before a seed finished: run one, so there is a run to show.
    o.seeds = 1;
    o.time_budget_seconds = 0;
    r = explore(o, {});
  }
  if (!r.error.empty()) {
    out.error = r.error;
    out.wall_seconds = seconds_since(started);
    return out;
  }
  out.seeds_run = r.progress.seeds_done;
  out.unknown = r.progress.unknown;
  out.failing_seed = r.failing_seed;

  Scenario scenario;
  RunResult result;
  if (r.failing_seed) {
    ShrinkOptions so;
    so.jobs = s.jobs;
    so.max_runs = s.shrink_runs;
    so.time_budget_seconds = s.shrink_seconds;
    if (s.seeds == 0) {  // what is left of the share, but never less than a quarter of it
      so.time_budget_seconds = std::max(s.budget_seconds - seconds_since(started), s.budget_seconds / 4);
      if (s.shrink_seconds > 0) so.time_budget_seconds = std::min(so.time_budget_seconds, s.shrink_seconds);
      so.time_budget_seconds = std::max(so.time_budget_seconds, 0.001);
    }
    ShrinkResult shrunk = shrink_failure(r.failing_config, so);
    const std::string origin = "lockstep demo (seed " + std::to_string(*r.failing_seed) +
                               ", faults all)";
    if (shrunk.error.empty()) {
      scenario = shrunk_scenario(r.failing_config, shrunk, origin);
      result = std::move(shrunk.result);
      out.violated_check = shrunk.violated_check;
      out.shrink_text = "shrunk in " + std::to_string(shrunk.runs) + " runs" +
                        (shrunk.budget_exhausted ? " (budget reached)" : "") + " to " +
                        plural(shrunk.config.faults.size(), "fault", "faults") + ", " +
                        plural(static_cast<std::size_t>(shrunk.config.workload.clients), "client", "clients") +
                        ", " + std::to_string(to_ms(shrunk.config.workload.duration)) +
                        " ms of load";
    } else {  // cannot happen for a failing seed (runs are pure), but never hide the failure
      scenario.config = r.failing_config;
      scenario.config.expected_verdict = "violated";
      scenario.description = info.name + ": the failing seed found by " + origin + ", as drawn.";
      result = run_simulation(r.failing_config);
      out.violated_check = first_violated_check(result);
    }
  } else {
    explore_config(o, r.seed_at(o, 0), scenario.config);
    result = run_simulation(scenario.config);
    scenario.description =
        info.name + ": seed " + std::to_string(scenario.config.seed) +
        ", the first of the " + std::to_string(out.seeds_run) +
        " seeds lockstep demo explored under every fault class (checks: " +
        checks_text(out.plan.checks) + "); none failed.";
  }
  out.verdict = run_verdict(result);
  out.error = write_files(dir, scenario, result, s.overwrite, out);
  if (out.error.empty() && out.failing_seed && s.confirm_real > 0) {
    RealConfirmationArgs real;
    real.runs = s.confirm_real;
    real.etcd_bin = s.etcd_bin;
    std::ostringstream progress;  // the demo prints one line per algorithm
    const RealConfirmation confirmation =
        confirm_on_real(scenario, result, real, dir, s.overwrite, progress);
    out.real_summary = confirmation.summary();
    out.error = add_real_confirmation(dir, confirmation.to_json());
    reports::RunFiles files;
    if (out.error.empty()) out.error = reports::load_run_files(dir, files);
    if (out.error.empty()) out.error = reports::write_report(files, dir / "report.html");
  }
  out.wall_seconds = seconds_since(started);
  return out;
}

}  // namespace lockstep::cli
