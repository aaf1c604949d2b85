// Session: a lease kept alive in the background, as etcd's concurrency.Session does.
//
// Contract: open() grants a lease (ttl_seconds) and spawns a keep-alive task that sends one
// keep-alive keepalive_interval (default TTL/3, like the Go client) after the last reply, and
// while no reply comes resends every kKeepAliveRetry without waiting for the earlier
// request's own timeout (again like the Go client): one lost message must not cost the lease.
// The session
// believes its lease is alive until a keep-alive reply says TTL 0 or until TTL has passed on
// the node's monotonic clock since the last successful reply; from then on alive() is false.
// Note that belief lags the server: the server may have expired the lease earlier (on the
// leader's clock), which is exactly what the checkers look for. close() stops the keep-alive
// and revokes the lease. Destroying the Session stops the keep-alive (it is a scoped child).
#pragma once

#include <cstdint>
#include <memory>

#include "lockstep/kv/node_context.h"

namespace lockstep {

class Session {
 public:
  static constexpr Duration kKeepAliveRetry = milliseconds(500);

  Session(NodeContext& ctx, std::int64_t ttl_seconds, Duration keepalive_interval = Duration(0));
  ~Session();

  Task<Result<LeaseId>> open();
  Task<Result<void>> close();

  bool open_now() const { return lease_ != 0; }
  bool alive() const;
  LeaseId lease() const { return lease_; }
  std::int64_t ttl_seconds() const { return ttl_seconds_; }

 private:
  struct State {
    bool lost = false;
    MonoTime last_reply;  // when the last successful keep-alive (or the grant) was sent
    MonoTime next_send;   // when the loop sends the next keep-alive
  };
  static Task<void> keep_alive_loop(NodeContext* ctx, LeaseId lease, std::int64_t ttl_seconds,
                                    Duration interval, std::shared_ptr<State> state);
  static Task<void> send_keep_alive(NodeContext* ctx, LeaseId lease, Duration interval,
                                    std::shared_ptr<State> state);

  NodeContext& ctx_;
  std::int64_t ttl_seconds_;
  Duration keepalive_interval_;
  LeaseId lease_ = 0;
  std::shared_ptr<State> state_;
  SpawnHandle keepalive_;
};

// The session a lock acts under: `*session` while it is alive; otherwise (none yet, or one
// whose lease the client gave up on) a new one of `ttl_seconds`, opened, as an application
// does after session.Done(). When opening fails, `*session` is left empty and the error
// returned.
Task<Result<void>> ensure_live_session(NodeContext* ctx, std::unique_ptr<Session>* session,
                                       std::int64_t ttl_seconds);

}  // namespace lockstep
