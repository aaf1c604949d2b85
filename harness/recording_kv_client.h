// RecordingKvClient: a KvClient decorator that records each call in the history as the
// simulated client does (docs/history-format.md, "The clients' calls"): kv-send when a call
// starts, kv-end when it ends, member-switch when the next call goes to another member. The
// real backend wraps each client's gRPC client in one, so that a real run's history records
// what a client can see of its calls, with the same fields.
//
// Contract: `member_of_next_call` names where the next call goes ("member-1", or an endpoint
// for a cluster lockstep did not start); `record` receives (op, args) on the client's own
// thread, in call order. Watch events on an open stream are not recorded. The wrapped client
// must outlive the wrapper.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "lockstep/kv/forwarding_kv_client.h"

namespace lockstep {

class RecordingKvClient : public ForwardingKvClient {
 public:
  using Record = std::function<void(const std::string& op, nlohmann::json args)>;
  RecordingKvClient(KvClient& inner, std::function<std::string()> member_of_next_call, Record record);

  Task<Result<RangeResponse>> range(RangeRequest r) override;
  Task<Result<PutResponse>> put(PutRequest r) override;
  Task<Result<DeleteRangeResponse>> delete_range(DeleteRangeRequest r) override;
  Task<Result<TxnResponse>> txn(TxnRequest r) override;
  Task<Result<LeaseGrantResponse>> lease_grant(LeaseGrantRequest r) override;
  Task<Result<LeaseRevokeResponse>> lease_revoke(LeaseRevokeRequest r) override;
  Task<Result<LeaseKeepAliveResponse>> lease_keep_alive(LeaseKeepAliveRequest r) override;
  Task<Result<LeaseTimeToLiveResponse>> lease_time_to_live(LeaseTimeToLiveRequest r) override;
  Task<Result<LockResponse>> lock(LockRequest r) override;
  Task<Result<UnlockResponse>> unlock(UnlockRequest r) override;
  Task<Result<std::unique_ptr<WatchStream>>> watch(WatchCreateRequest r) override;

 private:
  // Records kv-send; returns the call id.
  std::uint64_t sent(const char* request, nlohmann::json extra);
  // Records kv-end (and member-switch when the inner client moved on to another member).
  void ended(std::uint64_t call, const Error* error);
  template <typename T>
  Task<Result<T>> recorded(std::uint64_t call, Task<Result<T>> inner_call);

  std::function<std::string()> member_of_next_call_;
  Record record_;
  std::uint64_t next_call_ = 1;
  std::string member_;      // where the last call went
  std::string last_error_;  // the last call's error code, which moves the next call on
};

}  // namespace lockstep
