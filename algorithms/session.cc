#include "lockstep/algorithms/session.h"

#include <vector>

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
  // Requests in flight; owned here so that cancelling the loop cancels them too.
  std::vector<SpawnHandle> in_flight;
  state->next_send = state->last_reply + interval;
  while (!state->lost) {
    const MonoTime now = ctx->monotonic_now();
    if (now - state->last_reply >= seconds(ttl_seconds)) {
      state->lost = true;  // no reply for a whole TTL: the client gives the lease up
      break;
    }
    if (now < state->next_send) {
      // A reply may move next_send later while we sleep; the loop then sleeps again.
      co_await ctx->sleep_for(state->next_send - now);
      continue;
    }
    std::erase_if(in_flight, [](const SpawnHandle& h) { return h.done(); });
    in_flight.push_back(ctx->spawn(send_keep_alive(ctx, lease, interval, state), "keepalive-send"));
    state->next_send = now + kKeepAliveRetry;  // resent then unless a reply comes first
  }
}

Task<void> Session::send_keep_alive(NodeContext* ctx, LeaseId lease, Duration interval,
                                    std::shared_ptr<State> state) {
  const MonoTime sent = ctx->monotonic_now();
  LeaseKeepAliveRequest req;
  req.id = lease;
  Result<LeaseKeepAliveResponse> reply = co_await ctx->kv().lease_keep_alive(req);
  if (!reply.ok() || state->lost) co_return;  // the loop resends; it alone declares a timeout
  if (reply.value().ttl_seconds <= 0) {
    state->lost = true;  // the server says the lease is gone
  } else if (sent > state->last_reply) {
    // Replies to resent requests may arrive out of order; only a newer one moves the times.
    state->last_reply = sent;
    state->next_send = ctx->monotonic_now() + interval;
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

Task<Result<void>> ensure_live_session(NodeContext* ctx, std::unique_ptr<Session>* session,
                                       std::int64_t ttl_seconds) {
  if (*session && (*session)->alive()) co_return Result<void>();
  *session = std::make_unique<Session>(*ctx, ttl_seconds);
  Result<LeaseId> opened = co_await (*session)->open();
  if (opened.ok()) co_return Result<void>();
  session->reset();
  co_return opened.error();
}

}  // namespace lockstep
