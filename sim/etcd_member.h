// EtcdMember: one member of the simulated etcd cluster.
//
// Contract (what a lock client can observe of a real etcd member, not Raft line by line). The
// consensus is the member's RaftNode (raft_node.h); the member is the etcd server around it:
// it gives the node its inputs and acts on its Ready, applies what it commits to the store,
// and serves clients, the lessor, ReadIndex rounds and watches.
//   - Writes (put, delete, txn, compaction, lease grant and revoke) go through a replicated
//     log: the member forwards them to the leader, the leader commits an entry once a
//     majority has it, and every member applies committed entries in order to its own
//     EtcdStore. The member the client talks to replies when it applies the entry, so a
//     write can be applied while its reply is lost.
//   - Replication follows Raft's flow control: the leader probes a follower one append at a
//     time until it finds where their logs agree, then replicates with at most one append in
//     flight; entries proposed meanwhile go together in the next one (etcd batches the
//     proposals that arrive while a Ready is being persisted in the same way). A new commit
//     index reaches idle followers at once in an empty append; heartbeats carry it too.
//   - Linearizable reads use ReadIndex: the leader confirms it still leads a quorum (a
//     heartbeat round sent after the request), and the member answers once it has applied up
//     to the leader's commit index. As in etcd's linearizable read loop, a member has one
//     ReadIndex round in flight: reads arriving meanwhile share the next round, and a round
//     with no answer is asked again after 500 ms. A new leader answers ReadIndex only once it
//     has committed an entry of its term. Read-only txns (ranges only) are reads too, as in
//     etcd's Txn: never proposed. Serializable reads (and txns whose ranges all are) answer at
//     once from the member's own, possibly stale, store.
//   - Elections run on each member's own monotonic clock (randomised election timeout,
//     heartbeats, check-quorum counted in heartbeat ticks as raft does: a leader that heard
//     from no majority during an election timeout's worth of ticks steps down; a member that
//     hears a live leader ignores vote requests).
//   - Only the leader expires leases, on its own clock, in periodic scans; a new leader
//     extends every lease to now + election timeout + TTL when it applies the first entry of
//     its term, and holds lease calls until then. Keep-alives and time-to-live go to the
//     leader; a keep-alive of an expired lease waits for its revoke. In etcd 3.4.23 a leader
//     deposed while it was paused still revokes what it found expired (etcd issue 15247).
//   - Lock and Unlock (etcd's lock service) run on the member the client called, through its
//     in-process client of itself (lock_service.h).
//   - A member that cannot serve a request holds it, and fails it after the server's request
//     timeout. A crash loses volatile state; the log, term, vote and store survive restart.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lockstep/kv/invariant.h"
#include "lockstep/kv/rng.h"
#include "lockstep/sim/box.h"
#include "lockstep/sim/deadline_timer.h"
#include "lockstep/sim/etcd_config.h"
#include "lockstep/sim/etcd_messages.h"
#include "lockstep/sim/etcd_store.h"
#include "lockstep/sim/lock_service.h"
#include "lockstep/sim/raft_node.h"
#include "lockstep/sim/world.h"

namespace lockstep::sim {

class EtcdCluster;

class EtcdMember {
 public:
  EtcdMember(EtcdCluster& cluster, int index, ProcessId pid, Rng rng);

  int index() const { return index_; }
  ProcessId pid() const { return pid_; }
  std::uint64_t member_id() const;
  MemberRole role() const { return raft_.role(); }
  bool is_leader() const { return raft_.is_leader(); }
  std::uint64_t term() const { return raft_.term(); }
  int known_leader() const { return raft_.leader(); }
  const EtcdStore& store() const { return store_; }
  std::uint64_t applied_index() const { return raft_.applied_index(); }
  std::uint64_t commit_index() const { return raft_.commit_index(); }
  // The first log index still in memory (1 until the first compaction, see RaftNode).
  std::uint64_t first_index_in_memory() const { return raft_.first_index_in_memory(); }
  std::uint64_t last_log_index() const { return raft_.last_log_index(); }
  const RaftNode& raft() const { return raft_; }

  // Starts timers; called at the start of the run and after every restart.
  void start();
  // Called by the world's crash hook: volatile state is lost.
  void on_crash();

  // A client request arrives (runs as an event of this member). The network hands over the box
  // it carried, which the member keeps while the request is pending.
  void handle_client(ReplyRoute route, Box<ClientRequest>&& request);

  // Answers a client's call (the lock service answers its calls through it too). Responses
  // pass by rvalue reference down to the network: each move of the variant costs a visit.
  void reply(ReplyRoute route, Result<ClientResponse>&& response);

  // The `leader-change` fault, as etcd's MoveLeader runs raft's leadership transfer: the
  // leader brings `successor`'s log up to date, then tells it to campaign at once (it wins
  // over any leader lease), and steps down when it sees the higher term. Until then it still
  // leads, but drops every proposal ("raft proposal dropped"); a transfer not done within an
  // election timeout is abandoned.
  void transfer_leadership(int successor);

  // A proposal of this member (a lessor's revoke, a compaction): to its raft node.
  void propose(LogEntry&& entry);

  // A raft message from a peer (delivered by the network as an event of this member). A
  // forwarded proposal read together with other messages (after a pause, or released by a
  // healed cut) is stepped after them: etcd's transport hands proposals to raft on their own
  // goroutine, apart from the peer's other messages, so a deposed leader usually learns of its
  // successor first and passes the proposal on to it.
  void receive(RaftMessage&& message);

  // Keep-alive and time-to-live, forwarded to the leader.
  // `route` names the client's call (for the truth of a renewal its client gave up on).
  void on_leader_lease_call(int from, std::uint64_t call_id, const ReplyRoute& route, ClientRequest request);
  void on_leader_lease_reply(std::uint64_t call_id, Result<ClientResponse> response);

 private:
  struct PendingRequest {
    ReplyRoute route;
    Box<ClientRequest> request;
    Duration deadline;  // on this member's monotonic clock
    // Sent on (proposed, asked for a read index, or forwarded to the leader).
    bool in_flight = false;
    // For reads: the index to reach before serving, once the leader gave it.
    std::optional<std::uint64_t> read_index;
    // It came while this member could not read (paused, behind a cut): it is not started
    // before the posted start runs, whatever else in the same batch wakes the member up.
    bool arrived_held = false;
  };
  struct Watcher {
    ReplyRoute route;  // call_id is the client's stream id
    std::int64_t watch_id;
    WatchCreateRequest request;
    Revision next_revision;  // events below this were sent already
  };

  // The raft node's side: its inputs, each followed by drain_raft(), which acts on the node's
  // Ready in order (see raft_node.h).
  template <typename Message>
  void deliver_raft(Message&& message);
  void drain_raft() {
    if (raft_.has_ready()) act_on_ready();
  }
  // Gives the raft node a proposal (`step`: this member's own, or one another member passed
  // on), drains its Ready, and records where a client's write went: appended by this leader
  // (here) or passed on to the leader this member knows (send_raft).
  template <typename Step>
  void step_proposal(Step&& step);
  void act_on_ready();
  void act_on(RaftOutput&& output);
  void send_raft(int to, RaftMessage&& message);
  void on_became_leader(std::uint64_t term);
  void on_became_follower(const BecameFollower& change);
  void record_campaign(const Campaigned& campaign);
  void record_vote_refusal(const VoteRefused& refusal);
  Duration local_now() const;

  // Raft's election timeout, as etcd counts it: a new random timeout in [T, 2T) on every
  // change of role or term (`redraw`), else the same timeout counted again from now (a
  // message from the leader, a vote granted).
  void restart_election_timeout(bool redraw);
  void schedule_heartbeat();
  void schedule_lease_scan();
  void drop_proposal(LogEntry&& entry);
  // Applies the committed entries up to `index`, then serves the reads that waited for them.
  void apply_committed(std::uint64_t index);
  // Applies a committed entry to the store, and reports it to the cluster. Builds the
  // response into `response` when it is not null. Why not always: two members in three
  // apply an entry no client of theirs waits for, and building and dropping a response each
  // time cost about 2 % of a simulated KV request's instructions.
  void apply_entry(const LogEntry& entry, std::optional<Result<ClientResponse>>* response);

  // Serving.
  // `call` is the client call the request came with (the truth events name it as the cause).
  void propose_request(LogOp&& op, std::uint64_t request_id, const ReplyRoute& call);
  void start_read(std::uint64_t request_id);
  // Sends the waiting reads' ReadIndex round, unless one is in flight or no leader is known.
  void maybe_start_read_round();
  void send_read_round();
  void on_read_index_reply(std::uint64_t round, std::uint64_t index);
  void serve_ready_reads();
  // Answers a read (a range or a read-only txn) from this member's store as it is now.
  Result<ClientResponse> serve_read(const ClientRequest& request);
  void retry_waiting_requests();
  // A request in flight that must be sent again (its leader was a former one): not in flight,
  // and in waiting_ids_.
  void send_back_to_waiting(std::pair<std::uint64_t, PendingRequest>& pending);
  // Fails every request past its deadline, then arms request_deadline_timer_ for the
  // earliest deadline left.
  void fail_expired_requests();
  // gRPC's cancellation of a client's call: the pending request it names is dropped.
  void cancel_call(const ReplyRoute& call);
  void on_read_round_timeout();
  // A message of a watch stream: never reordered with the stream's others.
  void stream_reply(ReplyRoute route, Result<ClientResponse>&& response);
  void finish_request(std::uint64_t request_id, Result<ClientResponse>&& response);
  ResponseHeader header() const;
  // Sets the response's header and hands the same response on (for use within one
  // expression): a response taken and returned by value was moved twice more.
  template <typename T>
  T&& with_header(T&& response) const {
    response.header = header();
    return std::forward<T>(response);
  }
  // A store call's outcome as a client's answer: its error, or the response with this
  // member's header.
  template <typename T>
  Result<ClientResponse> as_answer(Result<T>&& outcome) const {
    if (!outcome) return outcome.error();
    return ClientResponse(with_header(std::move(outcome).value()));
  }
  void lease_scan();
  // etcd's lessor Promote, when this leader applies the first entry of its term: every lease
  // is extended to now + election timeout + its TTL, and scans and renewals begin.
  void promote_lessor();
  // Answers (or holds again) every lease call held_lease_calls_ holds.
  void release_held_lease_calls();
  void create_watch(ReplyRoute route, WatchCreateRequest request);
  void dispatch_watch_events(const std::vector<Event>& events);

  EtcdCluster& cluster_;
  const int index_;
  const ProcessId pid_;
  Rng rng_;

  // Persistent state: survives a crash (the raft node keeps its log, term, vote and applied
  // index; its volatile state goes with crash()).
  RaftNode raft_;
  EtcdStore store_;
  // etcd's lock service (v3lock) on this member. Volatile: a crash ends its calls.
  LockService lock_service_;

  // Volatile state.
  // drain_raft's lists, one per nesting level (a deque: a nested level's list is added
  // without moving the outer ones), and the level in use.
  std::deque<std::vector<RaftOutput>> ready_by_depth_;
  std::size_t drain_depth_ = 0;
  // The last leader this member knew of (etcd's leaderChanged notifier fires when another
  // becomes known): a read round out for a ReadIndex then fails with "leader changed".
  int last_known_leader_ = -1;
  // The leader this member knows, as last recorded (leader-view); -2 before the first record.
  int viewed_leader_ = -2;
  // Records a change of the leader this member knows (-1: none), and why it lost one: a newer
  // term in another member's message (`why`), or `cause` ("campaign", "start").
  void record_leader_view(int leader, const TermNews* why, const char* cause = nullptr);
  // Set while the batch of what came held (World::running_held) brought news of another
  // leader: a read in the same batch fails with "leader changed".
  bool leader_news_held_ = false;
  void note_leader(int leader);
  Duration election_timeout_local_{0};  // the current randomized timeout
  DeadlineTimer election_timer_;         // armed while not leading
  std::uint64_t heartbeat_generation_ = 0;
  std::set<LeaseId> revoking_;
  // Leases whose revoke proposal was dropped (during a leadership transfer), with when the
  // lessor may try again: etcd's lessor re-finds an expired lease not yet revoked after its
  // expired-lease retry interval (3 s).
  std::map<LeaseId, MonoTime> revoke_retry_at_;
  // The lessor is primary (renews and expires leases): from the leader's first applied entry
  // of its term until it steps down. Volatile.
  bool lessor_primary_ = false;
  // Keep-alives and time-to-live calls this leader holds: until its lessor is promoted, or a
  // keep-alive of an expired lease until its revoke is applied.
  struct HeldLeaseCall {
    int from;
    std::uint64_t call_id;
    ReplyRoute route;
    ClientRequest request;
  };
  std::vector<HeldLeaseCall> held_lease_calls_;
  // The lessor's last renewal of each lease, as this member saw it (true time), for the
  // truth events' causes: a keep-alive it answered, or the grant it applied. Leases it has no
  // entry for were last extended when it became leader (leader_since_ns_). Volatile.
  struct Renewal {
    std::int64_t at_ns = 0;
    const char* by = "";
  };
  std::map<LeaseId, Renewal> renewals_;
  std::int64_t leader_since_ns_ = 0;
  Renewal last_renewal(LeaseId lease) const;

  // This member's ReadIndex rounds (any role): reads waiting for the next round, the reads of
  // the round in flight, its id, and the timer that asks again if no answer comes.
  std::vector<std::uint64_t> reads_waiting_;
  // A round is in flight exactly when read_round_ is not empty.
  std::vector<std::uint64_t> read_round_;
  std::uint64_t read_round_id_ = 0;
  DeadlineTimer read_round_timer_;
  // Reads that know their read index and wait to be applied up to it.
  std::vector<std::uint64_t> reads_indexed_;

  // Spare vector for lists built within one call (see Borrowed in etcd_member.cc).
  std::vector<std::uint64_t> spare_ids_;

  std::uint64_t next_request_id_ = 1;
  // Requests waiting for their answer, in id order (ids only grow, so appending keeps the
  // order). A vector, not a map: a member has a few dozen pending at most, and a map node
  // was an allocation and a tree insert and erase per request.
  using Pending = std::vector<std::pair<std::uint64_t, PendingRequest>>;
  Pending pending_;
  // The pending request `request_id`, or pending_.end(). Erasing from pending_ (finish_request)
  // invalidates what it returned.
  Pending::iterator find_pending(std::uint64_t request_id);
  // The ids of pending_ requests not in flight, in order (and ids of requests that finished
  // while waiting, skipped when met). Why not a walk of pending_: every client request would
  // walk all of them.
  std::vector<std::uint64_t> waiting_ids_;
  // An event is queued to send waiting requests on (after requests that came held).
  bool start_queued_ = false;
  // Due at the earliest deadline of pending_ (or earlier: it is not moved when that request
  // finishes first, and finds nothing to fail then).
  DeadlineTimer request_deadline_timer_;
  std::int64_t next_watch_id_ = 1;
  std::map<std::int64_t, Watcher> watchers_;
};

}  // namespace lockstep::sim
