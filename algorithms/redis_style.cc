#include "lockstep/algorithms/redis_style.h"

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

}  // namespace lockstep
