// etcd-lock-rpc: etcd's server-side lock service (v3lock Lock and Unlock), as the clients of
// other languages and etcd's gRPC gateway call it.
//
// Where it comes from: etcd's server/etcdserver/api/v3lock/lock.go (3.4.23). Lock(name,
//   lease) runs concurrency.Mutex on the server, for the caller's lease, and answers once the
//   lock is held, with the key it owns (`name/<lease hex>`); Unlock(key) deletes the key. The
//   caller keeps its lease alive itself.
// What it does: acquire opens a session (a lease with keep-alives, TTL session_ttl_seconds)
//   unless one is alive, then calls Lock(name, lease) until it is answered or the acquire's
//   deadline passes; each call ends at the backend's per-call deadline, which gRPC sends to
//   the server with the call. Release calls Unlock(key).
// What it promises: what the server's Mutex promises, while the client's lease lives and the
//   client sees every answer.
// What it gets wrong:
//   - The phantom holder. A Lock call the client gave up on goes on in the server until its
//     deadline reaches the server too: a grant that crosses it (or a Txn already proposed, or
//     a clean-up Delete that fails) leaves the key held under the client's still-live lease
//     while the client believes its acquire failed. Nobody gets the lock until that client
//     calls Lock again (the server finds its key and answers at once) or its lease ends.
//   - The server runs 3.4.23's Mutex, which does not read its own key after waiting: a waiter
//     whose lease expired while the server waited is answered with the lock (etcd issue 11456,
//     on the server side).
// Options: session_ttl_seconds = 60 (concurrency.NewSession's default).
#include <memory>

#include "lockstep/algorithms/registry.h"
#include "lockstep/algorithms/session.h"

namespace lockstep {

namespace {

class EtcdLockRpc final : public Lock {
 public:
  EtcdLockRpc(NodeContext& ctx, std::string name, std::int64_t session_ttl_seconds)
      : ctx_(ctx), name_(std::move(name)), session_ttl_seconds_(session_ttl_seconds) {}

  LockCapabilities capabilities() const override {
    LockCapabilities c;
    c.blocking = true;
    return c;
  }

  Task<Result<LockGrant>> acquire(LockMode, MonoTime deadline) override {
    Result<void> live = co_await ensure_live_session(&ctx_, &session_, session_ttl_seconds_);
    if (!live.ok()) co_return live.error();
    for (;;) {
      LockRequest request;
      request.name = name_;
      request.lease = session_->lease();
      Result<LockResponse> locked = co_await ctx_.kv().lock(std::move(request));
      if (locked.ok()) {
        key_ = locked->key;
        LockGrant grant;
        grant.key = key_;
        grant.lease = session_->lease();
        // The answer carries no create revision (its header is the server's last read).
        co_return grant;
      }
      // A definite refusal (the lease is gone, a bad name) will not change by asking again.
      if (locked.error().outcome == Outcome::definite) co_return locked.error();
      if (ctx_.monotonic_now() >= deadline)
        co_return Error(ErrorCode::deadline_exceeded,
                        "acquire deadline passed (last Lock call: " + locked.error().message + ")");
    }
  }

  Task<Result<void>> release() override {
    if (key_.empty()) co_return Error(ErrorCode::not_held, "no key to unlock");
    UnlockRequest request;
    request.key = key_;
    Result<UnlockResponse> unlocked = co_await ctx_.kv().unlock(std::move(request));
    key_.clear();
    if (!unlocked.ok()) co_return unlocked.error();
    co_return Result<void>();
  }

 private:
  NodeContext& ctx_;
  std::string name_;
  std::int64_t session_ttl_seconds_;
  std::unique_ptr<Session> session_;
  std::string key_;  // the key the last Lock answered with, until released
};

}  // namespace

AlgorithmInfo etcd_lock_rpc_info() {
  AlgorithmInfo info;
  info.name = "etcd-lock-rpc";
  info.summary =
      "etcd's server-side lock service (v3lock Lock/Unlock, 3.4.23): the server runs the mutex "
      "for the client's lease; a Lock the client gave up on can still be granted";
  info.capabilities.blocking = true;
  info.options = {{"session_ttl_seconds", 60, "the client's lease TTL (NewSession's default)"}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return std::make_unique<EtcdLockRpc>(ctx, setup.lock_name,
                                         setup.options.at("session_ttl_seconds"));
  };
  return info;
}

}  // namespace lockstep
