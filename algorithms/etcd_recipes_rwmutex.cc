// etcd-recipes-rwmutex: etcd's reader/writer lock recipe (contrib/recipes RWMutex).
//
// Where it comes from: go.etcd.io/etcd/contrib/recipes (rwmutex.go, key.go, watch.go), as
//   shipped with etcd 3.4.23.
// What it does: each acquire creates a unique key under the session's lease,
//   `<name>/read/<ns>` for a reader or `<name>/write/<ns>` for a writer, where <ns> is the
//   client's wall clock in nanoseconds (newUniqueKV: a txn if version(key) == 0 then put,
//   trying the next nanosecond when the name is taken); the txn's revision orders it. Then it
//   waits in a loop: a writer for the last key under `<name>/` (any kind), a reader for the
//   last key under `<name>/write`, with a mod revision below its own (a get sorted by mod
//   revision, descending, limit 1, max_mod_revision = own - 1); when there is none it holds
//   the lock, else it watches that key from its own revision until the key is deleted
//   (WaitEvents), and looks again. Release deletes the own key.
// What it promises: many readers or one writer, in the order the keys were created; the
//   correct baseline for `rw-lock` (whose reader and writer check, then act).
// What it gets wrong: the inherent limit of leases, like etcd-mutex-3.4: a waiter whose
//   session expired while it waited is not told so (the recipe never reads its own key
//   again), and a holder paused past its TTL keeps believing it holds the lock. And its create
//   is not idempotent: when a client library or proxy retries it (the `duplicate` fault), the
//   retry finds the key the first copy created, newUniqueKV takes it for another client's and
//   creates the next name, and the first key waits under the live session for ever, ahead of
//   everyone (a liveness failure etcd-mutex, whose key name is fixed, does not have).
// lockstep's own choices, not upstream's: the recipe's waits have no deadline (its Lock and
//   RLock take no context); here a wait ends at the acquire deadline and the own key is
//   deleted then. When a delete of the own key fails (or its outcome is unknown, see
//   etcd_mutex.h), or the own key's creation's outcome is unknown, the session is abandoned
//   (its lease revoked): the key, never used again, would otherwise block every later acquire
//   under a session kept alive for ever. A session whose lease the client gave up on is
//   replaced at the next acquire.
// Options: lease_ttl_seconds = 60 (concurrency.NewSession's default TTL).
#include <memory>

#include "lockstep/algorithms/registry.h"
#include "lockstep/algorithms/session.h"
#include "lockstep/algorithms/watch_wait.h"

namespace lockstep {
namespace {

class EtcdRecipesRwMutex : public Lock {
 public:
  EtcdRecipesRwMutex(NodeContext& ctx, const LockSetup& setup)
      : ctx_(ctx),
        prefix_(setup.lock_name + "/"),
        ttl_seconds_(setup.options.at("lease_ttl_seconds")) {}

  LockCapabilities capabilities() const override {
    LockCapabilities c;
    c.shared_mode = true;
    return c;
  }

  Task<Result<LockGrant>> acquire(LockMode mode, MonoTime deadline) override {
    Result<void> live = co_await ensure_live_session(&ctx_, &session_, ttl_seconds_);
    if (!live.ok()) co_return live.error();
    const bool reader = mode == LockMode::shared;
    Result<void> created = co_await create_unique_key(prefix_ + (reader ? "read" : "write"));
    if (!created.ok()) {
      // A key created with its reply lost would wait under a live session for ever, its name
      // known to nobody: let the session go, and the key with it.
      if (created.error().indeterminate()) co_await abandon_session();
      co_return created.error();
    }
    // RLock waits for earlier writers, Lock for every earlier key.
    const std::string blockers = reader ? prefix_ + "write" : prefix_;
    for (;;) {
      Result<bool> done = co_await wait_on_last_rev(blockers, deadline);
      if (!done.ok()) {
        (void)co_await delete_own_key_or_abandon_session();
        co_return done.error();
      }
      if (done.value()) break;
    }
    LockGrant grant;
    grant.key = my_key_;
    grant.key_revision = my_revision_;
    grant.lease = session_->lease();
    co_return grant;
  }

  Task<Result<void>> release() override {
    if (my_key_.empty()) co_return Error(ErrorCode::not_held, "release without a held lock");
    co_return co_await delete_own_key_or_abandon_session();
  }

 private:
  // newUniqueEphemeralKey: `<prefix>/<wall clock ns>` created under the session's lease.
  Task<Result<void>> create_unique_key(const std::string& prefix) {
    for (;;) {
      const std::string key =
          prefix + "/" + std::to_string(ctx_.wall_now().time_since_epoch().count());
      TxnRequest put_new;
      put_new.compare.push_back(Compare::version_of(key, CompareResult::equal, 0));
      PutRequest put;
      put.key = key;
      put.lease = session_->lease();
      put_new.success.push_back(RequestOp{put});
      Result<TxnResponse> r = co_await ctx_.kv().txn(std::move(put_new));
      if (!r.ok()) co_return r.error();
      if (!r.value().succeeded) continue;  // ErrKeyExists: the next nanosecond
      my_key_ = key;
      my_revision_ = r.value().header.revision;
      co_return Result<void>();
    }
  }

  // waitOnLastRev: true when no key under `blockers` is older than the own key; otherwise
  // waits for the newest older one to be deleted and returns false (look again).
  Task<Result<bool>> wait_on_last_rev(const std::string& blockers, MonoTime deadline) {
    RangeRequest last;
    last.key = blockers;
    last.range_end = prefix_range_end(blockers);
    last.sort_target = SortTarget::mod;
    last.sort_order = SortOrder::descend;
    last.limit = 1;
    last.max_mod_revision = my_revision_ - 1;
    Result<RangeResponse> r = co_await ctx_.kv().range(std::move(last));
    if (!r.ok()) co_return r.error();
    if (r.value().kvs.empty()) co_return true;
    WatchCreateRequest w;
    w.key = r.value().kvs[0].key;
    w.start_revision = my_revision_;
    // A cancelled watch (a compacted start revision) closes WaitEvents' channel with no
    // event and no error: the recipe looks again.
    Result<WatchWaitEnd> end = co_await wait_on_watch(ctx_, std::move(w), has_delete_event,
                                                      deadline, "acquire deadline passed");
    if (!end.ok()) co_return end.error();
    co_return false;
  }

  // RemoteKV.Delete; a delete that failed, or whose outcome is unknown, abandons the session.
  Task<Result<void>> delete_own_key_or_abandon_session() {
    DeleteRangeRequest del;
    del.key = std::exchange(my_key_, std::string());
    my_revision_ = 0;
    Result<DeleteRangeResponse> r = co_await ctx_.kv().delete_range(std::move(del));
    if (r.ok()) co_return Result<void>();
    // Unlike etcd-mutex's, the name is never used again: a key left behind under a live
    // session would block every later acquire for ever. Close the session, and the key goes.
    co_await abandon_session();
    co_return r.error();
  }

  Task<void> abandon_session() {
    if (!session_) co_return;
    std::unique_ptr<Session> abandoned = std::move(session_);
    (void)co_await abandoned->close();  // revoking deletes its keys now, if it gets through
  }

  NodeContext& ctx_;
  std::string prefix_;  // the lock name and '/'
  std::int64_t ttl_seconds_;
  std::unique_ptr<Session> session_;
  std::string my_key_;
  Revision my_revision_ = 0;
};

}  // namespace

AlgorithmInfo etcd_recipes_rwmutex_info() {
  AlgorithmInfo info;
  info.name = "etcd-recipes-rwmutex";
  info.summary =
      "etcd's contrib/recipes RWMutex: ordered read/ and write/ keys under a session; a writer "
      "waits for every older key, a reader for older writers";
  info.capabilities.shared_mode = true;
  info.options = {{"lease_ttl_seconds", 60, "session TTL (concurrency.NewSession's default 60 s)"}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return std::make_unique<EtcdRecipesRwMutex>(ctx, setup);
  };
  return info;
}

}  // namespace lockstep
