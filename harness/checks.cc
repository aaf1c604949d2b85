#include "harness/checks.h"

#include <algorithm>

#include "algorithms/registry.h"
#include "checker/liveness_checker.h"
#include "checker/mutex_checker.h"
#include "checker/resource_checker.h"

namespace lockstep {

const std::vector<std::string>& all_check_names() {
  static const std::vector<std::string> names = {"mutex", "resource", "liveness"};
  return names;
}

std::string guarded_data_key(const RunConfig& config) { return config.lock_name + "-data"; }

std::string validate_checks(const std::vector<std::string>& checks) {
  for (const auto& c : checks)
    if (std::find(all_check_names().begin(), all_check_names().end(), c) == all_check_names().end())
      return "unknown check \"" + c + "\" (known: mutex, resource, liveness)";
  return {};
}

std::vector<CheckResult> run_checks(const RunConfig& config, const History& history) {
  auto wanted = [&](const std::string& name) {
    return config.checks.empty() ||
           std::find(config.checks.begin(), config.checks.end(), name) != config.checks.end();
  };
  const AlgorithmInfo* info = find_algorithm(config.algorithm);
  std::vector<CheckResult> results;
  if (wanted("mutex")) {
    CheckResult mutex = check_mutual_exclusion(history);
    const Duration lease_ttl = lease_ttl_of(config.algorithm_options);
    const bool leased = lease_ttl.count() > 0;
    // Only where faults could have made a holder outlive its lease before the overlap: a
    // check-then-act race with no such fault, or one after faults far shorter than the TTL,
    // is the algorithm's (or its keep-alive's) own bug. A holder renews every TTL/3, so one
    // fault must stop it for about 2/3 of the TTL; faults before the overlap are summed (they
    // may hit back to back), and any clock fault or dropped keep-alive qualifies at once.
    bool lease_outlived = false;
    if (mutex.status == CheckStatus::violated && leased) {
      const std::int64_t overlap_ns = mutex.witness.value("overlap_start_ns", std::int64_t{0});
      const std::int64_t ttl_ms = to_ms(lease_ttl);
      std::int64_t stopped_ms = 0;
      for (const auto& e : history.events) {
        if (e.true_ns > overlap_ns) break;
        if (e.kind != EventKind::fault || e.args.value("phase", "") != "start") continue;
        if (e.op == "clock" || e.op == "lease-drop") lease_outlived = true;
        if (e.op == "pause" || e.op == "partition" || e.op == "delay" || e.op == "loss")
          stopped_ms += e.args.value("duration_ms", std::int64_t{0});
      }
      if (3 * stopped_ms >= 2 * ttl_ms) lease_outlived = true;
    }
    if (lease_outlived) {
      // Say plainly when the violation is the one no lease-based lock can prevent.
      mutex.figures["inherent_lease_limit"] = true;
      mutex.summary +=
          ". A holder that outlives its lease (paused, partitioned or slow) keeps believing it "
          "holds the lock after etcd gave it to another client: that is the inherent limit of "
          "leases, which only fencing at the protected resource can make harmless";
    }
    results.push_back(std::move(mutex));
  }
  if (wanted("resource") && config.workload.use_resource) {
    ResourceCheckOptions o;
    o.fenced = info && info->capabilities.fencing;
    if (info && info->capabilities.guarded_writes) o.guarded_data_key = guarded_data_key(config);
    results.push_back(check_resource(history, o));
  }
  if (wanted("liveness")) {
    LivenessOptions o;
    o.bound_ns = config.liveness_bound.count();
    // A waiter may see the lock free (nobody believing they hold it) while a crashed holder's
    // key still waits for its lease to expire: allow a TTL and a margin before calling an
    // idle lock a missed wake-up.
    const Duration lease_ttl = lease_ttl_of(config.algorithm_options);
    const Duration idle = lease_ttl.count() > 0 ? lease_ttl + seconds(5) : config.liveness_bound;
    o.idle_bound_ns = idle.count();
    results.push_back(check_liveness(history, o));
  }
  return results;
}

}  // namespace lockstep
