// lockstep shrink FILE --out FILE: shrink a failing scenario to a smaller one that fails the
// same way (the same check violated). See harness/shrink.h for what is tried.
//
// Exit codes: 0 the shrunk scenario was written, 2 bad input (including a scenario that
// violates nothing: there is nothing to shrink).
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "lockstep/cli/commands.h"
#include "lockstep/harness/output_file.h"
#include "lockstep/harness/scenario.h"
#include "lockstep/harness/shrink.h"

namespace lockstep::cli {

namespace {

struct ShrinkArgs {
  std::string file;
  std::string out_file;
  int jobs = 0;
  double budget_seconds = 60;
  int max_runs = 400;
  bool force = false;
};

int shrink_main(const ShrinkArgs& args) {
  Scenario input;
  if (auto err = load_scenario_file(args.file, input); !err.empty()) {
    std::cerr << "lockstep shrink: " << err << "\n";
    return kExitBadInput;
  }
  if (auto err = output_file_problem(args.out_file); !err.empty()) {
    std::cerr << "lockstep shrink: --out " << err << "\n";
    return kExitBadInput;
  }
  std::string taken_error;
  const bool taken = path_taken(args.out_file, taken_error);  // a dangling link too
  if (!taken_error.empty()) {
    std::cerr << "lockstep shrink: " << taken_error << "\n";
    return kExitBadInput;
  }
  if (!args.force && taken) {
    std::cerr << "lockstep shrink: " << args.out_file
              << " already exists; choose another --out or pass --force\n";
    return kExitBadInput;
  }
  ShrinkOptions options;
  options.jobs = args.jobs;
  options.time_budget_seconds = args.budget_seconds;
  options.max_runs = args.max_runs;
  if (isatty(STDOUT_FILENO) == 1)
    options.on_step = [](const std::string& step) { std::cout << "  " << step << "\n"; };
  const ShrinkResult r = shrink_failure(input.config, options);
  if (!r.error.empty()) {
    std::cerr << "lockstep shrink: " << args.file << ": " << r.error << "\n";
    return kExitBadInput;
  }
  Scenario out = shrunk_scenario(input.config, r, "lockstep shrink " + args.file);
  if (!input.description.empty()) out.description = input.description + " " + out.description;
  if (auto err = save_scenario_file(args.out_file, out, args.force); !err.empty()) {
    std::cerr << "lockstep shrink: " << err << "\n";
    return kExitBadInput;
  }
  std::cout << "shrunk " << args.file << " in " << r.runs << " runs"
            << (r.budget_exhausted ? " (budget reached)" : "") << ": " << r.violated_check
            << " violated with " << r.config.faults.size() << " faults, "
            << r.config.workload.clients << " clients, " << to_ms(r.config.workload.duration)
            << " ms of load\n  replay: lockstep replay " << args.out_file << "\n";
  return kExitOk;
}

}  // namespace

void add_shrink_command(CLI::App& app, CommandSet& commands) {
  auto a = std::make_shared<ShrinkArgs>();
  auto* cmd = app.add_subcommand("shrink", "Shrink a failing scenario to a smaller one that fails the same way");
  cmd->add_option("file", a->file, "The failing scenario file")->required();
  cmd->add_option("--out", a->out_file, "Where to write the shrunk scenario")
      ->required()
      ->check(non_empty());
  cmd->add_option("--jobs", a->jobs, "Threads (default: all cores)")->check(CLI::Range(1, 1024));
  cmd->add_option("--budget", a->budget_seconds,
                  "Wall-clock seconds the shrinker may use (0: no limit; the result then "
                  "depends only on the file and --max-runs)")
      ->check(finite_between(0, 1e7))
      ->capture_default_str();
  cmd->add_option("--max-runs", a->max_runs, "Runs the shrinker may use")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_flag("--force", a->force, "Overwrite --out if it exists");
  cmd->callback([&commands, a] { commands.action = [a] { return shrink_main(*a); }; });
}

}  // namespace lockstep::cli
