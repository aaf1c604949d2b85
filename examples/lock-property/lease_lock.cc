#include "lease_lock.h"

#include <lockstep/algorithms/registry.h>

namespace example {

using namespace lockstep;

LeaseLock::LeaseLock(NodeContext& ctx, std::string key, std::int64_t ttl_seconds)
    : ctx_(ctx), key_(std::move(key)), ttl_seconds_(ttl_seconds) {}

LockCapabilities LeaseLock::capabilities() const { return LockCapabilities{}; }

Task<void> LeaseLock::keep_alive(NodeContext* ctx, LeaseId lease, Duration interval) {
  for (;;) {
    co_await ctx->sleep_for(interval);
    LeaseKeepAliveRequest req;
    req.id = lease;
    Result<LeaseKeepAliveResponse> reply = co_await ctx->kv().lease_keep_alive(req);
    (void)reply;  // a lost reply is retried at the next interval
  }
}

Task<Result<LockGrant>> LeaseLock::acquire(LockMode, MonoTime deadline) {
  LeaseGrantRequest grant_req;
  grant_req.ttl_seconds = ttl_seconds_;
  Result<LeaseGrantResponse> granted = co_await ctx_.kv().lease_grant(grant_req);
  if (!granted.ok()) co_return granted.error();
  lease_ = granted.value().id;
  keep_alive_ = ctx_.spawn(keep_alive(&ctx_, lease_, seconds(granted.value().ttl_seconds) / 3),
                           "keep-alive");
  while (ctx_.monotonic_now() < deadline) {
    TxnRequest txn;
    txn.compare.push_back(Compare::create_revision_of(key_, CompareResult::equal, 0));
    PutRequest put;
    put.key = key_;
    put.value = ctx_.node_name();
    put.lease = lease_;
    txn.success.push_back(RequestOp{put});
    Result<TxnResponse> resp = co_await ctx_.kv().txn(std::move(txn));
    if (resp.ok() && resp.value().succeeded) {
      LockGrant grant;
      grant.key = key_;
      grant.key_revision = resp.value().header.revision;
      grant.lease = lease_;
      co_return grant;
    }
    co_await ctx_.sleep_for(milliseconds(100));
  }
  co_await release();
  co_return Error(ErrorCode::deadline_exceeded, "the lock stayed busy until the deadline");
}

Task<Result<void>> LeaseLock::release() {
  keep_alive_.cancel();
  const LeaseId lease = lease_;
  lease_ = 0;
  if (lease == 0) co_return Error(ErrorCode::not_held, "not holding the lock");
  LeaseRevokeRequest req;
  req.id = lease;
  Result<LeaseRevokeResponse> revoked = co_await ctx_.kv().lease_revoke(req);
  if (!revoked.ok()) co_return revoked.error();
  co_return Result<void>();
}

void register_lease_lock() {
  if (find_algorithm("lease-lock")) return;
  AlgorithmInfo info;
  info.name = "lease-lock";
  info.summary = "the example's own lock: a create-if-absent txn under a kept-alive lease";
  info.options = {{"lease_ttl_seconds", 10, "lease TTL"}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return std::make_unique<LeaseLock>(ctx, setup.lock_name, setup.options.at("lease_ttl_seconds"));
  };
  register_algorithm(std::move(info));
}

}  // namespace example
