// ForwardingKvClient: a KvClient that passes every call to another one. Decorators (a fault
// that drops keep-alives, a test hook) derive from it and override only the calls they change.
//
// Contract: the wrapped client must outlive the wrapper; threading is the wrapped client's.
#pragma once

#include <memory>
#include <utility>

#include "lockstep/kv/kv_client.h"

namespace lockstep {

class ForwardingKvClient : public KvClient {
 public:
  explicit ForwardingKvClient(KvClient& inner) : inner_(inner) {}

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
  Task<Result<LeaseKeepAliveResponse>> lease_keep_alive(LeaseKeepAliveRequest r) override {
    return inner_.lease_keep_alive(std::move(r));
  }
  Task<Result<LeaseTimeToLiveResponse>> lease_time_to_live(LeaseTimeToLiveRequest r) override {
    return inner_.lease_time_to_live(std::move(r));
  }
  Task<Result<LockResponse>> lock(LockRequest r) override { return inner_.lock(std::move(r)); }
  Task<Result<UnlockResponse>> unlock(UnlockRequest r) override {
    return inner_.unlock(std::move(r));
  }
  Task<Result<std::unique_ptr<WatchStream>>> watch(WatchCreateRequest r) override {
    return inner_.watch(std::move(r));
  }

 protected:
  KvClient& inner() { return inner_; }

 private:
  KvClient& inner_;
};

}  // namespace lockstep
