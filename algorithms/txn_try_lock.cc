// txn-try-lock: the `EtcdLocker` of a Go blog post, ported as published.
//
// Where it comes from: anyRTC's post "技术分享|基于etcd的分布式锁实现原理及方案" ("etcd-based
//   distributed locks: principles and a solution", see docs/algorithms.md), a distributed lock
//   over etcd's Go client.
// What it does: a lease (5 s by default) is granted and kept alive in the background; acquire
//   is one txn: if create_revision(key) == 0 then put key with the lease, else read the
//   holder; release stops the keep-alive and revokes the lease.
// What it promises: at most one holder while every holder keeps its lease alive.
// What it gets wrong: the holder never learns that its lease expired. A holder paused or
//   partitioned past the TTL still believes it holds the lock while etcd has deleted its key
//   and granted it to another client: mutual exclusion breaks (and a resource write without a
//   fencing token is lost). Its acquire only asks whether the key exists: when an acquire's
//   txn succeeded but its reply was lost, the retry finds the locker's own key, takes it for
//   another holder's and polls for ever while its keep-alives keep that key alive (liveness;
//   found by lockstep explore). And the locker keeps the lease it was built with: once that
//   lease is lost (no keep-alive answered for a TTL), every later acquire fails with "lease
//   not found", for ever (found by lockstep demo, together with a lost acquire reply).
//   It is also a try-lock: acquiring means polling.
#include <memory>

#include "lockstep/algorithms/registry.h"
#include "lockstep/algorithms/session.h"

namespace lockstep {
namespace {

class TxnTryLock : public Lock {
 public:
  TxnTryLock(NodeContext& ctx, const LockSetup& setup)
      : ctx_(ctx), key_(setup.lock_name), ttl_seconds_(setup.options.at("lease_ttl_seconds")) {}

  LockCapabilities capabilities() const override {
    LockCapabilities c;
    c.blocking = false;
    return c;
  }

  Task<Result<LockGrant>> acquire(LockMode, MonoTime) override {
    // The published code grants the lease when the locker is built; a released locker is
    // built anew, so a fresh session is opened for the first attempt after each release.
    if (!session_) {
      session_ = std::make_unique<Session>(ctx_, ttl_seconds_);
      Result<LeaseId> opened = co_await session_->open();
      if (!opened.ok()) {
        session_.reset();
        co_return opened.error();
      }
    }
    TxnRequest txn;
    txn.compare.push_back(Compare::create_revision_of(key_, CompareResult::equal, 0));
    PutRequest put;
    put.key = key_;
    put.value = ctx_.node_name();
    put.lease = session_->lease();
    txn.success.push_back(RequestOp{put});
    RangeRequest get;
    get.key = key_;
    txn.failure.push_back(RequestOp{get});
    Result<TxnResponse> resp = co_await ctx_.kv().txn(std::move(txn));
    if (!resp.ok()) co_return resp.error();
    if (!resp.value().succeeded) co_return Error(ErrorCode::lock_busy, "the lock key exists");
    LockGrant grant;
    grant.key = key_;
    grant.key_revision = resp.value().header.revision;
    grant.lease = session_->lease();
    grant.fencing_token = grant.key_revision;
    co_return grant;
  }

  Task<Result<void>> release() override {
    if (!session_) co_return Error(ErrorCode::not_held, "no lease to revoke");
    std::unique_ptr<Session> session = std::move(session_);
    co_return co_await session->close();
  }

 private:
  NodeContext& ctx_;
  std::string key_;
  std::int64_t ttl_seconds_;
  std::unique_ptr<Session> session_;
};

}  // namespace

AlgorithmInfo txn_try_lock_info() {
  AlgorithmInfo info;
  info.name = "txn-try-lock";
  info.summary =
      "EtcdLocker of a Go blog post (anyRTC): one create-if-absent txn under a kept-alive lease; "
      "breaks when the holder outlives its lease";
  info.capabilities.blocking = false;
  info.options = {{"lease_ttl_seconds", 5, "lease TTL (the published default is 5 s)"}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return std::make_unique<TxnTryLock>(ctx, setup);
  };
  return info;
}

}  // namespace lockstep
