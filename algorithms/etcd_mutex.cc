#include "lockstep/algorithms/etcd_mutex.h"
#include "lockstep/algorithms/watch_wait.h"

#include <cstdio>
#include <utility>

namespace lockstep {

EtcdMutex::EtcdMutex(NodeContext& ctx, std::string prefix, EtcdMutexOptions options)
    : ctx_(ctx), prefix_(std::move(prefix)), options_(options) {
  if (prefix_.empty() || prefix_.back() != '/') prefix_ += '/';
}

EtcdMutex::~EtcdMutex() = default;

LockCapabilities EtcdMutex::capabilities() const {
  LockCapabilities c;
  c.blocking = true;
  c.fencing = options_.fencing;
  c.guarded_writes = options_.guarded_writes;
  return c;
}

Task<Result<LockGrant>> EtcdMutex::acquire(LockMode, MonoTime deadline) {
  // A session whose lease the client gave up on is replaced, as an application would do
  // after session.Done().
  Result<void> live = co_await ensure_live_session(&ctx_, &session_, options_.session_ttl_seconds);
  if (!live.ok()) co_return live.error();
  char hex[32];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(session_->lease()));
  my_key_ = prefix_ + hex;

  // tryAcquire: create the own key if absent (or reuse it), and read the owner in one txn.
  TxnRequest txn;
  txn.compare.push_back(Compare::create_revision_of(my_key_, CompareResult::equal, 0));
  PutRequest put;
  put.key = my_key_;
  put.lease = session_->lease();
  RangeRequest get_own;
  get_own.key = my_key_;
  RangeRequest get_owner;
  get_owner.key = prefix_;
  get_owner.range_end = prefix_range_end(prefix_);
  get_owner.sort_target = SortTarget::create;
  get_owner.sort_order = SortOrder::ascend;
  get_owner.limit = 1;
  txn.success = {RequestOp{put}, RequestOp{get_owner}};
  txn.failure = {RequestOp{get_own}, RequestOp{get_owner}};
  Result<TxnResponse> resp = co_await ctx_.kv().txn(std::move(txn));
  if (!resp.ok()) co_return resp.error();
  my_revision_ = resp.value().header.revision;
  if (!resp.value().succeeded) {
    const auto& own = std::get<RangeResponse>(resp.value().responses[0].response);
    if (own.kvs.empty()) co_return Error(ErrorCode::session_expired, "own key vanished");
    my_revision_ = own.kvs[0].create_revision;
  }
  const auto& owner = std::get<RangeResponse>(resp.value().responses[1].response);
  LockGrant grant;
  grant.key = my_key_;
  grant.key_revision = my_revision_;
  grant.lease = session_->lease();
  grant.fencing_token = my_revision_;
  if (owner.kvs.empty() || owner.kvs[0].create_revision == my_revision_) co_return grant;

  // Wait for every key created before ours to be deleted.
  Result<void> waited = co_await wait_deletes(my_revision_ - 1, deadline);
  if (!waited.ok()) {
    (void)co_await delete_own_key_or_abandon_session();
    co_return waited.error();
  }
  if (options_.recheck_own_key) {
    // 3.5: make sure the session is not expired and the own key still exists.
    RangeRequest check;
    check.key = my_key_;
    Result<RangeResponse> own = co_await ctx_.kv().range(check);
    if (!own.ok()) {
      (void)co_await delete_own_key_or_abandon_session();
      co_return own.error();
    }
    if (own.value().kvs.empty())
      co_return Error(ErrorCode::session_expired, "the lock key was lost while waiting");
  }
  co_return grant;
}

Task<Result<void>> EtcdMutex::wait_deletes(Revision max_create_revision, MonoTime deadline) {
  for (;;) {
    RangeRequest newest_older;
    newest_older.key = prefix_;
    newest_older.range_end = prefix_range_end(prefix_);
    newest_older.sort_target = SortTarget::create;
    newest_older.sort_order = SortOrder::descend;
    newest_older.limit = 1;
    newest_older.max_create_revision = max_create_revision;
    Result<RangeResponse> resp = co_await ctx_.kv().range(newest_older);
    if (!resp.ok()) co_return resp.error();
    if (resp.value().kvs.empty()) co_return Result<void>();
    Result<void> deleted =
        co_await wait_delete(resp.value().kvs[0].key, resp.value().header.revision, deadline);
    if (!deleted.ok()) co_return deleted.error();
  }
}

Task<Result<void>> EtcdMutex::wait_delete(std::string key, Revision from_revision,
                                          MonoTime deadline) {
  WatchCreateRequest req;
  req.key = std::move(key);
  req.start_revision = from_revision;
  Result<WatchWaitEnd> end = co_await wait_on_watch(ctx_, std::move(req), has_delete_event,
                                                    deadline, "acquire deadline passed");
  if (!end.ok()) co_return end.error();
  if (end.value().cancelled)  // Go's waitDelete returns the watch's error: the acquire fails
    co_return Error(ErrorCode::compacted, Outcome::definite,
                    "watch cancelled: " + end.value().cancel_reason);
  co_return Result<void>();
}

Task<Result<void>> EtcdMutex::delete_key(std::string key, Revision revision) {
  DeleteRangeRequest del;
  del.key = key;
  if (!options_.safe_unlock) {
    Result<DeleteRangeResponse> r = co_await ctx_.kv().delete_range(std::move(del));
    if (!r.ok()) co_return r.error();
    co_return Result<void>();
  }
  // A key of the same name created later (a newer incarnation, same session) is not ours: the
  // compare leaves it, and a failed compare means our incarnation is gone already.
  TxnRequest del_if_mine;
  del_if_mine.compare.push_back(Compare::create_revision_of(key, CompareResult::equal, revision));
  del_if_mine.success.push_back(RequestOp{std::move(del)});
  Result<TxnResponse> r = co_await ctx_.kv().txn(std::move(del_if_mine));
  if (!r.ok()) co_return r.error();
  co_return Result<void>();
}

// Deletes the own key; when the outcome is unknown, abandons the session. A delete whose
// outcome is unknown may still be applied later (a paused member may hold it), and the next
// acquire of the same session would find the same key (or re-create the same name, derived
// from the lease), which that late delete would then remove while its owner holds the lock.
// With a new session the next key has a new name. Its lease is revoked (or, if that fails
// too, expires by itself).
Task<Result<void>> EtcdMutex::delete_own_key_or_abandon_session() {
  const std::string key = std::exchange(my_key_, std::string());
  const Revision revision = std::exchange(my_revision_, -1);
  Result<void> r = co_await delete_key(key, revision);
  if (r.ok() || !r.error().indeterminate() || !session_) co_return r;
  if (options_.abandon_session_on_unknown_delete) {
    std::unique_ptr<Session> abandoned = std::move(session_);
    (void)co_await abandoned->close();  // revoking deletes the key now, if it gets through
    co_return r;
  }
  // The former port: the same delete again, the session kept. The first may still come late.
  for (int attempt = 0; attempt < 3 && !r.ok() && r.error().indeterminate(); ++attempt)
    r = co_await delete_key(key, revision);
  co_return r;
}

Task<Result<void>> EtcdMutex::release() {
  if (my_key_.empty()) co_return Error(ErrorCode::not_held, "release without a held lock");
  co_return co_await delete_own_key_or_abandon_session();
}

}  // namespace lockstep
