#include "lockstep/algorithms/tutorial_etcd_lock.h"

namespace lockstep {

TutorialEtcdLock::TutorialEtcdLock(NodeContext& ctx, std::string key,
                                   std::int64_t lease_ttl_seconds)
    : ctx_(ctx), key_(std::move(key)), lease_ttl_seconds_(lease_ttl_seconds) {}

TutorialEtcdLock::~TutorialEtcdLock() = default;

Task<Result<LockGrant>> TutorialEtcdLock::lock_once() {
  // Every attempt grants a new lease and starts its keep-alive, as the Go Lock does.
  auto session = std::make_unique<Session>(ctx_, lease_ttl_seconds_);
  Result<LeaseId> opened = co_await session->open();
  if (!opened.ok()) co_return opened.error();

  TxnRequest txn;
  txn.compare.push_back(Compare::create_revision_of(key_, CompareResult::equal, 0));
  PutRequest put;
  put.key = key_;
  put.lease = session->lease();
  txn.success.push_back(RequestOp{put});
  RangeRequest get;
  get.key = key_;
  txn.failure.push_back(RequestOp{get});
  Result<TxnResponse> resp = co_await ctx_.kv().txn(std::move(txn));
  // On failure the Go code calls cancelFunc() only: destroying `session` stops the keep-alive
  // and leaves the lease to expire on its own.
  if (!resp.ok()) co_return resp.error();
  if (!resp.value().succeeded) co_return Error(ErrorCode::lock_busy, "the lock key exists");

  session_ = std::move(session);
  LockGrant grant;
  grant.key = key_;
  grant.key_revision = resp.value().header.revision;
  grant.lease = session_->lease();
  grant.fencing_token = grant.key_revision;
  co_return grant;
}

Task<Result<LockGrant>> TutorialEtcdLock::lock_with_retry(Duration retry_interval,
                                                          MonoTime deadline) {
  for (;;) {
    if (ctx_.monotonic_now() >= deadline)
      co_return Error(ErrorCode::deadline_exceeded, "acquire deadline passed");
    Result<LockGrant> attempt = co_await lock_once();
    if (attempt.ok() || attempt.error().indeterminate()) co_return attempt;
    // select { case <-ctx.Done(): return ctx.Err(); case <-time.After(retryInterval): }
    const Duration left = deadline - ctx_.monotonic_now();
    if (left <= retry_interval) {
      if (left.count() > 0) co_await ctx_.sleep_for(left);
      co_return Error(ErrorCode::deadline_exceeded, "the lock stayed busy until the deadline");
    }
    co_await ctx_.sleep_for(retry_interval);
  }
}

Task<Result<void>> TutorialEtcdLock::unlock() {
  // The published bug: the key is deleted whoever holds it now. If this client's lease
  // expired and another client took the lock, this deletes the other client's key.
  DeleteRangeRequest del;
  del.key = key_;
  Result<DeleteRangeResponse> deleted = co_await ctx_.kv().delete_range(std::move(del));
  // defer: cancelFunc(); lease.Revoke(...) with its error ignored.
  if (session_) {
    std::unique_ptr<Session> session = std::move(session_);
    (void)co_await session->close();
  }
  if (!deleted.ok()) co_return deleted.error();
  co_return Result<void>();
}

}  // namespace lockstep
