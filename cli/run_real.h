// `lockstep run --backend etcd`: one run against a real etcd (a local cluster lockstep starts
// and removes, or --endpoints of an existing one). See docs/real-etcd.md.
#pragma once

#include <string>
#include <vector>

#include "lockstep/harness/run_request.h"

namespace lockstep::cli {

struct RealRunArgs {
  RunRequest request;                  // algorithm, seed, clients, members, duration, faults
  std::vector<std::string> endpoints;  // empty: start a local cluster
  std::string etcd_bin;
  bool allow_remote = false;
  std::string out_dir;
  bool force = false;
};

// Exit codes as `lockstep run`: 0 every check ok, 1 a check violated, 2 bad input or the
// cluster could not be started/reached, 3 a check unknown; 130 when interrupted (Ctrl-C).
int run_real_backend(const RealRunArgs& args);

// "a:1,b:2" -> {"a:1", "b:2"} (empty items dropped).
std::vector<std::string> split_endpoints(const std::string& text);

}  // namespace lockstep::cli
