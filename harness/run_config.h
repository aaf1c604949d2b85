// RunConfig: everything one simulated run needs, fully expanded (what scenario.json holds).
#pragma once

#include <cstdint>
#include <string>

#include "algorithms/registry.h"
#include "kv/time.h"
#include "sim/etcd_config.h"
#include "sim/network.h"

namespace lockstep {

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
};

struct RunConfig {
  std::uint64_t seed = 1;
  std::string algorithm = "etcd-mutex";
  AlgorithmOptions algorithm_options;  // resolved
  std::string lock_name = "/lockstep/lock";
  sim::EtcdConfig etcd;
  sim::LatencyConfig network;
  WorkloadConfig workload;
};

}  // namespace lockstep
