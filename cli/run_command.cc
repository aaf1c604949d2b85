#include <fmt/core.h>

#include <cmath>
#include <iostream>

#include "lockstep/cli/algorithm_options.h"
#include "lockstep/cli/commands.h"
#include "lockstep/cli/run_real.h"
#include "lockstep/cli/run_real_security.h"
#include "lockstep/cli/run_report.h"
#include "lockstep/harness/output_file.h"
#include "lockstep/harness/run_request.h"
#include "lockstep/harness/run_files.h"
#include "lockstep/harness/sim_runner.h"

namespace lockstep::cli {

namespace {

struct RunArgs {
  std::string algorithm;
  std::uint64_t seed = 1;
  int clients = 3;
  double duration_seconds = 30;
  int members = 3;
  std::string faults = "none";
  bool fixed_length = false;
  std::string out_dir;
  bool force = false;
  // The real etcd backend (cli/run_real.cc).
  std::string backend = "sim";
  std::string endpoints;
  std::string etcd_bin;
  bool allow_remote = false;
  RealSecurityArgs security;  // --cacert, --cert, --key, --user
  std::string client_cmd;     // external lock clients (docs/external-clients.md)
  std::vector<std::string> options;  // --option NAME=INTEGER
};

// The etcd-only options given, as "--a, --b", or empty.
std::string etcd_only_options_given(const RunArgs& args) {
  std::string given;
  auto note = [&](bool present, const char* name) {
    if (present) given += (given.empty() ? "" : ", ") + std::string(name);
  };
  note(!args.endpoints.empty(), "--endpoints");
  note(!args.etcd_bin.empty(), "--etcd-bin");
  note(args.allow_remote, "--allow-remote");
  note(!args.security.cacert.empty(), "--cacert");
  note(!args.security.cert.empty(), "--cert");
  note(!args.security.key.empty(), "--key");
  note(!args.security.user.empty(), "--user");
  note(!args.client_cmd.empty(), "--client-cmd");
  return given;
}

int run(const RunArgs& args) {
  RunRequest request;
  request.algorithm = args.algorithm;
  request.seed = args.seed;
  request.clients = args.clients;
  request.members = args.members;
  request.duration = Duration(static_cast<std::int64_t>(std::llround(args.duration_seconds * 1e9)));
  request.faults = args.faults;
  request.extend_load_for_liveness = !args.fixed_length;
  if (auto err = parse_algorithm_options(args.options, request.algorithm_options); !err.empty()) {
    std::cerr << "lockstep run: " << err << "\n";
    return kExitBadInput;
  }
  if (args.backend == "etcd") {
    RealRunArgs real;
    real.request = request;
    real.endpoints = split_endpoints(args.endpoints);
    real.etcd_bin = args.etcd_bin;
    real.allow_remote = args.allow_remote;
    real.out_dir = args.out_dir;
    real.force = args.force;
    real.client_cmd = args.client_cmd;
    return run_real_backend(real, args.security);
  }
  if (const std::string given = etcd_only_options_given(args); !given.empty()) {
    std::cerr << "lockstep run: " << given << " need" << (given.find(',') == std::string::npos ? "s" : "")
              << " --backend etcd\n";
    return kExitBadInput;
  }
  RunConfig config;
  if (auto err = expand_run_request(request, config); !err.empty()) {
    std::cerr << "lockstep run: " << err << "\n";
    return kExitBadInput;
  }
  if (!args.out_dir.empty())
    if (auto err = output_directory_problem(args.out_dir); !err.empty()) {
      std::cerr << "lockstep run: --out " << err << "\n";
      return kExitBadInput;
    }
  if (!args.out_dir.empty() && !args.force)
    if (auto err = run_directory_taken(args.out_dir); !err.empty()) {
      std::cerr << "lockstep run: " << err << "\n";
      return kExitBadInput;
    }
  RunResult result = run_simulation(config);
  std::cout << verdict_text(config, result);
  if (!args.out_dir.empty()) {
    std::string err = write_run_directory(args.out_dir, config, result, args.force);
    if (err.empty()) err = write_run_report(args.out_dir, args.force);
    if (!err.empty()) {
      std::cerr << "lockstep run: " << err << "\n";
      return kExitBadInput;
    }
    std::cout << "  wrote " << args.out_dir
              << "/{history.jsonl,verdict.json,scenario.json,report.html}\n";
  }
  return result.all_ok() ? kExitOk : kExitViolated;
}

}  // namespace

void add_run_command(CLI::App& app, CommandSet& commands) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Run one lock algorithm on the simulated etcd cluster");
  cmd->add_option("--algorithm", args->algorithm, "Algorithm name (see `lockstep list`)")
      ->required();
  cmd->add_option("--seed", args->seed, "Seed deciding every delay and fault")
      ->transform(unsigned_integer())
      ->capture_default_str();
  cmd->add_option("--clients", args->clients, "Number of clients")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--duration", args->duration_seconds,
                  "Simulated seconds during which clients start lock cycles")
      ->check(finite_between(0.001, 86400))
      ->check(whole_milliseconds())
      ->capture_default_str();
  cmd->add_option("--members", args->members, "etcd members (1, 3 or 5)")
      ->check(CLI::IsMember({1, 3, 5}))
      ->capture_default_str();
  cmd->add_option("--faults", args->faults,
                  "Fault classes to draw a random schedule from: a comma list, all or none")
      ->check(non_empty())
      ->capture_default_str();
  cmd->add_flag("--fixed-length", args->fixed_length,
                "Stop the load after --duration even when faults heal late (by default it goes "
                "on until liveness can be judged after the last fault)");
  cmd->add_option("--out", args->out_dir,
                  "Directory for history.jsonl, verdict.json, scenario.json and report.html")
      ->check(non_empty());
  cmd->add_flag("--force", args->force, "Overwrite files already in --out");
  cmd->add_option("--backend", args->backend,
                  "sim: the simulated cluster; etcd: a real etcd (see docs/real-etcd.md)")
      ->check(CLI::IsMember({"sim", "etcd"}))
      ->capture_default_str();
  add_real_cluster_options(*cmd, args->endpoints, args->etcd_bin, args->allow_remote,
                           "a local cluster of --members members");
  cmd->add_option("--cacert", args->security.cacert,
                  "With --endpoints: verify the members' TLS certificates with this CA (PEM); "
                  "turns TLS on");
  cmd->add_option("--cert", args->security.cert,
                  "With --endpoints: TLS client certificate (PEM); needs --key");
  cmd->add_option("--key", args->security.key,
                  "With --endpoints: the client certificate's private key (PEM)");
  cmd->add_option("--user", args->security.user,
                  "With --endpoints: log in as NAME[:PASSWORD]; without :PASSWORD the password "
                  "comes from $LOCKSTEP_ETCD_PASSWORD");
  cmd->add_option("--option", args->options,
                  "An algorithm option, NAME=INTEGER (repeatable; see `lockstep list`)");
  cmd->add_option("--client-cmd", args->client_cmd,
                  "With --backend etcd: run every client as this command (by /bin/sh -c), your "
                  "own lock code speaking lockstep's client protocol; --algorithm names the "
                  "algorithm it implements (see docs/external-clients.md)")
      ->check(non_empty());
  cmd->callback([&commands, args] { commands.action = [args] { return run(*args); }; });
}

}  // namespace lockstep::cli
