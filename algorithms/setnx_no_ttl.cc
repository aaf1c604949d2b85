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

#include "lockstep/algorithms/random_id.h"
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
    // uniqueValue: the client's name alone would match a restarted incarnation of it.
    const std::string value = ctx_.node_name() + "/" + random_hex_id(ctx_.rng());
    TxnRequest setnx;
    setnx.compare.push_back(Compare::create_revision_of(key_, CompareResult::equal, 0));
    PutRequest put;
    put.key = key_;
    put.value = value;
    setnx.success.push_back(RequestOp{put});
    Result<TxnResponse> resp = co_await ctx_.kv().txn(std::move(setnx));
    if (!resp.ok()) co_return resp.error();
    if (!resp.value().succeeded) co_return Error(ErrorCode::lock_busy, "the lock key exists");
    value_ = value;
    LockGrant grant;
    grant.key = key_;
    grant.key_revision = resp.value().header.revision;
    co_return grant;
  }

  Task<Result<void>> release() override {
    // if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end
    TxnRequest del_if_mine;
    del_if_mine.compare.push_back(Compare::value_of(key_, CompareResult::equal, value_));
    DeleteRangeRequest del;
    del.key = key_;
    del_if_mine.success.push_back(RequestOp{del});
    value_.clear();
    Result<TxnResponse> resp = co_await ctx_.kv().txn(std::move(del_if_mine));
    if (!resp.ok()) co_return resp.error();
    if (!resp.value().succeeded) co_return Error(ErrorCode::not_held, "the lock key is not mine");
    co_return Result<void>();
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
