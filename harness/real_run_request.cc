#include "harness/real_run_request.h"

#include "harness/fault_schedule.h"
#include "harness/real_faults.h"
#include "harness/real_runner.h"

namespace lockstep {

std::string expand_real_run_request(const RunRequest& request, const RealBackendOptions& backend,
                                    RealRunConfig& out) {
  const bool local = backend.endpoints.empty();
  RunRequest sim_request = request;
  // The simulator's expansion validates the algorithm, its options and the fault class
  // names; with an existing cluster the member count only names members in faults.
  if (!local) sim_request.members = 1;
  RealRunConfig config;
  if (auto err = expand_run_request(sim_request, config.run); !err.empty()) return err;
  if (auto err = check_real_fault_classes(config.run.fault_classes, local); !err.empty()) return err;
  if (local) {
    config.run.etcd.members = request.members;
  } else {
    const auto n = static_cast<int>(backend.endpoints.size());
    config.run.etcd.members = n;
  }
  FaultGenOptions gen;
  gen.classes = config.run.fault_classes;
  gen.run_length = config.run.workload.duration;
  gen.max_fault_duration = request.max_fault_duration;
  gen.clients = config.run.workload.clients;
  gen.members = local ? config.run.etcd.members : 0;
  gen.with_resource = false;  // the real resource is in-process, not a process to fault
  config.run.faults = generate_faults(Rng(config.run.seed).fork("faults"), gen);
  // Member clocks cannot be skewed on a real cluster: a clock fault drawn for member-m hits
  // client (m mod clients) instead, so the class is exercised rather than skipped.
  for (auto& f : config.run.faults) {
    if (f.kind != "clock") continue;
    for (auto& t : f.targets)
      if (t.rfind("member-", 0) == 0)
        t = "client-" + std::to_string(std::stoi(t.substr(7)) % config.run.workload.clients);
  }
  const auto ttl = config.run.algorithm_options.find("lease_ttl_seconds");
  config.run.liveness_bound = (ttl != config.run.algorithm_options.end() && ttl->second > 0)
                                  ? seconds(ttl->second) + seconds(10)
                                  : seconds(20);
  config.backend = backend;
  if (auto err = validate_real_run_config(config); !err.empty()) return err;
  out = std::move(config);
  return {};
}

}  // namespace lockstep
