// EtcdKvClient: the KvClient seam over a real etcd v3 server, with async gRPC on an EventLoop.
//
// Contract (beyond KvClient's):
//   - Each call is one RPC with options.call_deadline. Server refusals map to definite
//     errors (error_mapping.h); a deadline or a lost connection after sending is
//     indeterminate. A call that gRPC could not even connect for is retried once on every
//     other endpoint (safe: it was never sent); other failures are returned and only move
//     later calls to the next endpoint.
//   - lease_keep_alive is one round on a shared LeaseKeepAlive stream that stays open and is
//     reopened (on the current endpoint) after an error or a timed-out round.
//   - watch opens one Watch stream per WatchStream; destroying the WatchStream cancels it.
//   - Destroying a call's Task abandons the RPC (it is cancelled; it may still be applied).
//   - Not thread-safe; every call runs on the loop's thread. Destroy before the loop.
#pragma once

#include <memory>
#include <string>

#include "lockstep/kv/kv_client.h"
#include "lockstep/kv/result.h"
#include "lockstep/real_etcd/etcd_client_options.h"
#include "lockstep/real_etcd/event_loop.h"

namespace lockstep::real {

class ClientCore;
class KeepAliveChannel;

class EtcdKvClient final : public KvClient {
 public:
  // Fails (definite invalid_argument) on a bad endpoint or an unreadable TLS file.
  static Result<std::unique_ptr<EtcdKvClient>> create(EventLoop& loop, EtcdClientOptions options);
  ~EtcdKvClient() override;

  Task<Result<RangeResponse>> range(RangeRequest request) override;
  Task<Result<PutResponse>> put(PutRequest request) override;
  Task<Result<DeleteRangeResponse>> delete_range(DeleteRangeRequest request) override;
  Task<Result<TxnResponse>> txn(TxnRequest request) override;
  Task<Result<CompactionResponse>> compact(CompactionRequest request) override;
  Task<Result<LeaseGrantResponse>> lease_grant(LeaseGrantRequest request) override;
  Task<Result<LeaseRevokeResponse>> lease_revoke(LeaseRevokeRequest request) override;
  Task<Result<LeaseKeepAliveResponse>> lease_keep_alive(LeaseKeepAliveRequest request) override;
  Task<Result<LeaseTimeToLiveResponse>> lease_time_to_live(
      LeaseTimeToLiveRequest request) override;
  Task<Result<LockResponse>> lock(LockRequest request) override;
  Task<Result<UnlockResponse>> unlock(UnlockRequest request) override;
  Task<Result<std::unique_ptr<WatchStream>>> watch(WatchCreateRequest request) override;

  // The endpoint (index into options.endpoints) the next call goes to.
  std::size_t current_endpoint() const;

 private:
  explicit EtcdKvClient(std::unique_ptr<ClientCore> core);
  std::unique_ptr<ClientCore> core_;
  std::unique_ptr<KeepAliveChannel> keep_alive_;
};

}  // namespace lockstep::real
