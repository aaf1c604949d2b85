// RealRunner: one run of a lock algorithm against a real etcd, from a RealRunConfig to a
// recorded history and the checks' results (the same checks as the simulator's runs).
//
// Contract:
//   - Starts (or connects to) the cluster, runs `clients` client processes (each its own
//     thread, see RealClient) with the workload of the config under a key prefix unique to
//     the run, applies the fault schedule at its real times (relative to the clients'
//     start), records the history on one monotonic clock, then stops the clients, lets them
//     drain, and judges the history with run_checks().
//   - Load lasts workload.duration, and when there are faults (unless
//     extend_load_for_liveness is false) until liveness_bound after the last one healed (as in
//     the simulator).
//   - Whatever happens (an error, an exception, an interrupt), every fault is healed and
//     every process and directory the run started is stopped and removed before it returns.
//   - Not deterministic: the same config gives a different history each time; only the
//     verdicts are comparable.
#pragma once

#include <atomic>
#include <map>
#include <string>

#include "lockstep/real_run/run_config.h"
#include "lockstep/harness/sim_runner.h"

namespace lockstep {

struct RealRunOutcome {
  RunResult result;     // valid when error is empty
  std::string error;    // the run could not be made (no etcd, bad endpoint, ...)
  // An external client broke the protocol (naming the client and its line). The run stopped
  // there; result holds the history so far (the client's open operation ended as `info`) and
  // its checks.
  std::string bad_client;
  // External clients: what each wrote to stderr, by client name.
  std::map<std::string, std::string> client_stderr;
  bool interrupted = false;  // stopped early by `interrupt`; the result covers what ran
  std::string key_prefix;
};

// Checks what the real backend needs beyond validate_run_config (members, fault classes,
// endpoints); returns a message or empty.
std::string validate_real_run_config(const RealRunConfig& config);

// The etcd version an existing cluster (backend.endpoints) reports, or an error naming the
// endpoint that did not answer. Blocking, a few seconds at most.
Result<std::string> existing_cluster_version(const RealBackendOptions& backend);

// `interrupt` (may be null) is polled: once true the run stops early and cleans up.
RealRunOutcome run_real(const RealRunConfig& config, const std::atomic<bool>* interrupt);

}  // namespace lockstep
