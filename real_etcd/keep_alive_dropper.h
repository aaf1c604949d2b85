// KeepAliveDropper: a KvClient wrapper for the `lease-drop` fault on a real run. While
// dropping, every lease_keep_alive is lost on its way to the server: the call waits the
// client's call deadline and fails with an indeterminate timeout, as a keep-alive whose
// request vanished would (the simulator drops them at the cluster the same way). The lease
// is not refreshed, so it expires on the server on its own schedule. Every other call is
// passed through unchanged.
//
// Contract: not thread-safe (like every KvClient, it lives on one EventLoop); the wrapped
// client and the loop must outlive it. set_dropping() takes effect for calls made after it.
#pragma once

#include <cstdint>

#include "lockstep/kv/forwarding_kv_client.h"
#include "lockstep/real_etcd/event_loop.h"

namespace lockstep::real {

class KeepAliveDropper final : public ForwardingKvClient {
 public:
  KeepAliveDropper(EventLoop& loop, KvClient& inner, Duration call_deadline)
      : ForwardingKvClient(inner), loop_(loop), call_deadline_(call_deadline) {}

  void set_dropping(bool dropping) { dropping_ = dropping; }
  bool dropping() const { return dropping_; }
  std::uint64_t dropped() const { return dropped_; }

  Task<Result<LeaseKeepAliveResponse>> lease_keep_alive(LeaseKeepAliveRequest r) override;

 private:
  Task<Result<LeaseKeepAliveResponse>> drop();

  EventLoop& loop_;
  Duration call_deadline_;
  bool dropping_ = false;
  std::uint64_t dropped_ = 0;
};

}  // namespace lockstep::real
