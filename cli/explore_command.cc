// lockstep explore: run many seeds of one algorithm in parallel, each with its own fault mix,
// until one fails; shrink it and write DIR/failure.json. See docs/explore.md.
//
// Exit codes: 0 no seed failed, 1 a seed failed (DIR/failure.json written), 2 bad input.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "lockstep/cli/algorithm_options.h"
#include "lockstep/cli/commands.h"
#include "lockstep/cli/demo_plan.h"
#include "lockstep/cli/real_replay.h"
#include "lockstep/cli/run_real.h"
#include "lockstep/cli/run_report.h"
#include "lockstep/harness/explore.h"
#include "lockstep/harness/output_file.h"
#include "lockstep/harness/parallel_runs.h"
#include "lockstep/harness/run_files.h"
#include "lockstep/harness/scenario.h"

namespace lockstep::cli {

namespace {

struct ExploreArgs {
  std::string algorithm;
  std::vector<std::string> options;  // name=value
  std::uint64_t seeds = 0;
  double time_budget = 0;
  std::uint64_t first_seed = 1;
  int jobs = 0;
  std::string shard = "1/1";
  std::string faults = "all";
  std::vector<std::string> checks;
  int clients = 5;
  int members = 3;
  double duration_seconds = 30;
  std::optional<double> max_fault_seconds;  // unset: max_fault_duration()'s default
  std::optional<double> liveness_bound_seconds;  // unset: the scenario default
  bool fixed_length = false;
  bool no_shrink = false;
  double shrink_budget_seconds = 60;
  int shrink_runs = 400;
  std::string out_dir;
  bool force = false;
  int confirm_real = 0;      // real runs of the shrunk failure (0: none)
  std::string etcd_bin;      // for them: empty = etcd from PATH
};

// Whole milliseconds, so that every scenario explore writes can be written exactly.
Duration seconds_to_ms(double s) { return milliseconds(static_cast<std::int64_t>(std::llround(s * 1000))); }

int explore_main(const ExploreArgs& args) {
  namespace fs = std::filesystem;
  ExploreOptions o;
  o.run.algorithm = args.algorithm;
  if (auto err = parse_algorithm_options(args.options, o.run.algorithm_options); !err.empty()) {
    std::cerr << "lockstep explore: " << err << "\n";
    return kExitBadInput;
  }
  if ((args.seeds == 0) == (args.time_budget <= 0)) {
    std::cerr << "lockstep explore: give exactly one of --seeds N and --time-budget SECONDS\n";
    return kExitBadInput;
  }
  if (auto err = confirm_real_problem(args.confirm_real, args.etcd_bin); !err.empty()) {
    std::cerr << "lockstep explore: " << err << "\n";
    return kExitBadInput;
  }
  o.run.clients = args.clients;
  o.run.members = args.members;
  o.run.duration = seconds_to_ms(args.duration_seconds);
  o.run.faults = args.faults;
  if (args.max_fault_seconds) o.run.max_fault_duration = seconds_to_ms(*args.max_fault_seconds);
  o.run.extend_load_for_liveness = !args.fixed_length;
  for (const auto& c : args.checks) {
    std::stringstream in(c);
    for (std::string item; std::getline(in, item, ',');) {
      if (item.empty()) continue;
      // As --faults and a scenario's "checks" refuse a name given twice.
      if (std::find(o.checks.begin(), o.checks.end(), item) != o.checks.end()) {
        std::cerr << "lockstep explore: --check " << item << " is given twice\n";
        return kExitBadInput;
      }
      o.checks.push_back(item);
    }
  }
  // By default an algorithm is judged on what it claims (demo_plan): a fenced or guarded lock
  // on its resource and liveness, since two holders' beliefs may overlap past a lease.
  if (o.checks.empty())
    if (const AlgorithmInfo* info = find_algorithm(o.run.algorithm)) o.checks = demo_plan(*info).checks;
  if (args.liveness_bound_seconds) o.liveness_bound = seconds_to_ms(*args.liveness_bound_seconds);
  o.first_seed = args.first_seed;
  o.seeds = args.seeds;
  o.time_budget_seconds = args.time_budget;
  o.jobs = args.jobs > 0 ? args.jobs : default_jobs();
  // auto/N: the shard a Kubernetes Indexed Job gives this pod (JOB_COMPLETION_INDEX, from 0).
  std::string shard = args.shard;
  if (shard.rfind("auto/", 0) == 0) {
    const char* index = std::getenv("JOB_COMPLETION_INDEX");
    if (index == nullptr || *index == '\0') {
      std::cerr << "lockstep explore: --shard " << shard
                << " takes its shard from JOB_COMPLETION_INDEX (set by a Kubernetes Indexed Job), "
                   "which is not set\n";
      return kExitBadInput;
    }
    const std::string text = index;
    if (text.find_first_not_of("0123456789") != std::string::npos || text.size() > 9) {
      std::cerr << "lockstep explore: JOB_COMPLETION_INDEX must be a number from 0, not \"" << text
                << "\"\n";
      return kExitBadInput;
    }
    shard = std::to_string(std::stoi(text) + 1) + shard.substr(4);
  }
  if (auto err = parse_shard(shard, o.shard_index, o.shard_count); !err.empty()) {
    std::cerr << "lockstep explore: " << err << "\n";
    return kExitBadInput;
  }
  // Seeds are 64-bit: --first-seed 18446744073709551614 --seeds 14 ran 2^64-2, 2^64-1, 0, 1...
  // and said "lowest failing seed 11" of a range that does not exist.
  if (const std::uint64_t available = seeds_before_wrap(o); available == 0 || o.seeds > available) {
    std::cerr << "lockstep explore: --first-seed " << args.first_seed << " with --seeds " << args.seeds
              << (o.shard_count > 1 ? " (shard " + shard + ")" : std::string())
              << " runs past the last seed, 18446744073709551615 (" << available
              << " seed" << (available == 1 ? "" : "s") << " from there); lower --first-seed or --seeds\n";
    return kExitBadInput;
  }
  o.shrink = !args.no_shrink;
  o.shrink_options.time_budget_seconds = args.shrink_budget_seconds;
  o.shrink_options.max_runs = args.shrink_runs;

  const fs::path dir = args.out_dir;
  if (auto err = output_directory_problem(dir); !err.empty()) {
    std::cerr << "lockstep explore: --out " << err << "\n";
    return kExitBadInput;
  }
  if (!args.force) {
    // Every file explore may write, before any seed runs.
    static constexpr const char* kExploreFiles[] = {"summary.json", "failure.json",
                                                    "failure-unshrunk.json"};
    std::string taken = run_directory_taken(dir / "failure");
    if (taken.empty()) taken = files_taken(dir, kExploreFiles);
#ifdef LOCKSTEP_HAVE_REAL_ETCD
    for (int i = 1; taken.empty() && i <= args.confirm_real; ++i)
      taken = real_files_taken(dir / "failure" / ("real-" + std::to_string(i)));
#endif
    if (!taken.empty()) {
      std::cerr << "lockstep explore: " << taken << "\n";
      return kExitBadInput;
    }
  }

  const bool tty = isatty(STDOUT_FILENO) == 1;
  auto progress = [&](const ExploreProgress& p) {
    if (!tty) return;
    std::printf("\r\033[Kexplore %s: %llu seeds, %.1f seeds/s, %llu failed, %.0f s",
                args.algorithm.c_str(), static_cast<unsigned long long>(p.seeds_done),
                p.seeds_per_second(), static_cast<unsigned long long>(p.failures),
                p.elapsed_seconds);
    std::fflush(stdout);
  };
  if (tty && o.shrink) {
    o.shrink_options.on_step = [](const std::string& step) {
      std::printf("\r\033[Kshrink: %s", step.c_str());
      std::fflush(stdout);
    };
  }
  const ExploreResult r = explore(o, progress);
  if (tty) std::printf("\r\033[K");
  if (!r.error.empty()) {
    std::cerr << "lockstep explore: " << r.error << "\n";
    return kExitBadInput;
  }

  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::cerr << "lockstep explore: cannot create " << dir.string() << ": " << ec.message() << "\n";
    return kExitBadInput;
  }
  std::string failure_file;
  std::optional<RealConfirmation> confirmation;
  if (r.failing_seed) {
    const std::string origin = "lockstep explore --algorithm " + args.algorithm + " (seed " +
                               std::to_string(*r.failing_seed) + ", faults " + args.faults + ")";
    Scenario unshrunk;
    unshrunk.config = r.failing_config;
    unshrunk.config.expected_verdict = "violated";
    unshrunk.description = args.algorithm + ": the failing seed found by " + origin + ", as drawn.";
    Scenario failure = unshrunk;
    if (r.shrunk && r.shrunk->error.empty()) failure = shrunk_scenario(r.failing_config, *r.shrunk, origin);
    for (const auto& [name, s] : {std::pair{"failure-unshrunk.json", &unshrunk}, {"failure.json", &failure}})
      if (auto err = save_scenario_file(dir / name, *s, args.force); !err.empty()) {
        std::cerr << "lockstep explore: " << err << "\n";
        return kExitBadInput;
      }
    failure_file = "failure.json";
    // The failure as a run directory with its report, readable without lockstep.
    const RunResult failure_run = run_simulation(failure.config);  // one run, deterministic
    std::string err = write_run_directory(dir / "failure", failure, failure_run, args.force);
    if (err.empty()) err = write_run_report(dir / "failure", args.force);
    if (err.empty() && args.confirm_real > 0) {
      // The shrunk failure on a real etcd; the failure's verdict and report then carry it.
      RealConfirmationArgs real;
      real.runs = args.confirm_real;
      real.etcd_bin = args.etcd_bin;
      std::cout << "confirming the failure on a real etcd, " << args.confirm_real << " run"
                << (args.confirm_real == 1 ? "" : "s") << "\n";
      confirmation = confirm_on_real(failure, failure_run, real, dir / "failure", args.force, std::cout);
      err = add_real_confirmation(dir / "failure", confirmation->to_json());
      if (err.empty()) err = write_run_report(dir / "failure", /*overwrite=*/true);
    }
    if (!err.empty()) {
      std::cerr << "lockstep explore: " << err << "\n";
      return kExitBadInput;
    }
  }
  const auto& p = r.progress;
  nlohmann::json summary = {
      {"format", "lockstep-explore-summary"},
      {"version", 1},
      {"algorithm", args.algorithm},
      {"faults", args.faults},
      {"checks", o.checks},
      {"shard", {{"index", o.shard_index + 1}, {"count", o.shard_count}}},
      // What every shard of one exploration shares (lockstep merge refuses shards that differ).
      {"plan",
       {{"algorithm", args.algorithm},
        {"options", o.run.algorithm_options},
        {"faults", args.faults},
        {"checks", o.checks},
        {"clients", args.clients},
        {"members", args.members},
        {"duration_ms", to_ms(o.run.duration)},
        {"max_fault_duration_ms",
         o.run.max_fault_duration ? nlohmann::json(to_ms(*o.run.max_fault_duration)) : nlohmann::json(nullptr)},
        {"liveness_bound_ms", o.liveness_bound ? nlohmann::json(to_ms(*o.liveness_bound)) : nlohmann::json(nullptr)},
        {"fixed_length", args.fixed_length},
        {"first_seed", args.first_seed},
        {"shard_count", o.shard_count},
        {"seeds_per_shard", args.seeds > 0 ? nlohmann::json(args.seeds) : nlohmann::json(nullptr)},
        {"shrink", !args.no_shrink}}},
      // The seeds this shard ran for sure: first + k * stride for k < count.
      {"seeds",
       {{"first", r.seed_at(o, 0)}, {"stride", o.shard_count}, {"count", r.positions_run}}},
      {"seeds_done", p.seeds_done},
      {"failures", p.failures},
      {"unknown", p.unknown},
      {"failing_seed", r.failing_seed ? nlohmann::json(*r.failing_seed) : nlohmann::json(nullptr)},
      {"failure", failure_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(failure_file)},
      {"wall_seconds", p.elapsed_seconds},
      {"seeds_per_second", p.seeds_per_second()},
      {"jobs", o.jobs}};
  if (confirmation) summary["real_confirmation"] = confirmation->to_json();
  if (auto err = write_file_replacing(dir / "summary.json", summary.dump(2) + "\n"); !err.empty()) {
    std::cerr << "lockstep explore: " << err << "\n";
    return kExitBadInput;
  }
  char line[256];
  std::snprintf(line, sizeof line,
                "explore %s: %llu seeds in %.1f s (%.1f seeds/s, %d jobs, shard %d/%d), %llu failed",
                args.algorithm.c_str(), static_cast<unsigned long long>(p.seeds_done),
                p.elapsed_seconds, p.seeds_per_second(), o.jobs, o.shard_index + 1, o.shard_count,
                static_cast<unsigned long long>(p.failures));
  std::cout << line;
  if (!r.failing_seed) {
    std::cout << "\n";
    return kExitOk;
  }
  std::cout << "; lowest failing seed " << *r.failing_seed << "\n";
  if (r.shrunk) {
    const auto& s = *r.shrunk;
    std::cout << "  shrunk in " << s.runs << " runs" << (s.budget_exhausted ? " (budget reached)" : "")
              << " to " << s.config.faults.size() << " faults, " << s.config.workload.clients
              << " clients, " << to_ms(s.config.workload.duration) << " ms of load: "
              << s.violated_check << " violated\n";
  }
  if (confirmation) std::cout << "  on a real etcd: " << confirmation->summary() << "\n";
  std::cout << "  report: " << (dir / "failure" / "report.html").string() << "\n"
            << "  replay: lockstep replay " << (dir / "failure.json").string() << "\n"
            << "  keep it as a regression: cp " << (dir / "failure.json").string()
            << " scenarios/regressions/" << args.algorithm << "-"
            << (r.shrunk ? r.shrunk->violated_check : std::string("failure")) << "-seed"
            << *r.failing_seed << ".json\n";
  return kExitViolated;
}

}  // namespace

void add_explore_command(CLI::App& app, CommandSet& commands) {
  auto a = std::make_shared<ExploreArgs>();
  auto* cmd = app.add_subcommand(
      "explore", "Run many seeds in parallel until one fails; shrink it into DIR/failure.json");
  cmd->add_option("--algorithm", a->algorithm, "Algorithm name (see `lockstep list`)")->required();
  cmd->add_option("--option", a->options, "An algorithm option, NAME=INTEGER (repeatable)");
  auto* seeds = cmd->add_option("--seeds", a->seeds, "How many seeds this shard runs")
                    ->transform(unsigned_integer())
                    ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  auto* budget = cmd->add_option("--time-budget", a->time_budget,
                                 "Run seeds for this many wall-clock seconds")
                     ->check(finite_between(0.001, 1e7));
  seeds->excludes(budget);
  cmd->add_option("--first-seed", a->first_seed, "The first seed")
      ->transform(unsigned_integer())
      ->capture_default_str();
  cmd->add_option("--jobs", a->jobs, "Threads (default: all cores)")->check(CLI::Range(1, 1024));
  cmd->add_option("--shard", a->shard,
                  "I/N: run only the I-th of N interleaved parts of the seeds (1 <= I <= N <= 100000); auto/N: I is JOB_COMPLETION_INDEX + 1 (a Kubernetes Indexed Job)")
      ->capture_default_str();
  cmd->add_option("--faults", a->faults, "Fault classes: a comma list, all or none")
      ->check(non_empty())
      ->capture_default_str();
  cmd->add_option("--check", a->checks,
                  "Checks to run: mutex, resource, liveness (repeatable or a comma list; "
                  "default: resource and liveness for a fenced or guarded algorithm, else all)")
      ->check(non_empty());
  cmd->add_option("--clients", a->clients, "Clients")->check(CLI::Range(1, 64))->capture_default_str();
  cmd->add_option("--members", a->members, "etcd members (1, 3 or 5)")
      ->check(CLI::IsMember({1, 3, 5}))
      ->capture_default_str();
  cmd->add_option("--duration", a->duration_seconds, "Simulated seconds of load per seed")
      ->check(finite_between(0.001, 86400))
      ->check(whole_milliseconds())
      ->capture_default_str();
  cmd->add_option_function<double>(
         "--max-fault-duration", [a](double v) { a->max_fault_seconds = v; },
         "Longest fault, in simulated seconds (default: 20, or 1.5 lease TTLs when the "
         "algorithm's lease is longer)")
      ->check(finite_between(0.001, 86400))
      ->check(whole_milliseconds());
  cmd->add_option_function<double>(
         "--liveness-bound", [a](double v) { a->liveness_bound_seconds = v; },
         "Seconds after faults heal within which waiters must be served (default: the lease "
         "TTL + 20 s, or 60 s for a lock without a lease)")
      ->check(finite_between(0.001, 86400))
      ->check(whole_milliseconds());
  cmd->add_flag("--fixed-length", a->fixed_length,
                "Stop each seed's load after --duration even when faults heal late (faster "
                "seeds; liveness is then judged only where the history allows)");
  auto* no_shrink = cmd->add_flag("--no-shrink", a->no_shrink, "Write the failing seed as drawn, unshrunk");
  add_confirm_real_options(*cmd, a->confirm_real, a->etcd_bin, "the shrunk failure");
  auto* shrink_budget = cmd->add_option("--shrink-budget", a->shrink_budget_seconds,
                  "Wall-clock seconds the shrinker may use (0: no limit)")
      ->check(finite_between(0, 1e7))
      ->capture_default_str();
  auto* shrink_runs = cmd->add_option("--shrink-runs", a->shrink_runs, "Runs the shrinker may use")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  no_shrink->excludes(shrink_budget)->excludes(shrink_runs);  // they would be ignored
  cmd->add_option("--out", a->out_dir, "Directory for summary.json and failure.json")
      ->required()
      ->check(non_empty());
  cmd->add_flag("--force", a->force, "Overwrite files already in --out");
  cmd->callback([&commands, a] { commands.action = [a] { return explore_main(*a); }; });
}

}  // namespace lockstep::cli
