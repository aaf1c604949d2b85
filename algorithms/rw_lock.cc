// rw-lock: `RWLock` of a Go etcd tutorial, as published.
//
// Where it comes from: the section "读写锁实现" (read-write lock) of the tutorial behind
//   txn-retry-lock (see docs/algorithms.md).
// What it does (both modes are one attempt each; the workload polls):
//   - reader (LockMode::shared): get `<name>/write`; if it exists the lock is busy. Otherwise
//     take a TutorialEtcdLock (see tutorial_etcd_lock.h) on `<name>/read/<uuid>`.
//   - writer (LockMode::exclusive): get every key under `<name>/read/`; if there is one the
//     lock is busy. Otherwise take the TutorialEtcdLock on `<name>/write` (one attempt).
//   - release: a reader unlocks every reader lock it holds (stopping at the first error, as
//     RUnlock does); a writer unlocks the write lock (delete unconditionally, then revoke).
// What it promises: many readers or one writer.
// What it gets wrong: both checks are check-then-act. A reader that found no writer and a
//   writer that found no reader each go on to create their key, and both are inside together
//   with no fault at all. Writers exclude each other only through the create-if-absent txn,
//   so writer/writer is as safe as txn-try-lock (lease problems aside).
// Options: lease_ttl_seconds = 10 (every EtcdLock grants 10 s).
#include <map>
#include <memory>
#include <optional>

#include "lockstep/algorithms/random_id.h"
#include "lockstep/algorithms/registry.h"
#include "lockstep/algorithms/tutorial_etcd_lock.h"

namespace lockstep {
namespace {

class RwLock : public Lock {
 public:
  RwLock(NodeContext& ctx, const LockSetup& setup)
      : ctx_(ctx),
        prefix_(setup.lock_name),
        lease_ttl_seconds_(setup.options.at("lease_ttl_seconds")),
        write_lock_(ctx, setup.lock_name + "/write", lease_ttl_seconds_) {}

  LockCapabilities capabilities() const override {
    LockCapabilities c;
    c.blocking = false;
    c.shared_mode = true;
    return c;
  }

  Task<Result<LockGrant>> acquire(LockMode mode, MonoTime) override {
    if (mode == LockMode::shared) co_return co_await read_lock();
    co_return co_await write_lock();
  }

  Task<Result<void>> release() override {
    if (!held_) co_return Error(ErrorCode::not_held, "release without a held lock");
    const LockMode mode = *held_;
    held_.reset();
    if (mode == LockMode::exclusive) co_return co_await write_lock_.unlock();
    co_return co_await read_unlock();
  }

 private:
  // RLock
  Task<Result<LockGrant>> read_lock() {
    RangeRequest writer;
    writer.key = prefix_ + "/write";
    Result<RangeResponse> found = co_await ctx_.kv().range(std::move(writer));
    if (!found.ok()) co_return found.error();
    if (!found.value().kvs.empty()) co_return Error(ErrorCode::lock_busy, "a writer holds it");
    // Nothing stops a writer from taking the write key right now.
    const std::string id = random_hex_id(ctx_.rng());
    auto reader =
        std::make_unique<TutorialEtcdLock>(ctx_, prefix_ + "/read/" + id, lease_ttl_seconds_);
    Result<LockGrant> taken = co_await reader->lock_once();
    if (!taken.ok()) co_return taken.error();
    readers_.emplace(id, std::move(reader));
    held_ = LockMode::shared;
    co_return taken;
  }

  // RUnlock: unlocks every reader lock, stops at the first error (sync.Map.Range returning
  // false); the failed one stays in the map. Go ranges a sync.Map in no fixed order; the ids
  // are random, so ordering by id is as arbitrary and deterministic.
  Task<Result<void>> read_unlock() {
    Result<void> last = Result<void>::success();
    while (!readers_.empty()) {
      auto first = readers_.begin();
      Result<void> unlocked = co_await first->second->unlock();
      if (!unlocked.ok()) {
        last = unlocked;
        break;
      }
      readers_.erase(first);
    }
    co_return last;
  }

  // Lock
  Task<Result<LockGrant>> write_lock() {
    RangeRequest readers;
    readers.key = prefix_ + "/read/";
    readers.range_end = prefix_range_end(readers.key);
    Result<RangeResponse> found = co_await ctx_.kv().range(std::move(readers));
    if (!found.ok()) co_return found.error();
    if (!found.value().kvs.empty()) co_return Error(ErrorCode::lock_busy, "readers hold it");
    // Nothing stops a reader from creating its key right now.
    Result<LockGrant> taken = co_await write_lock_.lock_once();
    if (taken.ok()) held_ = LockMode::exclusive;
    co_return taken;
  }

  NodeContext& ctx_;
  std::string prefix_;
  std::int64_t lease_ttl_seconds_;
  TutorialEtcdLock write_lock_;
  std::map<std::string, std::unique_ptr<TutorialEtcdLock>> readers_;
  std::optional<LockMode> held_;
};

}  // namespace

AlgorithmInfo rw_lock_info() {
  AlgorithmInfo info;
  info.name = "rw-lock";
  info.summary =
      "RWLock of a Go etcd tutorial: readers check for no writer key, writers for no reader "
      "keys, then create theirs (check-then-act)";
  info.capabilities.blocking = false;
  info.capabilities.shared_mode = true;
  info.options = {{"lease_ttl_seconds", 10, "lease TTL of each key (the article grants 10 s)"}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return std::make_unique<RwLock>(ctx, setup);
  };
  return info;
}

}  // namespace lockstep
