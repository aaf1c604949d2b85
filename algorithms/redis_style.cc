#include "lockstep/algorithms/redis_style.h"

#include <utility>

#include "lockstep/algorithms/random_id.h"

namespace lockstep {

std::string unique_lock_value(NodeContext& ctx) {
  return ctx.node_name() + "/" + random_hex_id(ctx.rng());
}

TxnRequest set_if_absent(const std::string& key, const std::string& value, LeaseId lease) {
  TxnRequest setnx;
  setnx.compare.push_back(Compare::create_revision_of(key, CompareResult::equal, 0));
  PutRequest put;
  put.key = key;
  put.value = value;
  put.lease = lease;
  setnx.success.push_back(RequestOp{std::move(put)});
  return setnx;
}

Task<Result<void>> delete_if_value(NodeContext& ctx, const std::string& key,
                                   const std::string& value) {
  TxnRequest del_if_mine;
  del_if_mine.compare.push_back(Compare::value_of(key, CompareResult::equal, value));
  DeleteRangeRequest del;
  del.key = key;
  del_if_mine.success.push_back(RequestOp{std::move(del)});
  Result<TxnResponse> resp = co_await ctx.kv().txn(std::move(del_if_mine));
  if (!resp.ok()) co_return resp.error();
  if (!resp.value().succeeded) co_return Error(ErrorCode::not_held, "the lock key is not mine");
  co_return Result<void>();
}

Task<void> revoke_quietly(NodeContext& ctx, LeaseId lease) {
  if (lease == 0) co_return;
  LeaseRevokeRequest revoke;
  revoke.id = lease;
  (void)co_await ctx.kv().lease_revoke(revoke);
}

namespace {

class ExpiringSetnxLock : public Lock {
 public:
  ExpiringSetnxLock(NodeContext& ctx, const LockSetup& setup, bool expiry_apart)
      : ctx_(ctx),
        key_(setup.lock_name),
        ttl_seconds_(setup.options.at("lease_ttl_seconds")),
        expiry_apart_(expiry_apart) {}

  LockCapabilities capabilities() const override {
    LockCapabilities c;
    c.blocking = false;
    return c;
  }

  Task<Result<LockGrant>> acquire(LockMode, MonoTime) override {
    // The lease comes first in both: SETNX and EXPIRE stay one round trip apart, as in Redis.
    LeaseGrantRequest grant_ttl;
    grant_ttl.ttl_seconds = ttl_seconds_;
    Result<LeaseGrantResponse> lease = co_await ctx_.kv().lease_grant(grant_ttl);
    if (!lease.ok()) co_return lease.error();
    const LeaseId id = lease.value().id;
    const std::string value = unique_lock_value(ctx_);
    // SET key value EX ttl NX, or SETNX key value (no lease yet).
    Result<TxnResponse> set =
        co_await ctx_.kv().txn(set_if_absent(key_, value, expiry_apart_ ? 0 : id));
    if (!set.ok()) co_return set.error();  // the lease expires by itself
    if (!set.value().succeeded) {
      co_await revoke_quietly(ctx_, id);
      co_return Error(ErrorCode::lock_busy, "the lock key exists");
    }
    value_ = value;
    lease_ = id;
    if (expiry_apart_) {
      // EXPIRE key ttl: attach the lease to the key, if it is still mine. Like a client that
      // ignores EXPIRE's reply, the holder goes on either way: the key is its.
      TxnRequest expire;
      expire.compare.push_back(Compare::value_of(key_, CompareResult::equal, value));
      PutRequest put;
      put.key = key_;
      put.value = value;
      put.lease = id;
      expire.success.push_back(RequestOp{std::move(put)});
      (void)co_await ctx_.kv().txn(std::move(expire));
    }
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
    // Redis has nothing left to free; here the lease would linger until its TTL.
    if (deleted.ok() || deleted.error().code == ErrorCode::not_held)
      co_await revoke_quietly(ctx_, lease);
    co_return deleted;
  }

 private:
  NodeContext& ctx_;
  std::string key_;
  std::int64_t ttl_seconds_;
  bool expiry_apart_;
  std::string value_;  // my unique value while I hold the lock
  LeaseId lease_ = 0;
};

}  // namespace

std::unique_ptr<Lock> make_expiring_setnx_lock(NodeContext& ctx, const LockSetup& setup,
                                               bool expiry_apart) {
  return std::make_unique<ExpiringSetnxLock>(ctx, setup, expiry_apart);
}

}  // namespace lockstep
