// lockstep replay FILE [--out DIR]: run a scenario file and check it gives what it expects.
//
// Exit codes: when the scenario expects a verdict or a history hash, 0 if the replay gives
// exactly that and 1 if not (a loud message says what differs); with no expectation, the
// run's own verdict (0 ok, 1 violated, 3 unknown). 2 for a bad file or option.
// --runs N replays N times and fails (1) unless every run gives the same history hash.
//
// --backend etcd runs the scenario's workload and faults on a real etcd, --runs times (see
// cli/real_replay.h): exit 1 when a real run violated a check, 0 when every check held in
// every run, 3 when one could not decide, 2 for bad input or a cluster that could not start.
#include <iostream>

#include "lockstep/cli/commands.h"
#include "lockstep/cli/real_replay.h"
#include "lockstep/harness/output_file.h"
#include "lockstep/cli/run_real.h"
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
  std::string backend = "sim";
  std::string endpoints;
  std::string etcd_bin;
  bool allow_remote = false;
  int members = 0;
  bool faults_by_name = false;
  std::string client_cmd;
};

// The scenario on a real etcd: the simulated replay's files in --out (its verdict carrying the
// confirmation), each real run's in --out/real-K.
int replay_on_real(const ReplayArgs& args, const Scenario& scenario) {
  if (!args.out_dir.empty())
    if (auto err = output_directory_problem(args.out_dir); !err.empty()) {
      std::cerr << "lockstep replay: --out " << err << "\n";
      return kExitBadInput;
    }
  // A missing etcd is bad input, said before anything runs (it was exit 3 after the runs).
  if (args.endpoints.empty())
    if (auto err = real_etcd_binary_problem(args.etcd_bin); !err.empty()) {
      std::cerr << "lockstep replay: " << err << "\n";
      return kExitBadInput;
    }
  if (!args.out_dir.empty() && !args.force) {
    std::string taken = run_directory_taken(args.out_dir);
    for (int i = 1; taken.empty() && i <= args.runs; ++i)
      taken = real_files_taken(std::filesystem::path(args.out_dir) / ("real-" + std::to_string(i)),
                               args.client_cmd.empty() && scenario.client_cmd.empty()
                                   ? 0
                                   : scenario.config.workload.clients);
    if (!taken.empty()) {
      std::cerr << "lockstep replay: " << taken << "\n";
      return kExitBadInput;
    }
  }
  RealConfirmationArgs real;
  real.runs = args.runs;
  real.endpoints = split_endpoints(args.endpoints);
  real.etcd_bin = args.etcd_bin;
  real.allow_remote = args.allow_remote;
  real.members = args.members;
  real.faults_by_name = args.faults_by_name;
  real.client_cmd = args.client_cmd.empty() ? scenario.client_cmd : args.client_cmd;
  if (args.client_cmd.empty() && !scenario.client_cmd.empty())
    std::cout << "clients: the scenario's client_cmd, run by /bin/sh -c: " << scenario.client_cmd << "\n";
  std::cout << "lockstep replay " << args.file << " on a real etcd, " << args.runs << " run"
            << (args.runs == 1 ? "" : "s") << "\n";
  const ReplayOutcome simulated = replay_scenario(scenario);
  const RealConfirmation confirmation =
      confirm_on_real(scenario, simulated.result, real, args.out_dir, args.force, std::cout);
  if (!confirmation.error.empty()) {
    std::cerr << "lockstep replay: " << confirmation.error << "\n";
    return kExitBadInput;
  }
  std::cout << "  simulated: "
            << (confirmation.simulated_violations.empty()
                    ? std::string("every check ok")
                    : [&] {
                        std::string v;
                        for (const auto& c : confirmation.simulated_violations)
                          v += (v.empty() ? "" : ",") + c;
                        return v + " violated";
                      }())
            << "\n  " << confirmation.summary() << "\n";
  if (!args.out_dir.empty()) {
    std::string err = write_run_directory(args.out_dir, scenario, simulated.result, args.force);
    if (err.empty()) err = add_real_confirmation(args.out_dir, confirmation.to_json());
    if (err.empty()) err = write_run_report(args.out_dir, args.force);
    if (!err.empty()) {
      std::cerr << "lockstep replay: " << err << "\n";
      return kExitBadInput;
    }
    std::cout << "  wrote " << args.out_dir
              << "/{history.jsonl,verdict.json,scenario.json,report.html} and real-1.."
              << confirmation.runs.size() << "/\n";
  }
  if (confirmation.interrupted) return 130;
  bool violated = false, unknown = false, bad_client = false;
  for (const auto& r : confirmation.runs) {
    violated = violated || !r.violated.empty();
    unknown = unknown || r.unknown || !r.error.empty();
    bad_client = bad_client || !r.bad_client.empty();
  }
  if (bad_client) return kExitBadInput;
  return violated ? kExitViolated : unknown ? kExitUnknown : kExitOk;
}

int replay(const ReplayArgs& args) {
  Scenario scenario;
  if (auto err = load_scenario_file(args.file, scenario); !err.empty()) {
    std::cerr << "lockstep replay: " << err << "\n";
    return kExitBadInput;
  }
  if (args.backend == "etcd") return replay_on_real(args, scenario);
  if (!args.endpoints.empty() || !args.etcd_bin.empty() || args.allow_remote || args.members > 0 ||
      args.faults_by_name || !args.client_cmd.empty()) {
    std::cerr << "lockstep replay: --endpoints, --etcd-bin, --allow-remote, --members, "
                 "--faults-by-name and --client-cmd need --backend etcd\n";
    return kExitBadInput;
  }
  if (!args.out_dir.empty())
    if (auto err = output_directory_problem(args.out_dir); !err.empty()) {
      std::cerr << "lockstep replay: --out " << err << "\n";
      return kExitBadInput;
    }
  if (!args.out_dir.empty() && !args.force)
    if (auto err = run_directory_taken(args.out_dir); !err.empty()) {
      std::cerr << "lockstep replay: " << err << "\n";
      return kExitBadInput;
    }
  if (!scenario.client_cmd.empty())
    std::cout << "note: the scenario's client_cmd runs only on a real etcd (--backend etcd); the "
                 "simulator runs " << scenario.config.algorithm << "\n";
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
                  "Replay this many times; every run must give the same history hash (with "
                  "--backend etcd: this many real runs)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--backend", args->backend,
                  "sim: the simulator; etcd: the scenario's workload and faults on a real etcd "
                  "(see docs/real-etcd.md)")
      ->check(CLI::IsMember({"sim", "etcd"}))
      ->capture_default_str();
  add_real_cluster_options(*cmd, args->endpoints, args->etcd_bin, args->allow_remote,
                           "a local cluster of the scenario's size");
  cmd->add_option("--members", args->members,
                  "With --backend etcd: a local cluster of this many members (1 or 3) instead of "
                  "the scenario's size; faults naming members beyond it are listed and skipped")
      ->check(CLI::IsMember({1, 3}));
  cmd->add_flag("--faults-by-name", args->faults_by_name,
                "With --backend etcd: a fault on a client hits the client the scenario names; by "
                "default it hits the one playing its role (the k-th to first hold the lock, as "
                "in the simulated run)");
  cmd->add_option("--client-cmd", args->client_cmd,
                  "With --backend etcd: run every client as this command, your own lock code "
                  "speaking lockstep's client protocol, in place of the scenario's algorithm (which "
                  "it should implement); faults it cannot get are listed and skipped (see "
                  "docs/external-clients.md)")
      ->check(non_empty());
  cmd->callback([&commands, args] { commands.action = [args] { return replay(*args); }; });
}

}  // namespace lockstep::cli
