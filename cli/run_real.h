// `lockstep run --backend etcd`: one run against a real etcd (a local cluster lockstep starts
// and removes, or --endpoints of an existing one). See docs/real-etcd.md.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "lockstep/harness/run_request.h"
#ifdef LOCKSTEP_HAVE_REAL_ETCD
#include "lockstep/real_run/runner.h"
#endif

namespace lockstep::cli {

struct RealRunArgs {
  RunRequest request;                  // algorithm, seed, clients, members, duration, faults
  std::vector<std::string> endpoints;  // empty: start a local cluster
  std::string etcd_bin;
  bool allow_remote = false;
  std::string out_dir;
  bool force = false;
  std::string client_cmd;  // non-empty: external lock clients (docs/external-clients.md)
};

// Exit codes as `lockstep run`: 0 every check ok, 1 a check violated, 2 bad input, a bad
// external client, or the cluster could not be started/reached, 3 a check unknown; 130 when
// interrupted (Ctrl-C).
int run_real_backend(const RealRunArgs& args);

#ifdef LOCKSTEP_HAVE_REAL_ETCD
// The files of one real run in `dir`: history.jsonl, verdict.json (with the backend in place
// of a replay command) and report.html, and with external clients each one's stderr
// (client-N.stderr). Empty when none of them exists in `dir` / an error.
std::string real_files_taken(const std::filesystem::path& dir, int external_clients = 0);
std::string write_real_files(const std::filesystem::path& dir, const RealRunConfig& config,
                             const RealRunOutcome& outcome, bool overwrite);
#endif

// The options of a command that can run on a real etcd: --endpoints (an existing cluster; without
// it, a local one `local_cluster` describes), --etcd-bin and --allow-remote.
void add_real_cluster_options(CLI::App& cmd, std::string& endpoints, std::string& etcd_bin,
                              bool& allow_remote, const std::string& local_cluster);

// "a:1,b:2" -> {"a:1", "b:2"} (empty items dropped).
std::vector<std::string> split_endpoints(const std::string& text);

}  // namespace lockstep::cli
