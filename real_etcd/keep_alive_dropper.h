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

#include "kv/kv_client.h"
#include "real_etcd/event_loop.h"

namespace lockstep::real {

class KeepAliveDropper final : public KvClient {
 public:
  KeepAliveDropper(EventLoop& loop, KvClient& inner, Duration call_deadline)
      : loop_(loop), inner_(inner), call_deadline_(call_deadline) {}

  void set_dropping(bool dropping) { dropping_ = dropping; }
  bool dropping() const { return dropping_; }
  std::uint64_t dropped() const { return dropped_; }

  Task<Result<RangeResponse>> range(RangeRequest r) override { return inner_.range(std::move(r)); }
  Task<Result<PutResponse>> put(PutRequest r) override { return inner_.put(std::move(r)); }
  Task<Result<DeleteRangeResponse>> delete_range(DeleteRangeRequest r) override {
    return inner_.delete_range(std::move(r));
  }
  Task<Result<TxnResponse>> txn(TxnRequest r) override { return inner_.txn(std::move(r)); }
  Task<Result<CompactionResponse>> compact(CompactionRequest r) override {
    return inner_.compact(std::move(r));
  }
  Task<Result<LeaseGrantResponse>> lease_grant(LeaseGrantRequest r) override {
    return inner_.lease_grant(std::move(r));
  }
  Task<Result<LeaseRevokeResponse>> lease_revoke(LeaseRevokeRequest r) override {
    return inner_.lease_revoke(std::move(r));
  }
  Task<Result<LeaseKeepAliveResponse>> lease_keep_alive(LeaseKeepAliveRequest r) override;
  Task<Result<LeaseTimeToLiveResponse>> lease_time_to_live(LeaseTimeToLiveRequest r) override {
    return inner_.lease_time_to_live(std::move(r));
  }
  Task<Result<std::unique_ptr<WatchStream>>> watch(WatchCreateRequest r) override {
    return inner_.watch(std::move(r));
  }

 private:
  Task<Result<LeaseKeepAliveResponse>> drop();

  EventLoop& loop_;
  KvClient& inner_;
  Duration call_deadline_;
  bool dropping_ = false;
  std::uint64_t dropped_ = 0;
};

}  // namespace lockstep::real
