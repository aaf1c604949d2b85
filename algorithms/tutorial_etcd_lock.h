// TutorialEtcdLock: the `EtcdLock` of the Go tutorial "etcd分布式锁实践" ("etcd distributed locks
// in practice", see docs/algorithms.md), the building block of the txn-retry-lock, reentrant
// and rw-lock algorithms of the catalogue. Not a Lock by itself.
//
// As published:
//   - lock_once() (Go: Lock): grants a fresh lease (10 s) on every call, starts its keep-alive,
//     then one txn: if create_revision(key) == 0 put the key with the lease, else get it. On
//     any failure it stops the keep-alive but does NOT revoke the lease (the lease lingers
//     until its TTL; no key is attached to it, so that is only a leak).
//   - lock_with_retry() (Go: LockWithRetry): lock_once() until it succeeds, sleeping
//     retry_interval between attempts, until the caller's deadline (Go: ctx.Done()).
//   - unlock() (Go: Unlock): deletes the key UNCONDITIONALLY, whoever owns it now, then stops
//     the keep-alive and revokes the lease (the revoke's error is ignored).
// The keep-alive's replies are ignored, as in the Go code: the lock never learns that its
// lease is gone.
// Deviation: LockWithRetry retries on any error, including an indeterminate one; here an
// indeterminate error ends the acquire as is, so the harness can account for it (the lock may
// be held: the txn may have been applied).
#pragma once

#include <memory>
#include <string>

#include "lockstep/algorithms/lock.h"
#include "lockstep/algorithms/session.h"
#include "lockstep/kv/node_context.h"

namespace lockstep {

class TutorialEtcdLock {
 public:
  TutorialEtcdLock(NodeContext& ctx, std::string key, std::int64_t lease_ttl_seconds);
  ~TutorialEtcdLock();

  Task<Result<LockGrant>> lock_once();
  Task<Result<LockGrant>> lock_with_retry(Duration retry_interval, MonoTime deadline);
  Task<Result<void>> unlock();

  const std::string& key() const { return key_; }
  // The lease of the last successful lock_once(), 0 before.
  LeaseId lease() const { return session_ ? session_->lease() : 0; }

 private:
  NodeContext& ctx_;
  std::string key_;
  std::int64_t lease_ttl_seconds_;
  std::unique_ptr<Session> session_;  // the held lock's lease and keep-alive
};

}  // namespace lockstep
