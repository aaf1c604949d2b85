// etcd-mutex-guarded: etcd's concurrency.Mutex (3.5) with the protected data in etcd behind a
// guarded txn (see etcd_mutex.h).
//
// Where it comes from: Jepsen's `lock-etcd-set` workload, and the advice of etcd's own docs:
//   write the protected data with Txn(If(CreateRevision(mutex.Key()) == mutex.Header().Revision)).
// What it does: the lock is etcd-mutex; capabilities().guarded_writes tells the harness to keep
//   the protected data in etcd and make each write a txn guarded by
//   create_revision(grant.key) == grant.key_revision, so a write lands only while the writer's
//   key, hence its holding, still exists.
// What it promises: no lost update for data kept in etcd, under every fault.
// What it gets wrong: nothing for data in etcd; beliefs may still overlap (a paused holder),
//   and a resource outside etcd gets no protection from it.
#include "lockstep/algorithms/etcd_mutex.h"

namespace lockstep {

AlgorithmInfo etcd_mutex_guarded_info() {
  AlgorithmInfo info;
  info.name = "etcd-mutex-guarded";
  info.summary =
      "etcd concurrency.Mutex (3.5+); the protected data lives in etcd behind a txn guarded by "
      "the own key's create revision";
  info.capabilities.guarded_writes = true;
  info.options = {{"lease_ttl_seconds", 60, "session TTL (concurrency.NewSession's default 60 s)"}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    EtcdMutexOptions o;
    o.session_ttl_seconds = setup.options.at("lease_ttl_seconds");
    o.recheck_own_key = true;
    o.guarded_writes = true;
    return std::make_unique<EtcdMutex>(ctx, setup.lock_name, o);
  };
  return info;
}

}  // namespace lockstep
