// EtcdCluster: the simulated etcd members and the plumbing between them.
//
// Contract: owns N EtcdMembers (N = 1, 3 or 5), each a process of the World reached over the
// Network. Clients talk to members with send_request(); members talk to each other through
// the typed helpers below, which go through the network (so partitions, delay and loss apply
// between members too). The cluster also reports the truth of the store to the world's
// observer: every key change and lease expiry, once, when the first member applies it.
#pragma once

#include <memory>
#include <set>
#include <vector>

#include "lockstep/sim/raft_safety.h"
#include "lockstep/sim/etcd_config.h"
#include "lockstep/sim/etcd_member.h"
#include "lockstep/sim/network.h"
#include "lockstep/sim/world.h"

namespace lockstep::sim {

// etcd's raft transport (rafthttp) reads every peer connection with this timeout.
constexpr Duration kRaftConnReadTimeout = seconds(5);

class EtcdCluster {
 public:
  EtcdCluster(World& world, Network& network, EtcdConfig config);
  // Members go first: their lock services' clients unregister from this cluster.
  ~EtcdCluster() { members_.clear(); }
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  World& world() { return world_; }
  Network& network() { return network_; }
  const EtcdConfig& config() const { return config_; }
  RaftSafety& safety() { return safety_; }
  EtcdConfig& mutable_config() { return config_; }

  int size() const { return static_cast<int>(members_.size()); }
  EtcdMember& member(int index) { return *members_[static_cast<std::size_t>(index)]; }
  const EtcdMember& member(int index) const { return *members_[static_cast<std::size_t>(index)]; }
  std::vector<ProcessId> member_pids() const;
  // The member that currently leads with the highest term, or -1.
  int leader() const;

  // Delivery of a client request to a member, over the network (boxed once, here).
  void send_request(ProcessId client, int member_index, ReplyRoute route, ClientRequest&& request);
  // Delivery of a member's reply to a client: `deliver` runs on the client.
  template <typename Fn>
  void send_reply(int member_index, ProcessId client, Fn&& deliver) {
    network_.send(member(member_index).pid(), client, std::forward<Fn>(deliver));
  }

  // The same for a message of a watch stream (kept in the stream's order).
  template <typename Fn>
  void send_stream_reply(int member_index, ProcessId client, Fn&& deliver) {
    network_.send_in_stream(member(member_index).pid(), client, std::forward<Fn>(deliver));
  }

  // Member-to-member messages.
  template <typename Fn>
  void send_to_member(int from, int to, Fn&& fn) {
    EtcdMember* target = members_[static_cast<std::size_t>(to)].get();
    network_.send(member(from).pid(), target->pid(),
                  [target, fn = std::forward<Fn>(fn)]() mutable { fn(*target); });
  }

  // The `lease-drop` fault: keep-alive requests of `client` are dropped while set.
  void set_drop_keepalives(ProcessId client, bool drop);
  std::uint64_t keepalives_dropped() const { return keepalives_dropped_; }
  // The `compaction` fault: the leader proposes a compaction at `revision` (0: its current
  // revision). Returns the revision proposed, or 0 when no leader could take it.
  Revision propose_compaction(Revision revision);

  // Truth reporting: called by members after applying log index `index` with `result`.
  // Records key-put/key-delete for `events`, lease-granted {lease, ttl_seconds},
  // lease-revoked {lease} (a client's revoke) and lease-expired (a lessor's revoke that
  // committed), each with the entry's `cause` (cause_of). `result` may be null when
  // records_truth_of(index) is false.
  void report_applied(std::uint64_t index, const std::vector<Event>& events, const LogEntry& entry,
                      const Result<ClientResponse>* result);
  // A leader's lessor found `lease` expired and will propose its revoke: an attempt, which
  // commits only if that member still leads (lease-revoke-attempt).
  void report_lease_revoke_attempt(LeaseId lease, const LeaseExpiryCause& cause);
  // A client gave up waiting for call `call_id` (its deadline passed, or its connection
  // broke): the truth events of anything the call changes later say so. Kept only while an
  // observer records.
  void note_abandoned_call(ProcessId client, std::uint64_t call_id);
  // The leader `leader`'s lessor renewed `lease` for the keep-alive `route` (received by
  // `from_member`): recorded as truth (lease-renewed), with the time its client gave the call
  // up when it already had. Why every renewal: one whose answer never reaches the client (a
  // cut held it, or the keep-alive itself until after the client's deadline) renews the lease
  // all the same, and only this record shows it.
  void report_lease_renewal(LeaseId lease, int leader, int from_member, const ReplyRoute& route);
  // Whether the members record the detail that only explanations read (the default): every
  // lease renewal (else only those by calls already given up), campaigns, refused votes, each
  // member's view of the leader, cancelled requests. A run that does not record its clients'
  // calls (explore's seed search, the shrinker's candidates: verdicts only) skips their cost.
  void record_details(bool on) { record_details_ = on; }
  bool records_details() const { return record_details_ && world_.observer() != nullptr; }
  // Member `member` dropped `entry`, which another member had passed on to it as the leader,
  // for `reason`: "no-leader" (it no longer led and knew no leader) or "leader-transfer" (it
  // led, but was handing its leadership over, when raft drops every proposal). Recorded as a
  // `proposal-dropped` truth event with the entry's cause, so an explanation can say where a
  // request was lost.
  void report_proposal_dropped(int member, const LogEntry& entry, const char* reason);
  // Where a client's write went (runs that record details only): member `member` passed it on
  // to `to`, the leader it knew; or, as leader of `term`, appended it as log entry `index`.
  // What held a write between its sending and its applying is read from these.
  void report_request_forwarded(int member, int to, const LogEntry& entry);
  void report_request_appended(int member, std::uint64_t term, std::uint64_t index, const LogEntry& entry);
  // Records that `member` cancelled a client's call on the client's cancellation (gRPC cancels
  // the handler): `started` when the request had already been sent on (proposed, forwarded,
  // asked a read index for), or its handler ran before the cancellation was read (both came
  // in one batch), so it may still take effect unanswered; else it never runs.
  void report_request_cancelled(int member, const ReplyRoute& call, bool started);
  // Whether report_applied(index, ...) will record the events of that index (an observer is
  // set and no member applied it before).
  bool records_truth_of(std::uint64_t index) const {
    return world_.observer() != nullptr && index > max_reported_index_;
  }

  // The client-side hook for replies: registered by each client endpoint.
  // Replies pass by rvalue reference down to the client's slot: a response is a variant of
  // ten types, and each move of it costs a visit.
  using ReplySink = std::function<void(std::uint64_t call_id, Result<ClientResponse>&&)>;
  void register_client(ProcessId client, ReplySink sink);
  void deliver_reply(ProcessId client, std::uint64_t call_id, Result<ClientResponse>&& response);
  // A member crashed: every client stream served by it breaks (as a TCP reset would).
  using StreamBreakSink = std::function<void(int member_index)>;
  void register_stream_break(ProcessId client, StreamBreakSink sink);
  void break_streams_of(int member_index);

 private:
  World& world_;
  Network& network_;
  EtcdConfig config_;
  std::vector<std::unique_ptr<EtcdMember>> members_;
  std::uint64_t max_reported_index_ = 0;
  RaftSafety safety_;
  std::vector<ReplySink> reply_sinks_;  // by client process id (ids are small and dense)
  std::map<ProcessId, StreamBreakSink> stream_break_sinks_;
  std::set<ProcessId> keepalive_droppers_;
  std::uint64_t keepalives_dropped_ = 0;
  // (client, call id) -> when the client gave up on the call (true ns).
  std::map<std::pair<ProcessId, std::uint64_t>, std::int64_t> abandoned_calls_;
  bool record_details_ = true;
  // What made `entry` (the JSON `cause` of its truth events), or null when nothing did.
  nlohmann::json cause_of(const LogEntry& entry) const;
};

}  // namespace lockstep::sim
