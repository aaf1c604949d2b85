#include "lockstep/cli/run_real.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "lockstep/cli/commands.h"
#include "lockstep/harness/output_file.h"
#include "lockstep/cli/run_real_security.h"
#ifdef LOCKSTEP_HAVE_REAL_ETCD
#include "lockstep/real_run/interrupt.h"
#include "lockstep/real_run/run_request.h"
#include "lockstep/real_run/runner.h"
#include "lockstep/harness/run_files.h"
#include "lockstep/reports/report_files.h"
#endif

namespace lockstep::cli {

std::vector<std::string> split_endpoints(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

void add_real_cluster_options(CLI::App& cmd, std::string& endpoints, std::string& etcd_bin,
                              bool& allow_remote, const std::string& local_cluster) {
  cmd.add_option("--endpoints", endpoints,
                 "With --backend etcd: host:port,... of an existing cluster (default: start " +
                     local_cluster + ")")
      ->check(non_empty());
  cmd.add_option("--etcd-bin", etcd_bin,
                 "With --backend etcd: the etcd binary for the local cluster (default: etcd "
                 "from PATH)")
      ->check(non_empty());
  cmd.add_flag("--allow-remote", allow_remote,
               "With --endpoints: allow endpoints that are not on this machine");
}

int run_real_backend(const RealRunArgs& args) { return run_real_backend(args, RealSecurityArgs{}); }

#ifndef LOCKSTEP_HAVE_REAL_ETCD
int run_real_backend(const RealRunArgs&, const RealSecurityArgs&) {
  std::cerr << "lockstep run: this lockstep was built without the real etcd backend "
               "(configure with -DLOCKSTEP_BUILD_REAL_ETCD=ON)\n";
  return kExitBadInput;
}
#else
namespace {

constexpr int kExitInterrupted = 130;  // the shell's convention for SIGINT

}  // namespace

std::string real_files_taken(const std::filesystem::path& dir, int external_clients) {
  static constexpr const char* kRealRunFiles[] = {"history.jsonl", "verdict.json", "report.html"};
  if (auto err = files_taken(dir, kRealRunFiles); !err.empty()) return err;
  for (int i = 0; i < external_clients; ++i) {
    const auto path = dir / ("client-" + std::to_string(i) + ".stderr");
    std::string error;
    const bool taken = path_taken(path, error);  // a dangling link too
    if (!error.empty()) return error;
    if (taken) return path.string() + " exists (give --force to overwrite it)";
  }
  return {};
}

namespace {

// Each external client's stderr, as client-N.stderr.
std::string write_client_stderr(const std::filesystem::path& dir, const RealRunOutcome& outcome) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot create output directory " + dir.string() + ": " + ec.message();
  for (const auto& [client, text] : outcome.client_stderr)
    if (auto err = write_file_replacing(dir / (client + ".stderr"), text); !err.empty()) return err;
  return {};
}

}  // namespace

std::string write_real_files(const std::filesystem::path& dir, const RealRunConfig& config,
                             const RealRunOutcome& outcome, bool overwrite) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot create output directory " + dir.string() + ": " + ec.message();
  if (!overwrite)
    if (auto err = real_files_taken(dir); !err.empty()) return err;
  auto write = [&](const char* name, const std::string& text) {
    return write_file_replacing(dir / name, text);
  };
  std::ostringstream history;
  write_history_jsonl(history, outcome.result.history);
  if (auto err = write("history.jsonl", history.str()); !err.empty()) return err;
  // A real run is not replayable; the verdict says so instead of naming a replay command.
  Scenario ran;
  ran.config = config.run;
  nlohmann::json verdict = verdict_to_json(
      ran, outcome.result,
      "none: a real etcd run is not deterministic (check the history again with `lockstep check`)");
  verdict["backend"] = {{"name", "etcd"},
                        {"cluster", config.backend.endpoints.empty() ? "local" : "external"},
                        {"key_prefix", escape_bytes(outcome.key_prefix)},
                        {"interrupted", outcome.interrupted}};
  if (!config.backend.client_cmd.empty()) {
    verdict["backend"]["client_cmd"] = config.backend.client_cmd;
    if (!outcome.bad_client.empty()) verdict["backend"]["bad_client"] = outcome.bad_client;
  }
  if (auto err = write("verdict.json", verdict.dump(2) + "\n"); !err.empty()) return err;
  if (auto err = write_client_stderr(dir, outcome); !err.empty()) return err;
  // The report as a simulated run's, with the backend where a scenario would stand.
  return reports::write_report(reports::RunFiles{outcome.result.history, verdict, nullptr}, dir / "report.html");
}

int run_real_backend(const RealRunArgs& args, const RealSecurityArgs& security_args) {
  if (!args.endpoints.empty() && !args.etcd_bin.empty()) {
    std::cerr << "lockstep run: --etcd-bin names the binary of a local cluster; with --endpoints "
                 "no cluster is started (give one of them)\n";
    return kExitBadInput;
  }
  // Before the cluster starts: a refusal after the run would lose it.
  if (!args.out_dir.empty())
    if (auto err = output_directory_problem(args.out_dir); !err.empty()) {
      std::cerr << "lockstep run: --out " << err << "\n";
      return kExitBadInput;
    }
  if (!args.out_dir.empty() && !args.force)
    if (auto err = real_files_taken(args.out_dir, args.client_cmd.empty() ? 0 : args.request.clients);
        !err.empty()) {
      std::cerr << "lockstep run: " << err << "\n";
      return kExitBadInput;
    }
  RealBackendOptions backend;
  backend.endpoints = args.endpoints;
  backend.allow_remote = args.allow_remote;
  backend.etcd_binary = args.etcd_bin;
  backend.client_cmd = args.client_cmd;
  RealRunConfig config;
  if (auto err = expand_real_run_request(args.request, backend, config); !err.empty()) {
    std::cerr << "lockstep run: " << err << "\n";
    return kExitBadInput;
  }
  const char* password = std::getenv(kEtcdPasswordEnv);
  real::EtcdClientSecurity security;
  if (auto err = expand_real_security(security_args, backend.endpoints,
                                      password ? std::optional<std::string>(password) : std::nullopt,
                                      security);
      !err.empty()) {
    std::cerr << "lockstep run: " << err << "\n";
    return kExitBadInput;
  }
  // Every client the run makes (workload, truth watcher, compaction, clean-up) uses them.
  config.backend.security = security;
  RealRunOutcome outcome;
  {
    // Ctrl-C stops the run and the cluster; a second one kills at once.
    InterruptGuard guard;
    outcome = run_real(config, &InterruptGuard::flag());
  }
  if (!outcome.error.empty()) {
    std::cerr << "lockstep run: " << outcome.error << "\n";
    // A client that could not even answer hello: what it said on stderr is the clue.
    if (!args.out_dir.empty() && !outcome.client_stderr.empty()) {
      if (auto err = write_client_stderr(args.out_dir, outcome); err.empty()) {
        // The files written, by name (this once said "client-N.stderr" for client-0.stderr).
        std::string files;
        for (const auto& [client, text] : outcome.client_stderr)
          files += (files.empty() ? "" : ", ") +
                   (std::filesystem::path(args.out_dir) / (client + ".stderr")).string();
        std::cerr << "  the clients' stderr: " << files << "\n";
      } else {
        std::cerr << "  " << err << "\n";
      }
    }
    return outcome.interrupted ? kExitInterrupted : kExitBadInput;
  }
  const RunResult& result = outcome.result;
  std::cout << config.run.algorithm << " on etcd ("
            << (backend.endpoints.empty() ? "local " + std::to_string(config.run.etcd.members) +
                                                "-member cluster"
                                          : "existing cluster")
            << (security.tls.enabled ? ", TLS" : "")
            << (security.username.empty() ? "" : ", user " + security.username)
            << ", seed " << config.run.seed << "): " << (outcome.interrupted ? "INTERRUPTED, " : "")
            << result.history.events.size() << " events, " << result.stats.simulated_seconds
            << " real seconds\n";
  bool violated = false, unknown = false;
  for (const auto& c : result.checks) {
    std::cout << "  " << c.name << ": " << check_status_name(c.status) << " - " << c.summary << "\n";
    violated = violated || c.status == CheckStatus::violated;
    unknown = unknown || c.status == CheckStatus::unknown;
  }
  if (!args.out_dir.empty()) {
    if (auto err = write_real_files(args.out_dir, config, outcome, args.force); !err.empty()) {
      std::cerr << "lockstep run: " << err << "\n";
      return kExitBadInput;
    }
    std::cout << "  wrote " << args.out_dir << "/{history.jsonl,verdict.json,report.html}\n";
  }
  if (outcome.interrupted) return kExitInterrupted;
  if (!outcome.bad_client.empty()) {
    // The protocol broke: no check's verdict stands for the lock.
    std::cerr << "lockstep run: bad client: " << outcome.bad_client << "\n";
    return kExitBadInput;
  }
  return violated ? kExitViolated : unknown ? kExitUnknown : kExitOk;
}
#endif  // LOCKSTEP_HAVE_REAL_ETCD

}  // namespace lockstep::cli
