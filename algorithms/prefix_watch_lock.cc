// prefix-watch-lock: the aetcd `Lock` of a Python asyncio tutorial, as published.
//
// Where it comes from: the blog post "分布式锁(3)--基于Etcd的分布式锁实现" ("Distributed locks
//   (3): a distributed lock on etcd", see docs/algorithms.md), over the aetcd client.
// What it does: `async with Lock(name, client, ttl)` starts a watchdog that refreshes the lease
//   every ttl/3, then acquire: grant a lease, put `<name>/<uuid>` with it (the put's revision
//   is "my revision"), get every key with the prefix `<name>` (no slash) sorted by create
//   revision. If the first one has my revision, hold. Otherwise find my key in the list and
//   watch the key before it for DELETE events, from NO start revision, and return as soon as
//   any event arrives. Release (__aexit__) cancels the watchdog and deletes my key; the lease
//   is never revoked (it expires ttl later).
// What it promises: a fair (FIFO) lock with no polling.
// What it gets wrong:
//   - missed wake-up: if the predecessor is deleted between the get and the watch, the watch
//     (starting "now") never sees it and the client waits forever (here: until its deadline);
//   - the predecessor need not be the holder: when a waiter ahead of me leaves (its lease
//     expires or it gives up), its delete wakes me while an earlier client still holds;
//   - it never re-checks its own key, so it holds on after its lease expired;
//   - aenter ignores acquire()'s result, so a watch that ends without an event (cancelled)
//     also counts as acquired.
// Choices of this port: the deadline (the original has none; a caller would wrap it in a
//   timeout) stops the watchdog and leaves the key to expire with the lease, as a cancelled
//   __aenter__ does (__aexit__ is not run); a failed refresh ends the watchdog, as the
//   uncaught exception would end its asyncio task.
// Options: lease_ttl_seconds = 1 (the article's demo uses Lock("demo", client, 1); etcd raises
//   it to its minimum TTL, 2 s by default).
#include <memory>

#include "lockstep/algorithms/random_id.h"
#include "lockstep/algorithms/registry.h"
#include "lockstep/algorithms/watch_wait.h"

namespace lockstep {
namespace {

struct WatchdogState {
  LeaseId lease = 0;  // 0 until acquire granted one (refresh() raises ValueError, ignored)
};

Task<void> watchdog_loop(NodeContext* ctx, Duration interval, std::shared_ptr<WatchdogState> s) {
  for (;;) {
    if (s->lease != 0) {
      LeaseKeepAliveRequest req;
      req.id = s->lease;
      Result<LeaseKeepAliveResponse> refreshed = co_await ctx->kv().lease_keep_alive(req);
      // An error ends the task (an exception out of refresh()); a reply with TTL 0 (the
      // lease is gone) is not looked at.
      if (!refreshed.ok()) co_return;
    }
    co_await ctx->sleep_for(interval);
  }
}

class PrefixWatchLock : public Lock {
 public:
  PrefixWatchLock(NodeContext& ctx, const LockSetup& setup)
      : ctx_(ctx),
        prefix_(setup.lock_name),
        ttl_seconds_(setup.options.at("lease_ttl_seconds")) {}

  LockCapabilities capabilities() const override { return LockCapabilities{}; }

  Task<Result<LockGrant>> acquire(LockMode, MonoTime deadline) override {
    // Lock(name, client, ttl): a new object (a new uuid) for every `async with`.
    name_ = prefix_ + "/" + random_hex_id(ctx_.rng());
    // __aenter__: the watchdog starts before acquire().
    watchdog_state_ = std::make_shared<WatchdogState>();
    watchdog_ = ctx_.spawn(
        watchdog_loop(&ctx_, milliseconds(ttl_seconds_ * 1000 / 3), watchdog_state_), "watchdog");
    Result<LockGrant> acquired = co_await acquire_steps(deadline);
    // Any failure escapes __aenter__: __aexit__ does not run, the key is not deleted. The
    // watchdog is stopped so the lease (and the key) expire.
    if (!acquired.ok()) watchdog_.cancel();
    co_return acquired;
  }

  // __aexit__: cancel the watchdog, then release() deletes my key. No revoke.
  Task<Result<void>> release() override {
    watchdog_.cancel();
    DeleteRangeRequest del;
    del.key = name_;
    Result<DeleteRangeResponse> deleted = co_await ctx_.kv().delete_range(std::move(del));
    if (!deleted.ok()) co_return deleted.error();
    co_return Result<void>();
  }

 private:
  Task<Result<LockGrant>> acquire_steps(MonoTime deadline) {
    // 1. lease
    LeaseGrantRequest grant_req;
    grant_req.ttl_seconds = ttl_seconds_;
    Result<LeaseGrantResponse> lease = co_await ctx_.kv().lease_grant(grant_req);
    if (!lease.ok()) co_return lease.error();
    watchdog_state_->lease = lease.value().id;
    LockGrant grant;
    grant.key = name_;
    grant.lease = lease.value().id;

    // 2. put my key
    PutRequest put;
    put.key = name_;
    put.lease = lease.value().id;
    Result<PutResponse> created = co_await ctx_.kv().put(std::move(put));
    if (!created.ok()) co_return created.error();
    const Revision self_revision = created.value().header.revision;
    grant.key_revision = self_revision;
    grant.fencing_token = self_revision;

    // 3. get_prefix(prefix, sort_target="create"): sort order NONE sorts ascending.
    RangeRequest all;
    all.key = prefix_;
    all.range_end = prefix_range_end(prefix_);
    all.sort_target = SortTarget::create;
    Result<RangeResponse> listed = co_await ctx_.kv().range(std::move(all));
    if (!listed.ok()) co_return listed.error();
    const std::vector<KeyValue>& kvs = listed.value().kvs;
    // (An empty list raises IndexError in the original: the acquire fails.)
    if (kvs.empty()) co_return Error(ErrorCode::session_expired, "no key under the prefix");
    if (kvs[0].create_revision == self_revision) co_return grant;

    // 4. the key just before mine
    std::string watch_key;
    for (std::size_t i = 1; i < kvs.size(); ++i)
      if (kvs[i].create_revision == self_revision) watch_key = kvs[i - 1].key;

    // 5. watch it for DELETE events from now on; any event means "acquired".
    WatchCreateRequest watch;
    // Empty if my key was not listed. etcd does not refuse it: its watch server reads an empty
    // key as "\0", the smallest key, which nobody writes, so the waiter waits until its
    // deadline.
    watch.key = watch_key;
    watch.filters = {WatchFilter::noput};
    Result<WatchWaitEnd> end = co_await wait_on_watch(ctx_, std::move(watch), has_any_event,
                                                      deadline,
                                                      "acquire deadline passed while watching");
    if (!end.ok()) co_return end.error();
    // `async for event in watch: return True`; a stream that ends (cancelled) falls out of
    // the loop, and __aenter__ ignores acquire()'s result: the caller proceeds as holder.
    co_return grant;
  }

  NodeContext& ctx_;
  std::string prefix_;  // the lock name; keys are prefix + "/" + uuid, listed by `prefix`
  std::int64_t ttl_seconds_;
  std::string name_;
  std::shared_ptr<WatchdogState> watchdog_state_;
  SpawnHandle watchdog_;
};

}  // namespace

AlgorithmInfo prefix_watch_lock_info() {
  AlgorithmInfo info;
  info.name = "prefix-watch-lock";
  info.summary =
      "Lock of a Python aetcd tutorial: lowest create revision holds, else watch the "
      "predecessor with no start revision; any event means acquired";
  info.options = {
      {"lease_ttl_seconds", 1, "lease TTL (the article's demo uses 1 s; etcd raises it to 2 s)"}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return std::make_unique<PrefixWatchLock>(ctx, setup);
  };
  return info;
}

}  // namespace lockstep
