// etcd-mutex-3.4: etcd's concurrency.Mutex up to 3.4 (see etcd_mutex.h).
//
// Where it comes from: go.etcd.io/etcd/clientv3/concurrency/mutex.go before the fix of etcd
//   issue 11456 (found by Jepsen's etcd 3.4.3 analysis).
// What it does: as etcd-mutex, but after waiting for every older key to be deleted it does not
//   read its own key again.
// What it promises: mutual exclusion while holders keep their sessions alive.
// What it gets wrong: a waiter whose lease expired while it waited (its key deleted by etcd)
//   is still told it holds the lock once the older keys are gone, while a later client, now
//   the lowest key, holds it too. Plus the inherent lease problems of etcd-mutex.
#include "lockstep/algorithms/etcd_mutex.h"

namespace lockstep {

AlgorithmInfo etcd_mutex_34_info() {
  AlgorithmInfo info;
  info.name = "etcd-mutex-3.4";
  info.summary =
      "etcd concurrency.Mutex up to 3.4: as etcd-mutex without the re-check of the own key "
      "after waiting (etcd issue 11456)";
  info.options = {{"lease_ttl_seconds", 60, "session TTL (concurrency.NewSession's default 60 s)"}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    EtcdMutexOptions o;
    o.session_ttl_seconds = setup.options.at("lease_ttl_seconds");
    o.recheck_own_key = false;
    return std::make_unique<EtcdMutex>(ctx, setup.lock_name, o);
  };
  return info;
}

}  // namespace lockstep
