// EtcdMember: one member of the simulated etcd cluster.
//
// Contract (what a lock client can observe of a real etcd member, not Raft line by line):
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
#include "lockstep/sim/world.h"

namespace lockstep::sim {

class EtcdCluster;

enum class MemberRole { follower, candidate, leader };

class EtcdMember {
 public:
  EtcdMember(EtcdCluster& cluster, int index, ProcessId pid, Rng rng);

  int index() const { return index_; }
  ProcessId pid() const { return pid_; }
  std::uint64_t member_id() const;
  MemberRole role() const { return role_; }
  bool is_leader() const { return role_ == MemberRole::leader; }
  std::uint64_t term() const { return term_; }
  int known_leader() const { return leader_; }
  const EtcdStore& store() const { return store_; }
  std::uint64_t applied_index() const { return applied_index_; }
  std::uint64_t commit_index() const { return commit_index_; }
  // The first log index still in memory (1 until the first compaction, see log_offset_).
  std::uint64_t first_index_in_memory() const { return log_offset_ + 1; }
  std::uint64_t last_log_index() const { return log_offset_ + log_.size(); }

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

  // ---- raft messages (delivered by the network as events of this member) ----
  struct VoteRequest {
    std::uint64_t term;
    int candidate;
    std::uint64_t last_log_index;
    std::uint64_t last_log_term;
    bool forced;  // leadership transfer: ignore the leader lease
  };
  struct VoteReply {
    std::uint64_t term;
    int from;
    bool granted;
  };
  struct Append {
    std::uint64_t term;
    int leader;
    std::uint64_t prev_index;
    std::uint64_t prev_term;
    std::vector<SharedLogEntry> entries;
    std::uint64_t leader_commit;
    std::uint64_t heartbeat_seq;
    // Every member's log holds the leader's entries up to here (the least match index): the
    // follower may drop them from memory once applied (see compact_log).
    std::uint64_t held_by_all;
    // False for an empty append to a replicating follower, which only carries a commit index:
    // accepting it tells the leader nothing, so the follower does not answer it.
    bool needs_ack;
  };
  struct AppendReply {
    std::uint64_t term;
    int from;
    bool success;
    std::uint64_t match_index;    // on success: the last index matching the leader's log
    std::uint64_t rejected_prev;  // on failure: the prev_index that did not match
    std::uint64_t last_index;     // on failure: the follower's last index (where to probe)
    std::uint64_t heartbeat_seq;
  };
  // A heartbeat carries no entries, so it needs no log check: its commit index is one the
  // follower's log is known to match (the leader's commit, capped at the follower's match).
  struct Heartbeat {
    std::uint64_t term;
    int leader;
    std::uint64_t commit;
    std::uint64_t heartbeat_seq;
  };
  struct HeartbeatReply {
    std::uint64_t term;
    int from;
    std::uint64_t heartbeat_seq;
  };
  void on_vote_request(const VoteRequest& m);
  void on_vote_reply(const VoteReply& m);
  void on_append(const Append& m);
  void on_append_reply(const AppendReply& m);
  void on_heartbeat(const Heartbeat& m);
  void on_heartbeat_reply(const HeartbeatReply& m);
  void on_timeout_now();
  // The transfer's last step, once the successor's log matches the leader's.
  void send_timeout_now(int successor);
  // A proposal this leader drops while it hands over leadership.
  void drop_proposal(LogEntry&& entry);
  // A proposal another member forwarded to this one, as to its leader. A member that no
  // longer leads forwards it on to the leader it knows, as raft's followers do (dropped when
  // it knows none). One read together with other messages (after a pause, or released by a
  // healed cut) is stepped after them: etcd's transport hands proposals to raft on their own
  // goroutine, apart from the peer's other messages, so a deposed leader usually learns of its
  // successor first and passes the proposal on to it.
  void on_forwarded_proposal(Box<LogEntry>&& entry);
  void step_forwarded_proposal(Box<LogEntry>&& entry);
  // A proposal reached the leader (or the leader proposes): appended to its log in its term.
  void on_proposal(LogEntry&& entry);
  // ReadIndex: a member asks the leader for a commit index it may read at (`round` names the
  // asking member's read round; `passed_on` when a follower passed it on).
  void on_read_index_request(int from, std::uint64_t round, bool passed_on = false);
  void on_read_index_reply(std::uint64_t round, std::uint64_t index);
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

  // Roles and timers.
  void become_follower(std::uint64_t term, int leader);
  void become_candidate(bool forced);
  void become_leader();
  // A message from the leader of `term` (not older than ours): follow it, and count it as
  // hearing from a live leader.
  void follow(std::uint64_t term, int leader);
  // A follower learned that entries up to `index` (which its log holds) are committed.
  void commit_to(std::uint64_t index);
  // A reply to this leader's message: steps down if the reply carries a newer term; true when
  // this member still leads the reply's term, so the reply counts.
  bool leads_term_of_reply(std::uint64_t reply_term);
  // Raft's election timeout, as etcd counts it: a new random timeout in [T, 2T) on every
  // change of role or term (`redraw`), else the same timeout counted again from now (a
  // message from the leader, a vote granted).
  void restart_election_timeout(bool redraw);
  void on_election_timeout();
  void schedule_heartbeat();
  void schedule_lease_scan();
  void broadcast_heartbeat();
  // Sends `peer` what it lacks (new entries or a newer commit index) if flow control allows:
  // the peer is replicating and has no append unacknowledged.
  void maybe_send_append(int peer);
  // Sends the entries from the peer's next index; a replicating peer's next index moves past
  // them at once (Raft's optimistic update).
  void send_append(int peer);
  // A follower stopped matching or an append went missing: probe from `next_index`.
  void start_probe(int peer, std::uint64_t next_index);
  // Entry `index`, which must be in memory (after log_offset_).
  const SharedLogEntry& log_entry(std::uint64_t index) const {
    LOCKSTEP_INVARIANT(index > log_offset_ && index <= last_log_index(),
                       "an entry is read only while the log holds it");
    return log_[index - log_offset_ - 1];
  }
  std::uint64_t log_term(std::uint64_t index) const {
    return index == log_offset_ ? log_offset_term_ : log_entry(index)->term;
  }
  // The least index every member's log holds (a leader's view: its match indexes).
  std::uint64_t held_by_all() const;
  // Drops from memory the entries up to `held_by_all` that this member applied.
  void compact_log(std::uint64_t held_by_all);
  int quorum() const;
  void advance_commit();
  void apply_committed();
  // Applies a committed entry to the store, and reports it to the cluster. Builds the
  // response into `response` when it is not null. Why not always: two members in three
  // apply an entry no client of theirs waits for, and building and dropping a response each
  // time cost about 2 % of a simulated KV request's instructions.
  void apply_entry(const LogEntry& entry, std::optional<Result<ClientResponse>>* response);

  // Serving.
  // `call` is the client call the request came with (the truth events name it as the cause).
  void propose(LogOp&& op, std::uint64_t request_id, const ReplyRoute& call);
  // Appends `entry` to the log if this member leads, else forwards it to the known leader
  // (leader_ >= 0), as raft forwards a follower's proposal.
  void submit(LogEntry&& entry);
  void start_read(std::uint64_t request_id);
  // Sends the waiting reads' ReadIndex round, unless one is in flight or no leader is known.
  void maybe_start_read_round();
  void send_read_round();
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
  void confirm_reads(std::uint64_t acked_seq, int from);

  EtcdCluster& cluster_;
  const int index_;
  const ProcessId pid_;
  Rng rng_;

  // Persistent state: survives a crash.
  std::uint64_t term_ = 0;
  int voted_for_ = -1;
  // Entries log_offset_ + 1 .. last_log_index(). Earlier ones were dropped: every member's log
  // held them and this member had applied them, so no member will send or apply them again
  // (etcd compacts its raft log at each snapshot in the same way; lockstep needs no snapshot
  // because it drops only what every member holds). Why: the log was a third of the memory a
  // long KV load grows by, and on these machines memory touched for the first time costs
  // more CPU time than the simulation that fills it.
  std::vector<SharedLogEntry> log_;
  std::uint64_t log_offset_ = 0;
  std::uint64_t log_offset_term_ = 0;  // the term of entry log_offset_ (0 for none)
  EtcdStore store_;
  std::uint64_t applied_index_ = 0;
  // etcd's lock service (v3lock) on this member. Volatile: a crash ends its calls.
  LockService lock_service_;

  // Volatile state.
  MemberRole role_ = MemberRole::follower;
  int leader_ = -1;
  // The last leader this member knew of (etcd's leaderChanged notifier fires when another
  // becomes known): a read round out for a ReadIndex then fails with "leader changed".
  int last_known_leader_ = -1;
  // Set while the batch of what came held (World::running_held) brought news of another
  // leader: a read in the same batch fails with "leader changed".
  bool leader_news_held_ = false;
  void note_leader(int leader);
  std::uint64_t commit_index_ = 0;
  Duration election_timeout_local_{0};  // the current randomized timeout
  DeadlineTimer election_timer_;         // armed while not leading
  std::uint64_t heartbeat_generation_ = 0;
  Duration last_heard_leader_local_{-1'000'000'000'000LL};
  std::set<int> votes_;
  // Leader state per member index, sized by become_leader (empty until then). Vectors, not
  // maps: they are read on every append reply.
  std::vector<std::uint64_t> next_index_;
  std::vector<std::uint64_t> match_index_;
  // Leader: which peers answered since the last check-quorum, and the heartbeat ticks since it.
  std::vector<char> recent_active_;
  std::int64_t quorum_check_ticks_ = 0;
  // Raft's progress state: a probing peer gets one append at a time, sent on a reply; a
  // replicating one has its next index moved past what was sent.
  std::vector<char> probing_;
  std::vector<std::uint64_t> commit_sent_;       // the commit index last sent to each peer
  std::vector<Duration> append_sent_local_;      // when the last append to each peer went
  std::uint64_t heartbeat_seq_ = 0;
  std::vector<std::uint64_t> acked_seq_;
  // ReadIndex requests at the leader, in heartbeat round order: each answers `from`'s
  // `round` with `commit_index` once a quorum has acknowledged heartbeat round `seq`.
  struct LeaderRead {
    std::uint64_t seq;
    std::uint64_t commit_index;
    int from;
    std::uint64_t round;
  };
  std::vector<LeaderRead> leader_reads_;
  // ReadIndex requests that came before this leader committed an entry of its term: its
  // commit index may still lag what earlier leaders committed. (from, round)
  std::vector<std::pair<int, std::uint64_t>> deferred_read_requests_;
  std::set<LeaseId> revoking_;
  // Leases whose revoke proposal was dropped (during a leadership transfer), with when the
  // lessor may try again: etcd's lessor re-finds an expired lease not yet revoked after its
  // expired-lease retry interval (3 s).
  std::map<LeaseId, MonoTime> revoke_retry_at_;
  // The member a leadership transfer goes to (-1: none in progress).
  int lead_transferee_ = -1;
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

  // Spare vectors for lists built within one call (see Borrowed in etcd_member.cc).
  std::vector<std::uint64_t> spare_ids_;
  std::vector<LeaderRead> spare_leader_reads_;

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
