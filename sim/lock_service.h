// LockService: etcd's lock service (v3lock, server/etcdserver/api/v3lock in 3.4.23) on one
// simulated member.
//
// Contract (as etcd 3.4.23 serves it):
//   - Lock(name, lease) runs concurrency.Mutex of 3.4.23 for `lease` under `name/` through the
//     member's in-process client of itself (v3client): its requests take this member's usual
//     path (proposals to the leader, ReadIndex reads, a watch), with no network in between.
//     It answers once the lock is held, with the key it owns (`name/<lease hex>`) and the
//     header of the read that saw the lock free. As in 3.4.23, nothing re-checks the own key
//     after the wait: a lease that expired while the server waited is still answered with the
//     lock (etcd issue 11456, on the server).
//   - The call's context ends at the caller's deadline (gRPC sends it with the call, so it
//     counts from the call's arrival, on this member's clock) or when the caller's
//     cancellation arrives. A Mutex waiting for older keys then deletes its own key once (no
//     deadline, no retry: Unlock(client.Ctx())) and answers nobody. A Txn in flight is
//     abandoned: it may still create the key, which nothing deletes. A grant that crosses the
//     caller's deadline leaves the key held for a caller that gave up (the phantom holder).
//   - Unlock(key) deletes `key` through the same client and answers with that delete's header.
//   - The server keeps no lease alive: 3.4.23's NewSession(WithLease) starts a keep-alive that
//     Orphan() stops at once (docs/fidelity.md).
//   - A crash of the member ends every call: their callers see the connection reset.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "lockstep/kv/node_context.h"
#include "lockstep/sim/etcd_messages.h"
#include "lockstep/sim/world.h"

namespace lockstep::sim {

class EtcdCluster;
class SimKvClient;
class SimNode;

class LockService {
 public:
  LockService(EtcdCluster& cluster, int member_index, ProcessId member_pid);
  ~LockService();
  LockService(const LockService&) = delete;
  LockService& operator=(const LockService&) = delete;

  // A client's call arrived (an event of the member).
  void lock(const ReplyRoute& route, LockRequest request);
  void unlock(const ReplyRoute& route, UnlockRequest request);
  // gRPC's cancellation of `call` arrived: its context ends.
  void cancel(const ReplyRoute& call);
  // The member crashed: every call ends unanswered, with its tasks and its client.
  void on_crash();

 private:
  struct Call {
    ReplyRoute route;
    const char* request = "";  // "lock" or "unlock"
    std::string my_key;
    // Mutex.Lock waits for older keys to go: an ended context makes it delete my_key.
    bool waiting = false;
    bool context_ended = false;
    bool ended = false;  // answered, or its clean-up done
    SpawnHandle task;
    World::EventId deadline;
  };

  // The member's in-process client and the owner of the calls' tasks, made on first use.
  void ensure_client();
  Call* find(std::uint64_t id);
  std::uint64_t add_call(const ReplyRoute& route, const char* request);
  // The call's context ended (deadline passed, or cancelled).
  void end_context(std::uint64_t id);
  // Answers the call and forgets it.
  void finish(std::uint64_t id, Result<ClientResponse>&& response);
  // Drops the ended call `id` once the task running now has returned.
  void forget_later(std::uint64_t id);
  // Makes the next calls of the client on behalf of call `id`.
  SimKvClient& client_for(std::uint64_t id);

  Task<void> run_lock(std::uint64_t id, LockRequest request);
  Task<void> run_unlock(std::uint64_t id, UnlockRequest request);
  Task<void> run_cleanup(std::uint64_t id);
  // waitDeletes of 3.4.23: until no key under `prefix` has a create revision <= max; the
  // header of the read that found none.
  Task<Result<ResponseHeader>> wait_deletes(std::uint64_t id, std::string prefix,
                                            Revision max_create_revision);
  Task<Result<void>> wait_delete(std::uint64_t id, std::string key, Revision from_revision);

  EtcdCluster& cluster_;
  int member_index_;
  ProcessId pid_;
  std::unique_ptr<SimKvClient> client_;
  std::unique_ptr<SimNode> node_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, Call> calls_;
};

}  // namespace lockstep::sim
