// redisson-reentrant: Redisson's RLock (a reentrant lock with a watchdog), on etcd.
//
// Where it comes from: the sections "如何实现锁的优雅续期?" and "如何实现可重入锁?" (graceful
//   renewal; reentrant locks) of the tutorial behind zk-recipe (see docs/algorithms.md), which
//   describe Redisson's RLock: the lock is a hash {owner id: hold count} changed by one Lua
//   script at a time, a "watch dog" extends its expiry while the owner holds it, and only
//   lock() without a lease time gets the watchdog (lock(10, SECONDS) does not). The figures
//   are Redisson's: lockWatchdogTimeout 30 s, renewed every third of it.
// What it does: the lock key's value is "<owner id>#<hold count>" under a lease (the
//   expiry). A first acquire is one txn: if create_revision(key) == 0, put "<me>#1" under a new
//   lease of lease_ttl_seconds; if another owns the key, the client watches it until it is
//   deleted (Redisson waits on a pub/sub channel) and tries again. A re-entry is one txn: if
//   the key is still the one this holding created (its create revision), put "<me>#<n+1>";
//   then the lease is renewed (Redisson's hincrby and pexpire). A release is one txn on the same
//   compare: put "<me>#<n-1>" (and renew), or at the last hold delete the key, stop the
//   watchdog and revoke the lease. With watchdog = 1 a background task renews the lease every
//   lease_ttl_seconds / 3 while the lock is held; as in Redisson, one failed renewal stops it.
// lockstep's own choices, not Redisson's: the owner id is new for each holding that starts
//   from no hold (see acquire), not one per thread for ever, and the count the key holds is set
//   from the caller's count of holds (each release ends one hold, whatever its outcome), so a
//   release whose reply was lost, applied late, cannot leave the count off by one.
// What it promises: a reentrant mutex whose owner and count the server changes atomically;
//   the correct baseline for `reentrant` (whose owner check, lock and count are separate, and
//   whose count lives in the client's memory).
// What it gets wrong: only the inherent limit of leases: a holder paused or cut off for longer
//   than what is left of its TTL keeps believing it holds the lock. With watchdog = 0
//   (lock(leaseTime)), nothing renews the lease and work that outlasts it loses the lock, as
//   with fixed-ttl-no-renewal.
// Options: lease_ttl_seconds = 30 (lockWatchdogTimeout; with watchdog = 0, the lease time of
//   lock(leaseTime)), watchdog = 1.
#include <memory>
#include <utility>

#include "lockstep/algorithms/redis_style.h"
#include "lockstep/algorithms/registry.h"
#include "lockstep/algorithms/watch_wait.h"

namespace lockstep {
namespace {

// The lock key's value: the owner and its hold count.
std::string encode(const std::string& owner, std::int64_t count) {
  return owner + "#" + std::to_string(count);
}

class RedissonReentrant : public Lock {
 public:
  RedissonReentrant(NodeContext& ctx, const LockSetup& setup)
      : ctx_(ctx),
        key_(setup.lock_name),
        ttl_seconds_(setup.options.at("lease_ttl_seconds")),
        watchdog_(setup.options.at("watchdog") != 0),
        owner_(new_owner_id()) {}

  LockCapabilities capabilities() const override {
    LockCapabilities c;
    c.reentrant = true;
    return c;
  }

  Task<Result<LockGrant>> acquire(LockMode, MonoTime deadline) override {
    if (count_ > 0) co_return co_await reenter();
    // A holding that starts from no hold gets a new owner id. Redisson's is the client's UUID
    // and thread id, the same for every holding of a thread; here an earlier holding whose
    // last release's outcome is unknown may still have its key, and a revoke on its way:
    // taking that key for ours would hold the lock on a key about to go.
    owner_ = new_owner_id();
    for (;;) {
      if (lease_ == 0) {
        LeaseGrantRequest g;
        g.ttl_seconds = ttl_seconds_;
        Result<LeaseGrantResponse> lease = co_await ctx_.kv().lease_grant(g);
        if (!lease.ok()) co_return lease.error();
        lease_ = lease.value().id;
      }
      TxnRequest try_lock;
      try_lock.compare.push_back(Compare::create_revision_of(key_, CompareResult::equal, 0));
      PutRequest put;
      put.key = key_;
      put.value = encode(owner_, 1);
      put.lease = lease_;
      try_lock.success.push_back(RequestOp{put});
      Result<TxnResponse> r = co_await ctx_.kv().txn(std::move(try_lock));
      if (!r.ok()) {
        if (r.error().code == ErrorCode::lease_not_found) {
          lease_ = 0;  // it expired while this client waited: take a new one
          continue;
        }
        co_await give_up_lease();  // takes the key with it, if the txn created it
        co_return r.error();
      }
      if (r.value().succeeded) {
        count_ = 1;
        key_revision_ = r.value().header.revision;
        if (watchdog_) renewal_ = ctx_.spawn(renew_loop(&ctx_, lease_, ttl_seconds_), "watchdog");
        co_return grant();
      }
      // Another owner: wait for its key to go (Redisson's pub/sub wait), then try again.
      WatchCreateRequest w;
      w.key = key_;
      w.start_revision = r.value().header.revision + 1;
      Result<WatchWaitEnd> end = co_await wait_on_watch(ctx_, std::move(w), has_delete_event,
                                                        deadline, "acquire deadline passed");
      if (!end.ok()) {
        co_await give_up_lease();
        co_return end.error();
      }
    }
  }

  Task<Result<void>> release() override {
    if (count_ == 0) co_return Error(ErrorCode::not_held, "release without a held lock");
    // Each release ends one of the caller's holds, whatever its outcome.
    --count_;
    TxnRequest unlock;
    unlock.compare.push_back(
        Compare::create_revision_of(key_, CompareResult::equal, key_revision_));
    if (count_ > 0) {
      PutRequest dec;
      dec.key = key_;
      dec.value = encode(owner_, count_);
      dec.ignore_lease = true;
      unlock.success.push_back(RequestOp{dec});
    } else {
      DeleteRangeRequest del;
      del.key = key_;
      unlock.success.push_back(RequestOp{del});
    }
    Result<TxnResponse> r = co_await ctx_.kv().txn(std::move(unlock));
    // The last release lets the holding go whatever its outcome: Redisson cancels its renewal
    // once unlock completes; revoking the lease takes the key with it if the delete did not.
    if (count_ == 0) co_await end_holding();
    if (!r.ok()) co_return r.error();
    if (!r.value().succeeded)
      co_return Error(ErrorCode::not_held, "the lock key is not mine (its lease expired)");
    if (count_ > 0) co_await renew_once();  // pexpire
    co_return Result<void>();
  }

 private:
  // Redisson's owner id is the client's UUID and thread id; here the client's name and a
  // random id, drawn anew for each holding (see acquire).
  std::string new_owner_id() { return unique_lock_value(ctx_); }

  LockGrant grant() const {
    LockGrant g;
    g.key = key_;
    g.key_revision = key_revision_;
    g.lease = lease_;
    return g;
  }

  // hincrby and pexpire: one more hold on the key of this holding, if it is still there.
  Task<Result<LockGrant>> reenter() {
    TxnRequest inc_if_mine;
    inc_if_mine.compare.push_back(
        Compare::create_revision_of(key_, CompareResult::equal, key_revision_));
    PutRequest inc;
    inc.key = key_;
    inc.value = encode(owner_, count_ + 1);
    inc.ignore_lease = true;
    inc_if_mine.success.push_back(RequestOp{inc});
    Result<TxnResponse> r = co_await ctx_.kv().txn(std::move(inc_if_mine));
    if (!r.ok()) co_return r.error();
    if (!r.value().succeeded)
      co_return Error(ErrorCode::session_expired, "the lock key is gone: the holding was lost");
    ++count_;
    co_await renew_once();
    co_return grant();
  }

  // The holding is over (released, or its last release's outcome unknown): stop renewing and
  // revoke the lease.
  Task<void> end_holding() {
    renewal_.cancel();
    co_await give_up_lease();
  }

  Task<void> give_up_lease() { co_await revoke_quietly(ctx_, std::exchange(lease_, 0)); }

  Task<void> renew_once() {
    LeaseKeepAliveRequest k;
    k.id = lease_;
    (void)co_await ctx_.kv().lease_keep_alive(k);
  }

  // Redisson's renewExpiration: every TTL/3, extend the expiry; stop when the lock is gone or a
  // renewal fails.
  static Task<void> renew_loop(NodeContext* ctx, LeaseId lease, std::int64_t ttl_seconds) {
    const Duration interval = seconds(ttl_seconds) / 3;
    for (;;) {
      co_await ctx->sleep_for(interval);
      LeaseKeepAliveRequest k;
      k.id = lease;
      Result<LeaseKeepAliveResponse> r = co_await ctx->kv().lease_keep_alive(k);
      if (!r.ok() || r.value().ttl_seconds <= 0) co_return;
    }
  }

  NodeContext& ctx_;
  std::string key_;
  std::int64_t ttl_seconds_;
  bool watchdog_;
  std::string owner_;
  std::int64_t count_ = 0;  // the caller's holds: each acquire adds one, each release ends one
  LeaseId lease_ = 0;
  Revision key_revision_ = 0;
  SpawnHandle renewal_;
};

}  // namespace

AlgorithmInfo redisson_reentrant_info() {
  AlgorithmInfo info;
  info.name = "redisson-reentrant";
  info.summary =
      "Redisson's RLock on etcd: owner and hold count changed in one txn, a watchdog renewing "
      "the lease every TTL/3 (off with an explicit lease time)";
  info.capabilities.reentrant = true;
  info.options = {
      {"lease_ttl_seconds", 30,
       "the lock's lease (Redisson's lockWatchdogTimeout 30 s; with watchdog 0, the leaseTime "
       "of lock(leaseTime))"},
      {"watchdog", 1, "1: lock(), renewed every TTL/3; 0: lock(leaseTime), never renewed", 0, 1}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return std::make_unique<RedissonReentrant>(ctx, setup);
  };
  return info;
}

}  // namespace lockstep
