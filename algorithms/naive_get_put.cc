// naive-get-put: the textbook mistake, check then act in two separate calls.
//
// Where it comes from: no one source; it is the first lock everybody writes (a GET, then a
//   PUT if the key was absent). The tutorials behind txn-retry-lock and setnx-no-ttl never
//   split the check from the set: they take the lock with one create-if-absent txn, or SETNX,
//   which is atomic by itself. (What the Redis tutorial insists must be one atomic operation is
//   the key and its expiry, SET key value EX n NX: see setnx-then-expire.)
// What it does: acquire reads the key; if a value is there the lock is busy, otherwise it puts
//   the key (value: the client's name). One attempt per acquire: the workload polls. Release
//   deletes the key without looking at whose it is. With lease_ttl_seconds > 0 the key is put
//   under a lease kept alive in the background, the way people "fix" the crash problem.
// What it promises: nothing it can keep.
// What it gets wrong: two clients that both read "absent" before either put both believe
//   they hold the lock: mutual exclusion breaks with no fault at all, just timing. The lease
//   option adds the lease problems (a holder past its TTL) on top.
#include <memory>

#include "lockstep/algorithms/registry.h"
#include "lockstep/algorithms/session.h"

namespace lockstep {
namespace {

class NaiveGetPut : public Lock {
 public:
  NaiveGetPut(NodeContext& ctx, const LockSetup& setup)
      : ctx_(ctx),
        key_(setup.lock_name),
        lease_ttl_seconds_(setup.options.at("lease_ttl_seconds")) {}

  LockCapabilities capabilities() const override {
    LockCapabilities c;
    c.blocking = false;
    return c;
  }

  Task<Result<LockGrant>> acquire(LockMode, MonoTime) override {
    if (lease_ttl_seconds_ > 0 && !session_) {
      session_ = std::make_unique<Session>(ctx_, lease_ttl_seconds_);
      Result<LeaseId> opened = co_await session_->open();
      if (!opened.ok()) {
        session_.reset();
        co_return opened.error();
      }
    }
    // Check...
    RangeRequest get;
    get.key = key_;
    Result<RangeResponse> current = co_await ctx_.kv().range(std::move(get));
    if (!current.ok()) co_return current.error();
    if (!current.value().kvs.empty())
      co_return Error(ErrorCode::lock_busy, "held by " + current.value().kvs[0].value);
    // ...then act: another client may have done the same check in between.
    PutRequest put;
    put.key = key_;
    put.value = ctx_.node_name();
    put.lease = session_ ? session_->lease() : 0;
    Result<PutResponse> written = co_await ctx_.kv().put(std::move(put));
    if (!written.ok()) co_return written.error();
    LockGrant grant;
    grant.key = key_;
    // A put over an existing key keeps its create revision; the put's revision is ours only
    // if the key was absent, which is what this client believes.
    grant.key_revision = written.value().header.revision;
    grant.lease = session_ ? session_->lease() : 0;
    co_return grant;
  }

  Task<Result<void>> release() override {
    DeleteRangeRequest del;
    del.key = key_;
    Result<DeleteRangeResponse> deleted = co_await ctx_.kv().delete_range(std::move(del));
    if (session_) {
      std::unique_ptr<Session> session = std::move(session_);
      (void)co_await session->close();
    }
    if (!deleted.ok()) co_return deleted.error();
    co_return Result<void>();
  }

 private:
  NodeContext& ctx_;
  std::string key_;
  std::int64_t lease_ttl_seconds_;
  std::unique_ptr<Session> session_;
};

}  // namespace

AlgorithmInfo naive_get_put_info() {
  AlgorithmInfo info;
  info.name = "naive-get-put";
  info.summary =
      "the textbook mistake: get the key, put it if absent (two calls); breaks with no fault";
  info.capabilities.blocking = false;
  info.options = {{"lease_ttl_seconds", 0,
                   "0: the key has no lease; > 0: put it under a lease of this TTL, kept alive",
                   0}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return std::make_unique<NaiveGetPut>(ctx, setup);
  };
  return info;
}

}  // namespace lockstep
