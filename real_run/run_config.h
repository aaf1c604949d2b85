// RealRunConfig: a run of a lock algorithm against a real etcd: the same RunConfig the
// simulator runs (algorithm, workload, fault schedule, checks), plus where the cluster comes
// from. Times in the RunConfig are real times here.
#pragma once

#include <string>
#include <vector>

#include "lockstep/harness/run_config.h"
#include "lockstep/kv/time.h"
#include "lockstep/real_etcd/etcd_client_options.h"

namespace lockstep {

struct RealBackendOptions {
  // Empty: start a local cluster of run.etcd.members members (1 or 3) on 127.0.0.1.
  // Otherwise "host:port" endpoints of an existing cluster; no member faults are possible.
  std::vector<std::string> endpoints;
  bool allow_remote = false;          // endpoints off this machine (lockstep writes keys)
  std::string etcd_binary;            // local cluster: empty = "etcd" from PATH
  std::string work_dir;               // local cluster: parent of its temporary directory
  Duration call_deadline = seconds(2);  // each gRPC call's deadline (EtcdClientOptions)
  real::EtcdClientSecurity security;    // TLS and login of every client the run makes
  // Unique per run when empty: "lockstep-run/<pid>-<time>-<seed>/". Every key of the run
  // (locks, guarded data) lives under it.
  std::string key_prefix;
  Duration start_timeout = seconds(30);  // local cluster health at start
  // Non-empty: every client is this command (run by /bin/sh -c), an external lock client
  // speaking the client protocol (docs/external-clients.md), instead of the algorithm's C++
  // code; run.algorithm then names the algorithm it implements (what the checks expect).
  std::string client_cmd;
};

struct RealRunConfig {
  RunConfig run;
  RealBackendOptions backend;
  // The scenario's clients by role, for faults that follow roles rather than names (see
  // RealFaultTargets::client_roles); empty: faults hit the clients they name.
  std::vector<std::string> client_roles;
  std::vector<Duration> role_held_at;  // see RealFaultTargets::role_held_at
};

}  // namespace lockstep
