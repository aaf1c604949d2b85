#include "lockstep/harness/checks.h"

#include <algorithm>

#include "lockstep/algorithms/registry.h"
#include "lockstep/checker/liveness_checker.h"
#include "lockstep/checker/lock_truth.h"
#include "lockstep/checker/mutex_checker.h"
#include "lockstep/checker/resource_checker.h"

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
    // Only where the history shows it: the earlier holder's key went with its lease, by an
    // expiry that committed, before the later grant. A check-then-act race, a stale delete or
    // a grant to a client whose own key was gone is the algorithm's bug, however long the
    // faults around it (reports/causes.h names each).
    const bool lease_outlived =
        mutex.status == CheckStatus::violated &&
        lease_expired_under_holder(history, extract_lock_truth(history), mutex.witness);
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
