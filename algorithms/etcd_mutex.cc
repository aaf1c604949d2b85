#include "lockstep/algorithms/etcd_mutex.h"
#include "lockstep/algorithms/watch_wait.h"

#include <algorithm>
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
    const KeyValue& predecessor = resp.value().kvs[0];
    // No co_await inside ?: (GCC miscompiles a conditional of two awaits).
    Result<void> deleted;
    if (options_.watch_from_current_revision)
      deleted = co_await wait_delete_watching_from_now(predecessor.key,
                                                       predecessor.create_revision, deadline);
    else
      deleted = co_await wait_delete(predecessor.key, resp.value().header.revision, deadline);
    if (!deleted.ok()) co_return deleted.error();
  }
}

namespace {

// The end of a wait for a delete. Go's waitDelete returns the watch's error: a cancelled watch
// (a compacted start revision) fails the acquire.
Result<void> delete_waited(Result<WatchWaitEnd> end) {
  if (!end.ok()) return end.error();
  if (end.value().cancelled)
    return Error(ErrorCode::compacted, Outcome::definite, "watch cancelled: " + end.value().cancel_reason);
  return Result<void>();
}

}  // namespace

Task<Result<void>> EtcdMutex::wait_delete(std::string key, Revision from_revision,
                                          MonoTime deadline) {
  WatchCreateRequest req;
  req.key = std::move(key);
  req.start_revision = from_revision;
  co_return delete_waited(co_await wait_on_watch(ctx_, std::move(req), has_delete_event, deadline,
                                                 "acquire deadline passed"));
}

Task<Result<void>> EtcdMutex::wait_delete_watching_from_now(std::string key,
                                                            Revision create_revision,
                                                            MonoTime deadline) {
  // A watch is synced when its start revision is above the store's revision at the moment
  // etcd registers it. "From now" means the revision in the created reply's header + 1, taken
  // just before registering: a write applied in between leaves the watch unsynced, and its
  // events wait for the 100 ms catch-up loop. A read after the watch is created tells: if it
  // saw no revision at or above the watch's start, nothing was written in between and the
  // watch is synced. Otherwise the waiter gives the watch kUnsyncedPatience (a synced one
  // delivers a delete in that time as well), then reads and watches again, now starting
  // explicitly after its last read, which is safe: that read saw the key alive, so its delete
  // comes later. The last try waits on its watch, synced or not.
  constexpr int kTries = 3;
  constexpr Duration kUnsyncedPatience = milliseconds(10);
  Revision start_revision = 0;  // from now
  for (int attempt = 1;; ++attempt) {
    WatchCreateRequest req;
    req.key = key;
    req.start_revision = start_revision;
    Result<std::unique_ptr<WatchStream>> stream = co_await ctx_.kv().watch(std::move(req));
    if (!stream.ok()) co_return stream.error();
    const Revision watch_start = start_revision != 0
                                     ? start_revision
                                     : stream.value()->created_header().revision + 1;
    // Served after the watch exists. The same incarnation of the key still there: its delete
    // is later and reaches the watch. Gone, or a newer incarnation (the same session created
    // the name again, after us): nothing to wait for, and waiting on the newer one would wait
    // on a client that waits on us.
    RangeRequest still_there;
    still_there.key = key;
    Result<RangeResponse> read = co_await ctx_.kv().range(std::move(still_there));
    if (!read.ok()) co_return read.error();
    if (read.value().kvs.empty() || read.value().kvs[0].create_revision != create_revision)
      co_return Result<void>();
    const Revision read_revision = read.value().header.revision;
    const bool maybe_unsynced = read_revision >= watch_start && attempt < kTries;
    const MonoTime wait_until =
        maybe_unsynced ? std::min(deadline, ctx_.monotonic_now() + kUnsyncedPatience) : deadline;
    Result<WatchWaitEnd> end = co_await wait_on_stream(ctx_, *stream.value(), has_delete_event,
                                                       wait_until, "acquire deadline passed");
    if (!end.ok()) {
      const bool patience_ran_out = end.error().code == ErrorCode::deadline_exceeded &&
                                    wait_until < deadline;
      if (!patience_ran_out) co_return end.error();
      start_revision = read_revision + 1;  // this watch is dropped (cancelled) for a new one
      continue;
    }
    co_return delete_waited(std::move(end));
  }
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
