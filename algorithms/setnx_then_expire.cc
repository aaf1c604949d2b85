// setnx-then-expire: the non-atomic Redis lock, SETNX and then EXPIRE as two commands.
//
// Where it comes from: the section "为什么要给锁设置一个过期时间?" (why give the lock an expiry
//   time?) of the tutorial behind zk-recipe (see docs/algorithms.md), which insists that the
//   key and its expiry be set in one atomic operation, "otherwise the lock may still never be
//   released": the pattern it warns against is `SETNX lockKey uniqueValue` followed by a
//   separate `EXPIRE lockKey 3`.
// What it does: acquire grants a lease of lease_ttl_seconds (standing for the EXPIRE's TTL;
//   granted first so that SETNX and EXPIRE stay one round trip apart, as in Redis), then
//   SETNX: if create_revision(key) == 0, put key = my unique value with no lease (one attempt;
//   the workload polls; a refused attempt revokes the lease). Then EXPIRE: if value(key) is
//   mine, put it again under the lease. Release: if value(key) is mine, delete it, then revoke
//   the lease.
// What it promises: what fixed-ttl-no-renewal promises.
// What it gets wrong: between the two commands the key has no expiry. A holder that crashes
//   there, or whose EXPIRE is lost and whose release is lost too, leaves a key nothing will
//   ever delete, and every client waits for ever, exactly as with setnx-no-ttl. Plus
//   fixed-ttl-no-renewal's early expiry.
// Options: lease_ttl_seconds = 3 (the article's EX 3).
#include <memory>
#include <utility>

#include "lockstep/algorithms/redis_style.h"
#include "lockstep/algorithms/registry.h"

namespace lockstep {
namespace {

class SetnxThenExpire : public Lock {
 public:
  SetnxThenExpire(NodeContext& ctx, const LockSetup& setup)
      : ctx_(ctx), key_(setup.lock_name), ttl_seconds_(setup.options.at("lease_ttl_seconds")) {}

  LockCapabilities capabilities() const override {
    LockCapabilities c;
    c.blocking = false;
    return c;
  }

  Task<Result<LockGrant>> acquire(LockMode, MonoTime) override {
    LeaseGrantRequest grant_ttl;
    grant_ttl.ttl_seconds = ttl_seconds_;
    Result<LeaseGrantResponse> lease = co_await ctx_.kv().lease_grant(grant_ttl);
    if (!lease.ok()) co_return lease.error();
    const LeaseId id = lease.value().id;
    const std::string value = unique_lock_value(ctx_);

    // SETNX lockKey uniqueValue: no lease yet.
    Result<TxnResponse> set = co_await ctx_.kv().txn(set_if_absent(key_, value, 0));
    if (!set.ok()) co_return set.error();
    if (!set.value().succeeded) {
      co_await revoke_quietly(ctx_, id);
      co_return Error(ErrorCode::lock_busy, "the lock key exists");
    }
    value_ = value;
    lease_ = id;

    // EXPIRE lockKey ttl: attach the lease to the key, if it is still mine.
    TxnRequest expire;
    expire.compare.push_back(Compare::value_of(key_, CompareResult::equal, value));
    PutRequest put;
    put.key = key_;
    put.value = value;
    put.lease = id;
    expire.success.push_back(RequestOp{put});
    // Like a client that ignores EXPIRE's reply, the holder goes on either way: the key is its.
    (void)co_await ctx_.kv().txn(std::move(expire));
    LockGrant grant;
    grant.key = key_;
    grant.key_revision = set.value().header.revision;
    grant.lease = id;
    co_return grant;
  }

  Task<Result<void>> release() override {
    const std::string value = std::exchange(value_, std::string());
    const LeaseId lease = std::exchange(lease_, 0);
    Result<void> deleted = co_await delete_if_value(ctx_, key_, value);
    if (deleted.ok() || deleted.error().code == ErrorCode::not_held)
      co_await revoke_quietly(ctx_, lease);
    co_return deleted;
  }

 private:
  NodeContext& ctx_;
  std::string key_;
  std::int64_t ttl_seconds_;
  std::string value_;  // my unique value while I hold the lock
  LeaseId lease_ = 0;
};

}  // namespace

AlgorithmInfo setnx_then_expire_info() {
  AlgorithmInfo info;
  info.name = "setnx-then-expire";
  info.summary =
      "the non-atomic Redis lock SETNX then EXPIRE on etcd: create-if-absent with no lease, "
      "then attach one; a crash in between leaves the lock held for ever";
  info.capabilities.blocking = false;
  info.options = {{"lease_ttl_seconds", 3, "the EXPIRE's TTL (the article's 3 s)"}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return std::make_unique<SetnxThenExpire>(ctx, setup);
  };
  return info;
}

}  // namespace lockstep
