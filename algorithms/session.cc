#include "algorithms/session.h"

namespace lockstep {

Session::Session(NodeContext& ctx, std::int64_t ttl_seconds, Duration keepalive_interval)
    : ctx_(ctx),
      ttl_seconds_(ttl_seconds),
      keepalive_interval_(keepalive_interval.count() > 0 ? keepalive_interval
                                                         : seconds(ttl_seconds) / 3) {}

Session::~Session() = default;

bool Session::alive() const {
  if (lease_ == 0 || !state_ || state_->lost) return false;
  return const_cast<NodeContext&>(ctx_).monotonic_now() - state_->last_reply <
         seconds(ttl_seconds_);
}

Task<Result<LeaseId>> Session::open() {
  LeaseGrantRequest req;
  req.ttl_seconds = ttl_seconds_;
  const MonoTime sent = ctx_.monotonic_now();
  Result<LeaseGrantResponse> granted = co_await ctx_.kv().lease_grant(req);
  if (!granted.ok()) co_return granted.error();
  lease_ = granted.value().id;
  ttl_seconds_ = granted.value().ttl_seconds;  // the server may have raised it to its minimum
  state_ = std::make_shared<State>();
  state_->last_reply = sent;
  keepalive_ = ctx_.spawn(keep_alive_loop(&ctx_, lease_, ttl_seconds_, keepalive_interval_, state_),
                          "keepalive");
  co_return lease_;
}

Task<void> Session::keep_alive_loop(NodeContext* ctx, LeaseId lease, std::int64_t ttl_seconds,
                                    Duration interval, std::shared_ptr<State> state) {
  while (!state->lost) {
    co_await ctx->sleep_for(interval);
    const MonoTime sent = ctx->monotonic_now();
    LeaseKeepAliveRequest req;
    req.id = lease;
    Result<LeaseKeepAliveResponse> reply = co_await ctx->kv().lease_keep_alive(req);
    if (reply.ok()) {
      if (reply.value().ttl_seconds <= 0) {
        state->lost = true;  // the server says the lease is gone
      } else {
        state->last_reply = sent;
      }
    } else if (ctx->monotonic_now() - state->last_reply >= seconds(ttl_seconds)) {
      state->lost = true;  // no reply for a whole TTL: the client gives the lease up
    }
  }
}

Task<Result<void>> Session::close() {
  keepalive_.cancel();
  const LeaseId lease = lease_;
  lease_ = 0;
  state_.reset();
  if (lease == 0) co_return Result<void>();
  LeaseRevokeRequest req;
  req.id = lease;
  Result<LeaseRevokeResponse> revoked = co_await ctx_.kv().lease_revoke(req);
  if (!revoked.ok()) co_return revoked.error();
  co_return Result<void>();
}

}  // namespace lockstep
