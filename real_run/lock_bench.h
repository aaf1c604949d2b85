// Lock cycles on a real etcd: how many lock+unlock cycles per second one lock achieves on a
// local cluster, and the latency of each, uncontended and with clients contending. The same
// real runs as `run --backend etcd` (a fresh local cluster each, no faults), with a workload
// that neither holds nor thinks: each client acquires and releases as fast as it can. An
// external client (client_cmd) is measured the same way, so etcd's Go Mutex and lockstep's
// port of it compare side by side (`lockstep bench --backend etcd`).
#pragma once

#include <cstdint>
#include <string>

#include "lockstep/algorithms/registry.h"
#include "lockstep/kv/time.h"

namespace lockstep {

struct LockBenchCase {
  std::string algorithm;   // the catalogue's, or what the external client implements
  std::string client_cmd;  // empty: the algorithm's own C++ code
  int clients = 1;
  Duration length = seconds(5);
  int members = 1;
  std::string etcd_binary;  // empty: etcd from PATH
  AlgorithmOptions options;
};

struct LockBenchResult {
  std::string error;  // the run could not be made, or a client broke the protocol
  std::int64_t cycles = 0;          // acquire then release, both ok
  double cycles_per_second = 0;     // over the run's load
  double p50_ms = 0, p99_ms = 0;    // of a cycle: acquire sent to release answered
  bool mutex_ok = false;            // the mutual exclusion check passed
};

LockBenchResult run_lock_bench(const LockBenchCase& c);

}  // namespace lockstep
