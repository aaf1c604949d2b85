#include "harness/run_request.h"

#include "harness/fault_schedule.h"
#include "harness/sim_runner.h"

namespace lockstep {

std::string expand_run_request(const RunRequest& request, RunConfig& out) {
  RunConfig config = default_run_config();
  config.algorithm = request.algorithm;
  config.seed = request.seed;
  config.algorithm_options = request.algorithm_options;
  config.workload.clients = request.clients;
  config.etcd.members = request.members;
  if (request.duration.count() <= 0) return "the duration must be positive";
  config.workload.duration = request.duration;
  if (auto err = parse_fault_classes(request.faults, config.fault_classes))
    return "faults: " + *err;
  FaultGenOptions gen;
  gen.classes = config.fault_classes;
  gen.run_length = config.workload.duration;
  gen.max_fault_duration = request.max_fault_duration;
  gen.clients = config.workload.clients;
  gen.members = config.etcd.members;
  gen.with_resource = config.workload.use_resource;
  config.faults = generate_faults(Rng(config.seed).fork("faults"), gen);
  if (auto err = validate_run_config(config); !err.empty()) return err;
  // Liveness is judged against the lease: a lock key orphaned by an unlucky client (a delete
  // whose outcome it never learnt) may block everyone until its lease expires.
  auto ttl = config.algorithm_options.find("lease_ttl_seconds");
  if (ttl != config.algorithm_options.end() && ttl->second > 0)
    config.liveness_bound = seconds(ttl->second) + seconds(20);
  out = std::move(config);
  return {};
}

}  // namespace lockstep
