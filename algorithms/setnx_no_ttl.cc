// setnx-no-ttl: the simplest Redis lock (SETNX lockKey uniqueValue) of a lock tutorial, on etcd.
//
// Where it comes from: the section "如何基于 Redis 实现一个最简易的分布式锁" (how to build the
//   simplest distributed lock on Redis) of the tutorial behind zk-recipe (see
//   docs/algorithms.md): SETNX with a unique value to lock; to unlock, a Lua script deletes the
//   key only if it still holds that value.
// What it does: acquire is one txn: if create_revision(key) == 0 put key = my unique value, with
//   no lease (one attempt; the workload polls). Release is one txn: if value(key) == my value
//   then delete it.
// What it promises: mutual exclusion, and it keeps it: with no lease nothing can take the key
//   away from a holder.
// What it gets wrong: liveness. A holder that crashes (or loses the reply to its acquire, or
//   to its release) leaves the key for ever and every client waits for ever. That is why
//   locks have leases (and why leases then bring their own problems).
#include <memory>
#include <utility>

#include "lockstep/algorithms/redis_style.h"
#include "lockstep/algorithms/registry.h"

namespace lockstep {
namespace {

class SetnxNoTtl : public Lock {
 public:
  SetnxNoTtl(NodeContext& ctx, const LockSetup& setup) : ctx_(ctx), key_(setup.lock_name) {}

  LockCapabilities capabilities() const override {
    LockCapabilities c;
    c.blocking = false;
    return c;
  }

  Task<Result<LockGrant>> acquire(LockMode, MonoTime) override {
    const std::string value = unique_lock_value(ctx_);
    Result<TxnResponse> resp = co_await ctx_.kv().txn(set_if_absent(key_, value, 0));
    if (!resp.ok()) co_return resp.error();
    if (!resp.value().succeeded) co_return Error(ErrorCode::lock_busy, "the lock key exists");
    value_ = value;
    LockGrant grant;
    grant.key = key_;
    grant.key_revision = resp.value().header.revision;
    co_return grant;
  }

  Task<Result<void>> release() override {
    co_return co_await delete_if_value(ctx_, key_, std::exchange(value_, std::string()));
  }

 private:
  NodeContext& ctx_;
  std::string key_;
  std::string value_;  // my unique value while I hold the lock
};

}  // namespace

AlgorithmInfo setnx_no_ttl_info() {
  AlgorithmInfo info;
  info.name = "setnx-no-ttl";
  info.summary =
      "the simplest Redis lock (SETNX, no expiry) on etcd: create-if-absent with no lease; "
      "correct until a holder crashes, then deadlocked for ever";
  info.capabilities.blocking = false;
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return std::make_unique<SetnxNoTtl>(ctx, setup);
  };
  return info;
}

}  // namespace lockstep
