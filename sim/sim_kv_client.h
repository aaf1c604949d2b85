// SimKvClient: the KvClient of a simulated client process, talking to the simulated cluster.
//
// Contract (as etcd's Go client behaves):
//   - Each call sends one request to the member this client is connected to and waits for
//     the reply up to `request_timeout` on the client's own clock; then it fails with an
//     indeterminate timeout (the request may still be applied), and a cancellation follows
//     the request on its connection, as gRPC's: a member that gets both before it started
//     the request never runs it. The request carries the timeout, as gRPC's grpc-timeout.
//   - After an error that suggests the member is unhealthy (timeout, no leader, connection
//     lost) the client fails over to the next member for later calls.
//   - If the connected member crashes, calls in flight fail with an indeterminate
//     connection-lost error and watch streams end with it, as a TCP reset would show.
//   - A crash of the client process forgets every call in flight; its connections close,
//     which cancels them on the members.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "lockstep/kv/kv_client.h"
#include "lockstep/sim/deadline_timer.h"
#include "lockstep/sim/etcd_cluster.h"
#include "lockstep/sim/wake.h"
#include "lockstep/sim/world.h"

namespace lockstep::sim {

struct SimClientOptions {
  int preferred_member = 0;
  Duration request_timeout = seconds(5);
  // Record each call in the history (kv-send, kv-end, member-switch) when the world has an
  // observer. They cost about a quarter of a recorded run's instructions.
  bool record_calls = true;
  // Fail over to the next member after an unhealthy error. false: stay bound to
  // preferred_member (etcd's in-process client of its own server, used by the lock service).
  bool fail_over = true;
};

class SimKvClient : public KvClient {
 public:
  SimKvClient(World& world, EtcdCluster& cluster, ProcessId pid, SimClientOptions options);
  ~SimKvClient() override;

  Task<Result<RangeResponse>> range(RangeRequest request) override;
  Task<Result<PutResponse>> put(PutRequest request) override;
  Task<Result<DeleteRangeResponse>> delete_range(DeleteRangeRequest request) override;
  Task<Result<TxnResponse>> txn(TxnRequest request) override;
  Task<Result<CompactionResponse>> compact(CompactionRequest request) override;
  Task<Result<LeaseGrantResponse>> lease_grant(LeaseGrantRequest request) override;
  Task<Result<LeaseRevokeResponse>> lease_revoke(LeaseRevokeRequest request) override;
  Task<Result<LeaseKeepAliveResponse>> lease_keep_alive(LeaseKeepAliveRequest request) override;
  Task<Result<LeaseTimeToLiveResponse>> lease_time_to_live(LeaseTimeToLiveRequest request) override;
  Task<Result<LockResponse>> lock(LockRequest request) override;
  Task<Result<UnlockResponse>> unlock(UnlockRequest request) override;
  Task<Result<std::unique_ptr<WatchStream>>> watch(WatchCreateRequest request) override;

  int connected_member() const { return member_; }
  // The calls started from now on are made for `call` (their requests name it, and so do the
  // truth events of what they change). The lock service sets it before each of its calls.
  // `request` is a static string ("lock", "unlock").
  void set_calls_for(ProcessId client, std::uint64_t call_id, const char* request) {
    calls_for_client_ = client;
    calls_for_call_id_ = call_id;
    calls_for_request_ = request;
  }
  // Called by the world's crash hook of this client's process.
  void on_crash();
  // The process this client lives in is gone together with the member it calls (the lock
  // service's in-process client, when its member crashes or the cluster is torn down): calls
  // and streams end with nothing sent.
  void disconnect();

  // Shared state of one watch stream (the member writes into it, the stream reads).
  struct StreamState {
    std::deque<Result<WatchResponse>> queue;
    LocalRef<Slot<bool>> waiter;  // set while next() waits
    int member = 0;
    bool ended = false;
  };

 private:
  struct PendingCall {
    LocalRef<Slot<Result<ClientResponse>>> slot;
    int member = 0;
    bool is_watch_create = false;
    Duration deadline;  // request_timeout after the call started, on the client's clock
  };

  // A call in flight, between start_call and finish_call.
  struct CallInFlight {
    LocalRef<Slot<Result<ClientResponse>>> slot;
    int member = 0;
  };
  // Sends the request and sees that its deadline is timed; the caller awaits
  // wake_of(call.slot).
  CallInFlight start_call(ClientRequest&& request);
  // After the wake: takes the reply (noting an unhealthy member).
  Result<ClientResponse> finish_call(const CallInFlight& call);
  // Fails every call past its deadline, then arms deadline_timer_ for the earliest left.
  void fail_expired_calls();
  // One coroutine per call: start_call, await the reply, finish_call, unwrap the type.
  template <typename Response>
  Task<Result<Response>> typed_call(ClientRequest request);
  void on_reply(std::uint64_t call_id, Result<ClientResponse>&& response);
  void on_member_reset(int member);
  // Gives the call its outcome and wakes its caller: at once when `in_own_event` (a reply's
  // delivery, an event of this client's process), else through an event.
  void complete(std::uint64_t call_id, Result<ClientResponse>&& response, bool in_own_event);
  void note_error(const Error& e, int member);
  // The history's record of this client's calls (only when the world has an observer):
  // kv-send {call, request, member, key | lease}, kv-end {call, outcome, error}, and
  // member-switch {from, to, after}.
  void record_send(std::uint64_t call_id, const ClientRequest& request, int member);
  void record_end(std::uint64_t call_id, const char* outcome, const Error* error);
  void switch_member(int to, const char* after);

  friend class SimWatchStream;
  World& world_;
  EtcdCluster& cluster_;
  ProcessId pid_;
  SimClientOptions options_;
  int member_;
  ProcessId calls_for_client_ = 0;
  std::uint64_t calls_for_call_id_ = 0;
  const char* calls_for_request_ = "";
  std::uint64_t next_call_id_ = 1;
  // Calls in flight in call-id order (ids only grow, so appending keeps the order). A vector,
  // not a map: a client has a few calls in flight at most.
  using Calls = std::vector<std::pair<std::uint64_t, PendingCall>>;
  Calls::iterator find_call(std::uint64_t call_id);
  Calls calls_;
  // Due at the earliest deadline of calls_ (or earlier: it is not moved when that call is
  // answered first, and finds nothing to fail then).
  DeadlineTimer deadline_timer_;
  std::map<std::uint64_t, std::shared_ptr<StreamState>> streams_;  // by the create call's id
};

}  // namespace lockstep::sim
