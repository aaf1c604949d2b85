// reentrant: `ReentrantLock` of a Go etcd tutorial, ported for its intent.
//
// Where it comes from: the section "可重入锁实现" (reentrant lock) of the tutorial behind
//   txn-retry-lock (see docs/algorithms.md). The published code never stores the owner id
//   (NewReentrantLock drops its `owner` argument and Lock compares with a field that does not
//   exist); this port gives each client one owner id, its node name, which is the intent.
// What it does: acquire reads `<key>/owner`; if it names this client, count++ and done.
//   Otherwise it takes the txn-retry-lock on `<key>` (see tutorial_etcd_lock.h), then puts
//   `<key>/owner` = my id under the same lease; if that put fails it unlocks and fails. Release
//   decrements the count and, at the last release, unlocks (delete the key unconditionally,
//   revoke the lease, which also deletes the owner key).
// What it promises: a reentrant mutex, one holder (counted) at a time.
// What it gets wrong: the owner check and the lock are separate calls, and the count lives in
//   the client's memory while the lease lives in etcd. A holder re-enters on the strength of
//   an owner key read just before its lease expired, and a restarted client with the same
//   name finds its previous incarnation's owner key (still alive until its TTL) and "re-enters"
//   a lock it never took in this life. All the txn-retry-lock problems come along.
// Options: as txn-retry-lock (lease_ttl_seconds = 10; retry_interval_ms = 100, this port's).
//   Deviation: the published Lock makes one attempt (EtcdLock.Lock); following the catalogue
//   it takes the lock with LockWithRetry until the acquire deadline.
#include <memory>

#include "lockstep/algorithms/registry.h"
#include "lockstep/algorithms/tutorial_etcd_lock.h"

namespace lockstep {
namespace {

class ReentrantLock : public Lock {
 public:
  ReentrantLock(NodeContext& ctx, const LockSetup& setup)
      : ctx_(ctx),
        lock_(ctx, setup.lock_name, setup.options.at("lease_ttl_seconds")),
        owner_key_(setup.lock_name + "/owner"),
        retry_interval_(milliseconds(setup.options.at("retry_interval_ms"))) {}

  LockCapabilities capabilities() const override {
    LockCapabilities c;
    c.reentrant = true;
    return c;
  }

  Task<Result<LockGrant>> acquire(LockMode, MonoTime deadline) override {
    const std::string& me = ctx_.node_name();
    RangeRequest get;
    get.key = owner_key_;
    Result<RangeResponse> owner = co_await ctx_.kv().range(std::move(get));
    if (!owner.ok()) co_return owner.error();
    if (!owner.value().kvs.empty() && owner.value().kvs[0].value == me) {
      ++count_;  // no check that the lock key, or our lease, still exists
      co_return grant_now(owner.value().kvs[0].lease);
    }
    Result<LockGrant> taken = co_await lock_.lock_with_retry(retry_interval_, deadline);
    if (!taken.ok()) co_return taken.error();
    PutRequest put;
    put.key = owner_key_;
    put.value = me;
    put.lease = lock_.lease();
    Result<PutResponse> written = co_await ctx_.kv().put(std::move(put));
    if (!written.ok()) {
      (void)co_await lock_.unlock();
      co_return written.error();
    }
    count_ = 1;
    grant_ = taken.value();
    co_return grant_;
  }

  Task<Result<void>> release() override {
    if (count_ > 1) {
      --count_;
      co_return Result<void>();
    }
    // As published the count is not reset here; the next acquire sets it again.
    co_return co_await lock_.unlock();
  }

 private:
  LockGrant grant_now(LeaseId owner_lease) {
    LockGrant g = grant_;
    g.key = lock_.key();
    if (g.lease == 0) g.lease = owner_lease;  // re-entry with no lock taken in this life
    return g;
  }

  NodeContext& ctx_;
  TutorialEtcdLock lock_;
  std::string owner_key_;
  Duration retry_interval_;
  int count_ = 0;
  LockGrant grant_;  // of the acquire that took the lock
};

}  // namespace

AlgorithmInfo reentrant_info() {
  AlgorithmInfo info;
  info.name = "reentrant";
  info.summary =
      "ReentrantLock of a Go etcd tutorial: read the owner key, count++ if it is me, else "
      "txn-retry-lock and write the owner key (non-atomic)";
  info.capabilities.reentrant = true;
  info.options = {
      {"lease_ttl_seconds", 10, "lease TTL of each attempt (the article grants 10 s)"},
      {"retry_interval_ms", 100, "pause between attempts (no published value; this port's)",
       kMinRetryIntervalMs, 86'400'000}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return std::make_unique<ReentrantLock>(ctx, setup);
  };
  return info;
}

}  // namespace lockstep
