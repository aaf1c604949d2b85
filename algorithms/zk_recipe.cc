// zk-recipe: ZooKeeper's lock recipe mapped onto etcd leases and create revisions.
//
// Where it comes from: ZooKeeper's lock recipe, as the section "基于 Zookeeper 实现分布式锁"
//   (a lock on ZooKeeper) of a tutorial on distributed locks tells it (see docs/algorithms.md):
//   create an ephemeral sequential child under /lock; list the children; the smallest holds;
//   otherwise watch the next smaller child, and on its notification list again; delete the own
//   child to release. (Apache Curator's InterProcessMutex is the production version; it deletes
//   its child on timeout.)
// Mapping: the ZooKeeper session is an etcd lease kept alive by a Session; the ephemeral
//   sequential child is `<name>/<lease id hex>` put under that lease, its sequence number is
//   its create revision. ZooKeeper's exists(predecessor, watch) is atomic with the read; the
//   faithful mapping is a watch that starts just after the listing's revision, so a delete in
//   between is not missed. If the own key is no longer listed, the session expired
//   (ZooKeeper's SessionExpired).
// What it promises: mutual exclusion and FIFO fairness while sessions stay alive.
// On etcd it also needs what ZooKeeper's ordering gives for free: a create applied after the
//   delete that cleaned it up leaves an orphan key under the live session; the waiter deletes
//   its own stale keys when it lists (see wait_for_turn; lockstep's demo found the orphan,
//   scenarios/regressions/zk-recipe-delayed-create-orphans-a-key.json).
// What it gets wrong: only the inherent lease problems. A holder paused or partitioned past
//   its TTL still believes it holds the lock after etcd deleted its key (ZooKeeper has the
//   same problem with session timeouts).
// Options: lease_ttl_seconds = 60. The tutorial gives no session timeout; 60 s is Curator's
//   default session timeout (and etcd's concurrency session default).
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lockstep/algorithms/registry.h"
#include "lockstep/algorithms/session.h"
#include "lockstep/algorithms/watch_wait.h"

namespace lockstep {
namespace {

class ZkRecipe : public Lock {
 public:
  ZkRecipe(NodeContext& ctx, const LockSetup& setup)
      : ctx_(ctx),
        prefix_(setup.lock_name + "/"),
        ttl_seconds_(setup.options.at("lease_ttl_seconds")) {}

  LockCapabilities capabilities() const override { return LockCapabilities{}; }

  Task<Result<LockGrant>> acquire(LockMode, MonoTime deadline) override {
    // A client whose session expired opens a new one, as a ZooKeeper client must.
    Result<void> live = co_await ensure_live_session(&ctx_, &session_, ttl_seconds_);
    if (!live.ok()) co_return live.error();
    // create(/lock/lock-, EPHEMERAL_SEQUENTIAL)
    char hex[32];
    std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(session_->lease()));
    // A sequential node's name is unique per create: the attempt number keeps it so here, so
    // that a delete of an earlier attempt still in flight can never remove this one.
    session_key_prefix_ = prefix_ + hex + "-";
    my_key_ = session_key_prefix_ + std::to_string(++attempts_);
    PutRequest put;
    put.key = my_key_;
    put.lease = session_->lease();
    Result<PutResponse> created = co_await ctx_.kv().put(std::move(put));
    if (!created.ok()) {
      // The node may exist (an indeterminate create): remove it rather than leave an orphan
      // that would block every later waiter for as long as this session lives.
      if (created.error().indeterminate()) (void)co_await delete_own_key();
      co_return created.error();
    }
    my_revision_ = created.value().header.revision;

    Result<void> turn = co_await wait_for_turn(deadline);
    if (!turn.ok()) {
      // Curator deletes its node when it gives up (deleteOurPath); a lost session has none.
      if (turn.error().code != ErrorCode::session_expired) (void)co_await delete_own_key();
      co_return turn.error();
    }
    LockGrant grant;
    grant.key = my_key_;
    grant.key_revision = my_revision_;
    grant.fencing_token = my_revision_;
    grant.lease = session_->lease();
    co_return grant;
  }

  Task<Result<void>> release() override {
    if (my_key_.empty()) co_return Error(ErrorCode::not_held, "release without a held lock");
    co_return co_await delete_own_key();
  }

 private:
  // loop: getChildren; lowest holds; else exists(predecessor, watch) and wait for it to go.
  Task<Result<void>> wait_for_turn(MonoTime deadline) {
    for (;;) {
      RangeRequest children;
      children.key = prefix_;
      children.range_end = prefix_range_end(prefix_);
      children.sort_target = SortTarget::create;
      children.sort_order = SortOrder::ascend;
      Result<RangeResponse> listed = co_await ctx_.kv().range(std::move(children));
      if (!listed.ok()) co_return listed.error();
      const std::vector<KeyValue>& kvs = listed.value().kvs;
      // A create of an earlier attempt can be applied after the delete that cleaned it up (the
      // member holding it was paused, then resumed): its key lives under this session's lease
      // and nobody else will ever delete it, so every waiter behind it would wait for as long
      // as this session lives. ZooKeeper cannot do that (it applies a session's requests in
      // order); Curator's protection mode finds its own nodes by a GUID in their names. The
      // lease part of the name is that GUID here: delete every such key but the current one.
      std::vector<std::string> stale;
      for (const KeyValue& kv : kvs)
        if (kv.key != my_key_ && kv.key.starts_with(session_key_prefix_)) stale.push_back(kv.key);
      if (!stale.empty()) {
        for (const std::string& key : stale) {
          Result<void> deleted = co_await delete_key(key);
          if (!deleted.ok()) co_return deleted.error();
        }
        continue;  // list again
      }
      std::string predecessor;
      bool found = false;
      for (std::size_t i = 0; i < kvs.size() && !found; ++i) {
        if (kvs[i].key != my_key_) continue;
        found = true;
        my_revision_ = kvs[i].create_revision;  // the put may have re-written an old key
        if (i > 0) predecessor = kvs[i - 1].key;
      }
      if (!found) co_return Error(ErrorCode::session_expired, "own lock key is gone");
      if (predecessor.empty()) co_return Result<void>();
      Result<void> gone =
          co_await wait_delete(predecessor, listed.value().header.revision + 1, deadline);
      if (!gone.ok()) co_return gone.error();
    }
  }

  // Returns when `key` was deleted at or after `from_revision`, or the watch was cancelled
  // (compaction: the caller lists again).
  Task<Result<void>> wait_delete(std::string key, Revision from_revision, MonoTime deadline) {
    WatchCreateRequest watch;
    watch.key = std::move(key);
    watch.start_revision = from_revision;
    watch.filters = {WatchFilter::noput};
    Result<WatchWaitEnd> end = co_await wait_on_watch(ctx_, std::move(watch), has_delete_event,
                                                      deadline,
                                                      "acquire deadline passed while waiting");
    if (!end.ok()) co_return end.error();
    co_return Result<void>();  // deleted, or cancelled: either way the caller lists again
  }

  // Curator's "guaranteed delete": retried until its outcome is known, or the session (and
  // with it the node) is gone anyway.
  Task<Result<void>> delete_own_key() {
    const std::string key = std::exchange(my_key_, std::string());
    co_return co_await delete_key(key);
  }

  Task<Result<void>> delete_key(std::string key) {
    for (;;) {
      DeleteRangeRequest del;
      del.key = key;
      Result<DeleteRangeResponse> deleted = co_await ctx_.kv().delete_range(std::move(del));
      if (deleted.ok()) co_return Result<void>();
      if (!deleted.error().indeterminate() || !session_ || !session_->alive())
        co_return deleted.error();
      co_await ctx_.sleep_for(milliseconds(100));
    }
  }

  NodeContext& ctx_;
  std::string prefix_;  // ends with '/'
  std::int64_t ttl_seconds_;
  std::unique_ptr<Session> session_;
  std::string session_key_prefix_;  // "<prefix><lease hex>-": every key of this session
  std::string my_key_;
  std::uint64_t attempts_ = 0;
  Revision my_revision_ = 0;
};

}  // namespace

AlgorithmInfo zk_recipe_info() {
  AlgorithmInfo info;
  info.name = "zk-recipe";
  info.summary =
      "ZooKeeper's ephemeral-sequential lock recipe on leases: list, lowest holds, else wait "
      "for the predecessor's delete and list again";
  info.options = {{"lease_ttl_seconds", 60,
                   "session (lease) TTL: no published value; Curator's default session timeout"}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return std::make_unique<ZkRecipe>(ctx, setup);
  };
  return info;
}

}  // namespace lockstep
