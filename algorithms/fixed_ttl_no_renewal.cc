// fixed-ttl-no-renewal: the Redis lock with an expiry and no renewal (SET key value EX n NX).
//
// Where it comes from: the section "为什么要给锁设置一个过期时间?" (why give the lock an expiry
//   time?) of the tutorial behind zk-recipe (see docs/algorithms.md): `SET lockKey uniqueValue
//   EX 3 NX` sets the key and its expiry in one atomic command, and the unlock is the Lua
//   compare-and-delete of setnx-no-ttl. The article itself warns that the lock expires early
//   when the work on the shared resource outlasts the expiry.
// What it does: acquire grants a lease of lease_ttl_seconds (the EX), then one txn: if
//   create_revision(key) == 0, put key = my unique value under that lease (one attempt; the
//   workload polls; a refused attempt revokes its lease). Nothing ever renews the lease.
//   Release is one txn: if value(key) == my value, delete it; then the lease is revoked.
// What it promises: mutual exclusion for critical sections shorter than the TTL, and no
//   deadlock: a crashed holder's key expires (compare setnx-no-ttl).
// What it gets wrong: the holder has no way to extend its holding. Work that outlasts the TTL
//   (a slow critical section, a GC pause, a partition) loses the key while the holder goes on,
//   with no fault at all, and a second client takes it.
// Options: lease_ttl_seconds = 3 (the article's EX 3).
#include <memory>
#include <utility>

#include "lockstep/algorithms/redis_style.h"
#include "lockstep/algorithms/registry.h"

namespace lockstep {
namespace {

class FixedTtlNoRenewal : public Lock {
 public:
  FixedTtlNoRenewal(NodeContext& ctx, const LockSetup& setup)
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
    // SET key value EX ttl NX
    Result<TxnResponse> resp = co_await ctx_.kv().txn(set_if_absent(key_, value, id));
    if (!resp.ok()) co_return resp.error();  // the lease expires by itself
    if (!resp.value().succeeded) {
      co_await revoke_quietly(ctx_, id);
      co_return Error(ErrorCode::lock_busy, "the lock key exists");
    }
    value_ = value;
    lease_ = id;
    LockGrant grant;
    grant.key = key_;
    grant.key_revision = resp.value().header.revision;
    grant.lease = id;
    co_return grant;
  }

  Task<Result<void>> release() override {
    const std::string value = std::exchange(value_, std::string());
    const LeaseId lease = std::exchange(lease_, 0);
    Result<void> deleted = co_await delete_if_value(ctx_, key_, value);
    // Redis has nothing left to free; here the lease would linger until its TTL.
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

AlgorithmInfo fixed_ttl_no_renewal_info() {
  AlgorithmInfo info;
  info.name = "fixed-ttl-no-renewal";
  info.summary =
      "the Redis lock SET key value EX n NX on etcd: create-if-absent under a lease nobody "
      "renews; breaks with no fault once the work outlasts the TTL";
  info.capabilities.blocking = false;
  info.options = {{"lease_ttl_seconds", 3, "the lock's expiry (the article's EX 3)"}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return std::make_unique<FixedTtlNoRenewal>(ctx, setup);
  };
  return info;
}

}  // namespace lockstep
