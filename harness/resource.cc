#include "lockstep/harness/resource.h"

#include "lockstep/checker/resource_checker.h"

namespace lockstep {

Task<Result<ResourceRead>> GuardedEtcdResource::read(std::int64_t) {
  RangeRequest get;
  get.key = data_key_;
  Result<RangeResponse> r = co_await kv_.range(get);
  if (!r.ok()) co_return r.error();
  ResourceRead out;
  std::int64_t base = 0, token = 0;
  if (!r.value().kvs.empty() && !parse_guarded_value(r.value().kvs[0].value, out.value, base, token))
    co_return Error(ErrorCode::invalid_argument, "the data key holds no counter");
  co_return out;
}

Task<Result<ResourceWrite>> GuardedEtcdResource::write(std::int64_t base, std::int64_t value,
                                                       std::int64_t token) {
  TxnRequest txn;
  txn.compare.push_back(
      Compare::create_revision_of(grant_.key, CompareResult::equal, grant_.key_revision));
  PutRequest put;
  put.key = data_key_;
  put.value = format_guarded_value(value, base, token);
  txn.success.push_back(RequestOp{put});
  Result<TxnResponse> r = co_await kv_.txn(std::move(txn));
  if (!r.ok()) co_return r.error();
  if (!r.value().succeeded)
    co_return Error(ErrorCode::rejected, "the guard failed: the lock key is gone or changed");
  co_return ResourceWrite{r.value().header.revision};
}

}  // namespace lockstep
