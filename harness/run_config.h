// RunConfig: everything one simulated run needs, fully expanded (what scenario.json holds).
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "lockstep/algorithms/registry.h"
#include "lockstep/kv/time.h"
#include "lockstep/sim/etcd_config.h"
#include "lockstep/sim/faults.h"
#include "lockstep/sim/network.h"

namespace lockstep {

// The lease TTL an algorithm's options give (lease_ttl_seconds), or 0 when it holds no lease.
inline Duration lease_ttl_of(const AlgorithmOptions& options) {
  const auto ttl = options.find("lease_ttl_seconds");
  return ttl != options.end() && ttl->second > 0 ? seconds(ttl->second) : Duration(0);
}

struct WorkloadConfig {
  int clients = 3;
  Duration duration = seconds(30);           // how long clients start new lock cycles
  std::int64_t max_cycles_per_client = 0;    // 0: no limit
  Duration critical_section = milliseconds(200);
  Duration think_time = milliseconds(100);   // between a release and the next acquire
  Duration acquire_timeout = seconds(10);    // the acquire deadline, on the client's clock
  Duration try_retry_interval = milliseconds(100);  // polling interval of try-only locks
  Duration drain_timeout = seconds(30);      // after `duration`, time to finish cycles
  Duration request_timeout = seconds(5);     // each KV call's deadline
  // Locks offering shared mode: the percentage of acquires made in shared mode.
  std::int64_t shared_percent = 50;
  // Reentrant locks: how many times a holder re-acquires inside its critical section.
  std::int64_t reentrant_depth = 1;
  // The critical section's read-modify-write of the protected resource (an increment of a
  // counter); false: the critical section only sleeps.
  bool use_resource = true;
};

struct RunConfig {
  std::uint64_t seed = 1;
  std::string algorithm = "etcd-mutex";
  AlgorithmOptions algorithm_options;  // resolved
  std::string lock_name = "/lockstep/lock";
  sim::EtcdConfig etcd;
  sim::LatencyConfig network;
  WorkloadConfig workload;
  // The explicit fault schedule (times relative to the clients' start), and the classes a
  // random schedule was drawn from (for the record; empty when written by hand).
  std::vector<sim::FaultSpec> faults;
  std::set<std::string> fault_classes;
  // The checks to run ("mutex", "resource", "liveness"); empty: all of them.
  std::vector<std::string> checks;
  // After faults heal, every waiter must acquire or give up within this bound.
  Duration liveness_bound = seconds(60);
  // True: when there are faults, load goes on past workload.duration until the liveness bound
  // (and two acquire timeouts) has passed after the last fault healed, so that liveness can be
  // judged. False: load stops at workload.duration whatever the faults (a run of fixed length,
  // such as the bench's standard seed); the liveness check then judges only what the shorter
  // history shows.
  bool extend_load_for_liveness = true;
  // The verdict a scenario expects ("ok" or "violated"); empty: none expected.
  std::string expected_verdict;
  // Record the clients' KV calls in the history (docs/history-format.md, "The clients'
  // calls"), and the members' detail that only explanations read (campaigns, refused votes,
  // views of the leader, cancelled requests, every lease renewal). Not part of a scenario: it
  // changes what is recorded, never what happens. explore's seed search and the shrinker's
  // candidates leave them out (they cost about a quarter of a recorded run); a shrunk
  // failure's final run records them.
  bool record_kv_calls = true;
};

// How long the load lasts, from the clients' start: workload.duration, and when there are
// faults (unless extend_load_for_liveness is false) until the liveness bound and then `room`
// have passed after the last one healed. The simulator and the real runner both end load here.
inline Duration load_length(const RunConfig& c, Duration room) {
  Duration length = c.workload.duration;
  if (!c.extend_load_for_liveness) return length;
  for (const auto& f : c.faults)
    length = std::max(length, f.start + f.duration + c.liveness_bound + room);
  return length;
}

// The defaults of a run: a 3-member cluster.
inline RunConfig default_run_config() {
  RunConfig c;
  c.etcd.members = 3;
  return c;
}

}  // namespace lockstep
