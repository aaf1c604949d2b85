#include "lockstep/harness/run_request.h"

#include <algorithm>

#include "lockstep/harness/fault_schedule.h"
#include "lockstep/harness/scenario.h"
#include "lockstep/harness/sim_runner.h"

namespace lockstep {

Duration max_fault_duration(const RunRequest& request, Duration lease_ttl) {
  if (request.max_fault_duration) return *request.max_fault_duration;
  return std::max(kDefaultMaxFaultDuration, lease_ttl * 3 / 2);
}

std::string expand_run_request(const RunRequest& request, RunConfig& out) {
  RunConfig config = default_run_config();
  config.algorithm = request.algorithm;
  config.seed = request.seed;
  config.algorithm_options = request.algorithm_options;
  config.workload.clients = request.clients;
  config.etcd.members = request.members;
  if (request.duration.count() <= 0) return "the duration must be positive";
  config.workload.duration = request.duration;
  config.extend_load_for_liveness = request.extend_load_for_liveness;
  if (auto err = parse_fault_classes(request.faults, config.fault_classes))
    return "faults: " + *err;
  // Validated once without faults to resolve the algorithm's options (its lease TTL shapes
  // the fault schedule), and again below with them.
  if (auto err = validate_run_config(config); !err.empty()) return err;
  const Duration lease_ttl = lease_ttl_of(config.algorithm_options);
  FaultGenOptions gen;
  gen.classes = config.fault_classes;
  gen.run_length = config.workload.duration;
  gen.max_fault_duration = max_fault_duration(request, lease_ttl);
  gen.lease_ttl = lease_ttl;
  gen.clients = config.workload.clients;
  gen.members = config.etcd.members;
  gen.with_resource = config.workload.use_resource;
  config.faults = generate_faults(Rng(config.seed).fork("faults"), gen);
  if (auto err = validate_run_config(config); !err.empty()) return err;
  // Liveness is judged against the lease: a lock key orphaned by an unlucky client (a delete
  // whose outcome it never learnt) may block everyone until its lease expires.
  if (lease_ttl.count() > 0) config.liveness_bound = lease_ttl + seconds(20);
  // A run is a scenario: `run --out` and explore write it, and replay must read it back. The
  // scenario reader's own checks, so that both accept the same runs (a liveness bound or a
  // fault end after one day was written, then refused by replay).
  if (auto err = scenario_representable(config); !err.empty())
    return "the run cannot be written as a scenario that replay reads back: " + err;
  out = std::move(config);
  return {};
}

}  // namespace lockstep
