// lockstep replay FILE [--out DIR]: run a scenario file and check it gives what it expects.
//
// Exit codes: when the scenario expects a verdict or a history hash, 0 if the replay gives
// exactly that and 1 if not (a loud message says what differs); with no expectation, the
// run's own verdict (0 ok, 1 violated, 3 unknown). 2 for a bad file or option.
// --runs N replays N times and fails (1) unless every run gives the same history hash.
#include <iostream>

#include "lockstep/cli/commands.h"
#include "lockstep/cli/run_report.h"
#include "lockstep/harness/replay.h"
#include "lockstep/harness/run_files.h"

namespace lockstep::cli {

namespace {

struct ReplayArgs {
  std::string file;
  std::string out_dir;
  bool force = false;
  int runs = 1;
};

int replay(const ReplayArgs& args) {
  Scenario scenario;
  if (auto err = load_scenario_file(args.file, scenario); !err.empty()) {
    std::cerr << "lockstep replay: " << err << "\n";
    return kExitBadInput;
  }
  if (!args.out_dir.empty() && !args.force)
    if (auto err = run_directory_taken(args.out_dir); !err.empty()) {
      std::cerr << "lockstep replay: " << err << "\n";
      return kExitBadInput;
    }
  ReplayOutcome outcome = replay_scenario(scenario);
  for (int i = 1; i < args.runs; ++i) {
    const ReplayOutcome again = replay_scenario(scenario);
    if (again.history_hash != outcome.history_hash) {
      std::cerr << "lockstep replay: " << args.file << ": NOT DETERMINISTIC: run 1 gave history "
                << outcome.history_hash << ", run " << i + 1 << " gave " << again.history_hash
                << "\n";
      return kExitViolated;
    }
  }
  std::cout << verdict_text(scenario.config, outcome.result, "lockstep replay " + args.file);
  if (!scenario.description.empty()) std::cout << "  scenario: " << scenario.description << "\n";
  if (!args.out_dir.empty()) {
    std::string err = write_run_directory(args.out_dir, scenario, outcome.result, args.force);
    if (err.empty()) err = write_run_report(args.out_dir, args.force);
    if (!err.empty()) {
      std::cerr << "lockstep replay: " << err << "\n";
      return kExitBadInput;
    }
    std::cout << "  wrote " << args.out_dir
              << "/{history.jsonl,verdict.json,scenario.json,report.html}\n";
  }
  if (!outcome.has_expectation) {
    if (outcome.verdict == "ok") return kExitOk;
    return outcome.verdict == "violated" ? kExitViolated : kExitUnknown;
  }
  if (!outcome.as_expected()) {
    std::cerr << "lockstep replay: " << args.file << ": NOT AS EXPECTED\n";
    for (const auto& m : outcome.mismatches) std::cerr << "  " << m << "\n";
    return kExitViolated;
  }
  std::cout << "  as expected: verdict " << outcome.verdict
            << (scenario.expected_history_hash.empty() ? "" : ", history hash " + outcome.history_hash)
            << "\n";
  return kExitOk;
}

}  // namespace

void add_replay_command(CLI::App& app, CommandSet& commands) {
  auto args = std::make_shared<ReplayArgs>();
  auto* cmd = app.add_subcommand(
      "replay", "Replay a scenario file and check it gives the verdict (and history) it expects");
  cmd->add_option("file", args->file, "Scenario file (lockstep-scenario JSON)")->required();
  cmd->add_option("--out", args->out_dir,
                  "Directory for history.jsonl, verdict.json, scenario.json and report.html")
      ->check(non_empty());
  cmd->add_flag("--force", args->force, "Overwrite files already in --out");
  cmd->add_option("--runs", args->runs,
                  "Replay this many times; every run must give the same history hash")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->callback([&commands, args] { commands.action = [args] { return replay(*args); }; });
}

}  // namespace lockstep::cli
