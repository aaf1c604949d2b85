// txn-retry-lock: `EtcdLock` with `LockWithRetry` of a Go etcd tutorial, as published.
//
// Where it comes from: the tutorial "etcd分布式锁实践" ("etcd distributed locks in practice",
//   see docs/algorithms.md; tutorial_etcd_lock.h lists the code's steps and the one deviation).
// What it does: each attempt grants a 10 s lease, keeps it alive, and runs one txn: if
//   create_revision(key) == 0 put the key with the lease. A busy lock is retried every
//   retry_interval_ms until the acquire deadline. Release deletes the key unconditionally,
//   then revokes the lease.
// What it promises: at most one holder while every holder keeps its lease alive.
// What it gets wrong: as txn-try-lock, a holder paused or partitioned past its TTL keeps
//   believing it holds the lock after etcd gave it to another client. Worse, when that stale
//   holder releases, its unconditional delete removes the NEW holder's key, so a third client
//   gets in while the second still holds: two overlaps from one pause.
// Options: lease_ttl_seconds = 10 (Grant(ctx, 10) in the article); retry_interval_ms is a
//   parameter of LockWithRetry with no published value: 100 ms is this port's choice.
#include <memory>

#include "lockstep/algorithms/registry.h"
#include "lockstep/algorithms/tutorial_etcd_lock.h"

namespace lockstep {
namespace {

class TxnRetryLock : public Lock {
 public:
  TxnRetryLock(NodeContext& ctx, const LockSetup& setup)
      : lock_(ctx, setup.lock_name, setup.options.at("lease_ttl_seconds")),
        retry_interval_(milliseconds(setup.options.at("retry_interval_ms"))) {}

  LockCapabilities capabilities() const override { return LockCapabilities{}; }

  Task<Result<LockGrant>> acquire(LockMode, MonoTime deadline) override {
    co_return co_await lock_.lock_with_retry(retry_interval_, deadline);
  }

  Task<Result<void>> release() override { co_return co_await lock_.unlock(); }

 private:
  TutorialEtcdLock lock_;
  Duration retry_interval_;
};

}  // namespace

AlgorithmInfo txn_retry_lock_info() {
  AlgorithmInfo info;
  info.name = "txn-retry-lock";
  info.summary =
      "EtcdLock + LockWithRetry of a Go etcd tutorial: create-if-absent txn retried until a "
      "deadline; release deletes the key unconditionally";
  info.options = {
      {"lease_ttl_seconds", 10, "lease TTL of each attempt (the article grants 10 s)"},
      {"retry_interval_ms", 100, "pause between attempts (no published value; this port's)",
       kMinRetryIntervalMs, 86'400'000}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return std::make_unique<TxnRetryLock>(ctx, setup);
  };
  return info;
}

}  // namespace lockstep
