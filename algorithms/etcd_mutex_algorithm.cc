// etcd-mutex: etcd's concurrency.Mutex from 3.5 on (see etcd_mutex.h).
//
// What it promises: mutual exclusion while holders keep their sessions alive; a waiter whose
//   session expired while it waited is told so (session_expired) instead of being granted.
// What it gets wrong: only the inherent limit of leases. A holder paused or partitioned past
//   its TTL keeps believing it holds the lock after etcd deleted its key; nothing in a lease
//   can prevent that, only fencing at the resource can (see etcd-mutex-fenced).
#include "lockstep/algorithms/etcd_mutex.h"

namespace lockstep {

AlgorithmInfo etcd_mutex_info() {
  AlgorithmInfo info;
  info.name = "etcd-mutex";
  info.summary =
      "etcd concurrency.Mutex (3.5+): lowest create revision holds, waiters watch their "
      "predecessor and re-check their own key";
  info.options = {{"lease_ttl_seconds", 60, "session TTL (concurrency.NewSession's default 60 s)"}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    EtcdMutexOptions o;
    o.session_ttl_seconds = setup.options.at("lease_ttl_seconds");
    o.recheck_own_key = true;
    return std::make_unique<EtcdMutex>(ctx, setup.lock_name, o);
  };
  return info;
}

}  // namespace lockstep
