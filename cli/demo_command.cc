// lockstep demo: explores the whole catalogue on the simulated cluster for a bounded time and
// writes DIR/index.html linking each algorithm's verdict and report (DIR/<algorithm>/).
//
// Exit codes: 0 the demo ran (broken algorithms caught is the expected outcome); 1 an
// algorithm expected to hold its checks (demo_plan.h) was found violated; 2 bad usage or
// files that cannot be written.
//
// Determinism: with --seeds N every algorithm runs the same N seeds and the shrinker is
// bounded by runs only, so the same --seed and --seeds give the same verdicts, scenarios
// and reports on every machine and for any --jobs. With --time-budget (the default) how many
// seeds run depends on the machine, so the results may differ from one run to the next
// (each one still replays exactly).
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <limits>

#include "lockstep/algorithms/registry.h"
#include "lockstep/cli/commands.h"
#include "lockstep/cli/demo_index.h"
#include "lockstep/cli/demo_run.h"
#include "lockstep/cli/real_replay.h"
#include "lockstep/harness/parallel_runs.h"

namespace lockstep::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kDefaultOut = "lockstep-demo";

struct DemoArgs {
  std::string out_dir;  // empty: the first free of lockstep-demo, lockstep-demo-2, ...
  bool force = false;
  double time_budget = 60;
  std::uint64_t seeds = 0;
  std::uint64_t first_seed = 1;
  int jobs = 0;
  int shrink_runs = 200;
  int confirm_real = 0;
  std::string etcd_bin;
};

// The first of lockstep-demo, lockstep-demo-2, lockstep-demo-3, ... that does not exist.
std::string free_default_dir() {
  std::string name = kDefaultOut;
  std::error_code ec;
  for (int i = 2; fs::exists(name, ec) || fs::is_symlink(name, ec); ++i)
    name = std::string(kDefaultOut) + "-" + std::to_string(i);
  return name;
}

// Returns an error message, or empty with the directory created and empty (or --force).
std::string prepare_out_dir(const std::string& dir, bool force) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    return dir + " exists and is not a directory; choose another --out";
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec) && !force)
    return dir + " already exists and is not empty; choose another --out DIR, or pass --force "
                 "to replace the demo's files in it";
  fs::create_directories(dir, ec);
  if (ec) return "cannot create " + dir + ": " + ec.message();
  return {};
}

// The width of the algorithm column: the catalogue's longest name.
std::size_t name_column_width() {
  std::size_t width = 0;
  for (const auto& a : algorithm_catalogue()) width = std::max(width, a.name.size());
  return width;
}

std::string terminal_line(const DemoOutcome& r) {
  static const std::size_t width = name_column_width();
  std::string line = fmt::format("  {:<{}} {}", r.algorithm, width, demo_verdict_words(r));
  if (!r.error.empty()) return line + ": " + r.error;
  if (r.failing_seed) {
    line += fmt::format(" {} (seed {}, {})", r.violated_check, *r.failing_seed, r.shrink_text);
    if (!r.real_summary.empty()) line += "; " + r.real_summary;
  } else {
    line += " (checks: " + checks_text(r.plan.checks) +
            (r.plan.expected_to_hold ? ")" : "; not caught yet: give it more --time-budget or --seeds)");
  }
  return line + fmt::format(" [{:.1f} s]", r.wall_seconds);
}

int demo_main(const DemoArgs& args) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  if (auto err = confirm_real_problem(args.confirm_real, args.etcd_bin); !err.empty()) {
    std::cerr << "lockstep demo: " << err << "\n";
    return kExitBadInput;
  }
  if (args.seeds > 0 && args.first_seed > std::numeric_limits<std::uint64_t>::max() - (args.seeds - 1)) {
    std::cerr << "lockstep demo: --seed " << args.first_seed << " with --seeds " << args.seeds
              << " runs past the last seed, 18446744073709551615; lower --seed or --seeds\n";
    return kExitBadInput;
  }
  const std::string out = args.out_dir.empty() ? free_default_dir() : args.out_dir;
  if (auto err = prepare_out_dir(out, args.force); !err.empty()) {
    std::cerr << "lockstep demo: " << err << "\n";
    return kExitBadInput;
  }
  const auto& catalogue = algorithm_catalogue();
  DemoSettings settings;
  settings.first_seed = args.first_seed;
  settings.seeds = args.seeds;
  settings.shrink_runs = args.shrink_runs;
  settings.jobs = args.jobs > 0 ? args.jobs : default_jobs();
  settings.overwrite = args.force;
  settings.confirm_real = args.confirm_real;
  settings.etcd_bin = args.etcd_bin;

  DemoIndex index;
  index.out_dir = out;
  index.settings =
      (args.seeds > 0 ? fmt::format("{} seed{} per algorithm from seed {}", args.seeds,
                                    args.seeds == 1 ? "" : "s", args.first_seed)
                      : fmt::format("a {:g} s budget from seed {}", args.time_budget, args.first_seed)) +
      fmt::format(", every fault class, {} clients, {} members, {} s of load per seed, {} jobs",
                  settings.clients, settings.members, to_ms(settings.duration) / 1000, settings.jobs);
  for (const auto& info : catalogue) {
    DemoOutcome pending;
    pending.algorithm = info.name;
    pending.summary = info.summary;
    pending.plan = demo_plan(info);
    index.rows.push_back(pending);
  }
  const fs::path index_file = fs::path(out) / "index.html";
  std::cout << "lockstep demo: " << catalogue.size() << " algorithms, " << index.settings
            << "; writing " << out << "/\n";

  bool io_error = false;
  for (std::size_t i = 0; i < catalogue.size(); ++i) {
    if (auto err = write_demo_index(index_file, index); !err.empty()) {
      std::cerr << "lockstep demo: " << err << "\n";
      return kExitBadInput;
    }
    if (args.seeds == 0) {  // an equal share of what is left: time a quick failure saves rolls on
      const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
      settings.budget_seconds = std::max((args.time_budget - elapsed) / static_cast<double>(catalogue.size() - i), 0.05);
    }
    index.rows[i] = demo_algorithm(catalogue[i], settings, fs::path(out) / catalogue[i].name);
    index.finished = i + 1;
    io_error = io_error || !index.rows[i].error.empty();
    std::cout << terminal_line(index.rows[i]) << std::endl;
  }
  index.wall_seconds = std::chrono::duration<double>(Clock::now() - started).count();
  if (auto err = write_demo_index(index_file, index); !err.empty()) {
    std::cerr << "lockstep demo: " << err << "\n";
    return kExitBadInput;
  }

  int broken = 0, caught = 0, correct = 0, held = 0, unexpected = 0;
  for (const auto& r : index.rows) {
    if (!r.error.empty()) continue;
    (r.plan.expected_to_hold ? correct : broken) += 1;
    if (r.unexpected()) ++unexpected;
    else if (r.failing_seed) ++caught;
    else if (r.plan.expected_to_hold) ++held;
  }
  std::cout << fmt::format("{} of {} broken algorithms caught, {} of {} correct ones held, in {:.1f} s\n",
                           caught, broken, held, correct, index.wall_seconds)
            << "index: " << index_file.string() << "\n"
            << "replay any row: lockstep replay " << out << "/<algorithm>/scenario.json\n";
  for (const auto& r : index.rows)
    if (r.unexpected())
      std::cerr << "lockstep demo: BUG: " << r.algorithm << " VIOLATED " << r.violated_check
                << ", which it is expected to hold (" << r.plan.claim << ").\n"
                << "  replay: " << demo_replay_command(out, r.algorithm) << "\n";
  if (unexpected > 0) return kExitViolated;
  return io_error ? kExitBadInput : kExitOk;
}

}  // namespace

void add_demo_command(CLI::App& app, CommandSet& commands) {
  auto a = std::make_shared<DemoArgs>();
  auto* cmd = app.add_subcommand(
      "demo",
      "Explore every algorithm of the catalogue under faults for a bounded time; write "
      "DIR/index.html linking each verdict and report");
  cmd->footer(
      "Each algorithm's seeds run (every fault class) until one fails; the failure is shrunk and "
      "written to DIR/<algorithm>/ with its report.html. Exit 0 when the demo ran (broken "
      "algorithms are expected to be caught), 1 when an algorithm expected to hold its checks "
      "(etcd-mutex-fenced, etcd-mutex-guarded) was violated, 2 for bad usage.\n"
      "--time-budget results depend on the machine's speed; --seeds N results are reproducible.");
  cmd->add_option("--out", a->out_dir,
                  "Directory to write (default: lockstep-demo, or the first free of "
                  "lockstep-demo-2, -3, ...; an existing non-empty DIR is refused without --force)")
      ->check(non_empty());
  cmd->add_flag("--force", a->force, "Write into an existing --out DIR, replacing the demo's files");
  auto* budget = cmd->add_option("--time-budget", a->time_budget,
                                 "Wall-clock seconds for the whole catalogue (shared out between "
                                 "the algorithms; time a quick failure saves goes to the next)")
                     ->check(finite_between(0.1, 86400))
                     ->capture_default_str();
  auto* seeds = cmd->add_option("--seeds", a->seeds,
                                "Instead of a time budget: this many seeds per algorithm "
                                "(reproducible)")
                    ->transform(unsigned_integer())
                    ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  seeds->excludes(budget);
  cmd->add_option("--seed", a->first_seed, "The first seed of every algorithm")
      ->transform(unsigned_integer())
      ->capture_default_str();
  cmd->add_option("--jobs", a->jobs, "Threads (default: all cores)")->check(CLI::Range(1, 1024));
  cmd->add_option("--shrink-runs", a->shrink_runs, "Runs the shrinker may use per failure")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  add_confirm_real_options(*cmd, a->confirm_real, a->etcd_bin, "each algorithm's shrunk failure");
  cmd->callback([&commands, a] { commands.action = [a] { return demo_main(*a); }; });
}

}  // namespace lockstep::cli
