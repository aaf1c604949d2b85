// RaftNode: the consensus of one simulated etcd member, as a state machine of its own, in the
// shape of etcd's raft package (Step, timer inputs, Ready).
//
// Contract:
//   - A RaftNode reads no clock, draws no random number, sends nothing and applies nothing.
//     Its driver gives it inputs: a message from a peer (step), a proposal, a ReadIndex
//     request of its own member, the firing of its election or heartbeat timer, a leadership
//     transfer. Each input carries the driver's local monotonic time (`now_local`), which the
//     node keeps only to compare later times with (check-quorum's leader lease, a lost append).
//   - After each input the driver takes the node's Ready (take_ready): the outputs of that
//     input, in the order the node produced them (messages to send, a new commit index, a read
//     index answered, a change of role, the election timer to reset). The driver acts on them
//     in that order before its next input. An action may itself give the node an input (a
//     new leader known: the member sends its waiting proposals); the driver then acts on that
//     input's outputs at once, before the rest of the earlier Ready, as if the node had called
//     it where the output was produced. Why this order and not etcd's (persist, send, apply):
//     the simulator's event order, and so every seed's run, is the one the member had before
//     raft was a state machine of its own (the golden hashes did not change).
//   - The driver applies committed entries (entry(), log_term()) and reports each with
//     applied_to(). The log, term, vote and applied index survive a crash; restart() begins
//     again from them.
//   - Safety rules asserted here, in every build: a committed entry is never overwritten, the
//     applied index never passes the commit index, a leader appends only in its own term.
//
// The messages are etcd raft's: vote requests and replies, appends (with Raft's probe and
// replicate flow control, one append in flight), heartbeats carrying the commit index,
// TimeoutNow for a transfer, a forwarded proposal, and ReadIndex with its answer. Elections
// follow etcd: a random timeout the driver draws in [T, 2T), check-quorum counted in heartbeat
// ticks, and a member that hears a live leader ignores campaigns unless forced by a transfer.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "lockstep/kv/invariant.h"
#include "lockstep/kv/time.h"
#include "lockstep/sim/box.h"
#include "lockstep/sim/etcd_messages.h"

namespace lockstep::sim {

enum class MemberRole { follower, candidate, leader };

struct RaftConfig {
  int self = 0;     // this node's index in 0 .. members-1
  int members = 1;  // the cluster's size
  Duration election_timeout{0};
  Duration heartbeat_interval{0};
};

// ---- messages between nodes ----
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
// The last step of a leadership transfer: campaign now, over any leader lease. A TimeoutNow of
// an older term (delayed past a later election) is ignored, as every raft message of an older
// term is.
struct TimeoutNow {
  std::uint64_t term;
};
// A proposal a member passes to the leader it knows.
struct ForwardedProposal {
  Box<LogEntry> entry;
};
// ReadIndex: `from` asks the leader for a commit index to read at, for its read `round`.
// `passed_on` when a follower passed it on (once only).
struct ReadIndexRequest {
  int from;
  std::uint64_t round;
  bool passed_on;
};
struct ReadIndexReply {
  std::uint64_t round;
  std::uint64_t index;
};
using RaftMessage = std::variant<VoteRequest, VoteReply, Append, AppendReply, Heartbeat,
                                 HeartbeatReply, TimeoutNow, ForwardedProposal, ReadIndexRequest,
                                 ReadIndexReply>;

// ---- outputs (a Ready is a list of these, in order) ----
struct SendMessage {
  template <typename Message>
  SendMessage(int to_member, Message&& m)
      : to(to_member), message(std::in_place_type<std::decay_t<Message>>, std::forward<Message>(m)) {}
  int to;
  RaftMessage message;
};
// This node won an election in `term`.
struct BecameLeader {
  std::uint64_t term;
};
// What made a node give up its role: a message from member `from` (`message`: "append",
// "heartbeat", "append-reply", "heartbeat-reply", "vote-request", "vote-reply" or
// "timeout-now") carrying term `seen_term`, or, with `from` -1 and `message` "check-quorum",
// its own check-quorum, which heard from no majority within an election timeout. `forced`:
// the message was the vote request of a leadership hand-over.
struct TermNews {
  int from = -1;
  const char* message = "check-quorum";
  std::uint64_t seen_term = 0;
  bool forced = false;
};
// This node follows (or waits for) `leader` (-1: none known). `was_leader`: it led in
// `previous_term` until now, and `why` says what ended it (check-quorum, a higher term seen,
// a hand-over).
struct BecameFollower {
  std::uint64_t previous_term;
  bool was_leader;
  int leader;
  TermNews why;
  // This node's log then: its last entry and the commit index it knew (a leader that steps
  // down may leave entries it appended but never committed).
  std::uint64_t last_log_index = 0;
  std::uint64_t commit_index = 0;
};
// A leader is known (this node, or the one it now follows): requests held for want of one
// may go on.
struct LeaderAvailable {};
// Restart the election timer: with a newly drawn random timeout (`redraw`, on a change of
// role or term), else with the same timeout counted again from now.
struct ResetElectionTimer {
  bool redraw;
};
// Entries up to `index` are committed: apply them.
struct Committed {
  std::uint64_t index;
};
// This node's ReadIndex `round` may read once it has applied up to `index`.
struct ReadState {
  std::uint64_t round;
  std::uint64_t index;
};
// A proposal this leader drops while it hands leadership over ("raft proposal dropped").
struct ProposalDropped {
  LogEntry entry;
};
// A proposal another member passed on to this one as the leader, which this node neither
// leads nor knows a leader to pass it to: raft drops it, and the member that passed it on is
// not told (its client waits for its deadline).
struct ForwardedProposalDropped {
  LogEntry entry;
};
// This node campaigns: it became a candidate of `term`, asking for votes with its log's last
// entry (`last_log_index`, `last_log_term`). `forced`: a leadership hand-over's campaign.
struct Campaigned {
  std::uint64_t term;
  std::uint64_t last_log_index;
  std::uint64_t last_log_term;
  bool forced;
};
// Why a vote was not given (Raft's rules, as etcd's raft applies them).
enum class VoteRefusal {
  leader_lease,  // this node heard from a live leader within an election timeout (etcd's
                 // check-quorum lease): the request is ignored, unanswered
  stale_term,    // the request's term is older than this node's
  log_behind,    // the candidate's log is not as up to date as this node's
  voted,         // this node already voted for another candidate in that term
};
// "leader-lease", "stale-term", "log-behind", "voted": as the history records it.
const char* vote_refusal_name(VoteRefusal reason);
// A vote request from `candidate` for `term` that this node did not grant. `adopted_term`:
// the request's term was newer than this node's, which took it up and restarted its election
// timer (with a new random timeout) before refusing. The last-entry fields are the
// candidate's (from its request) and this node's own, as compared.
struct VoteRefused {
  int candidate;
  std::uint64_t term;
  VoteRefusal reason;
  bool adopted_term;
  std::uint64_t candidate_last_log_index;
  std::uint64_t candidate_last_log_term;
  std::uint64_t last_log_index;
  std::uint64_t last_log_term;
  int voted_for;  // for `voted`: whom it voted for
};
using RaftOutput = std::variant<SendMessage, BecameLeader, BecameFollower, LeaderAvailable,
                                ResetElectionTimer, Committed, ReadState, ProposalDropped,
                                ForwardedProposalDropped, Campaigned, VoteRefused>;

class RaftNode {
 public:
  explicit RaftNode(RaftConfig config);

  // ---- inputs ----
  // Starts as a follower with no leader (the run's start, or after a restart): the commit
  // index starts at the applied index.
  void start(Duration now_local);
  // Volatile state is lost (a crash); start() follows when the member restarts.
  void crash();
  void step(const VoteRequest& m, Duration now_local);
  void step(const VoteReply& m, Duration now_local);
  void step(const Append& m, Duration now_local);
  void step(const AppendReply& m, Duration now_local);
  void step(const Heartbeat& m, Duration now_local);
  void step(const HeartbeatReply& m, Duration now_local);
  void step(const TimeoutNow& m, Duration now_local);
  void step(ForwardedProposal&& m, Duration now_local);
  void step(const ReadIndexRequest& m, Duration now_local);
  void step(const ReadIndexReply& m, Duration now_local);
  void step(RaftMessage&& m, Duration now_local);
  // A proposal: appended in this leader's term, or passed on to the leader this node knows
  // (dropped when it knows none, or while this leader hands over).
  void propose(LogEntry&& entry, Duration now_local);
  // The election timer fired (not leading): campaign.
  void election_timeout(Duration now_local);
  // The heartbeat timer fired (leading): check-quorum, then a heartbeat round.
  void heartbeat_timeout(Duration now_local);
  // etcd's MoveLeader: bring `successor` up to date, then send it TimeoutNow.
  void transfer_leadership(int successor, Duration now_local);
  // This node's member asks for a read index for its read `round` (answered by a ReadState).
  void read_index(std::uint64_t round, Duration now_local);
  // The driver applied entries up to `index` (<= commit_index()).
  void applied_to(std::uint64_t index);

  // ---- Ready ----
  bool has_ready() const { return !ready_.empty(); }
  // Hands the outputs over into `into` (emptied first), leaving none.
  void take_ready(std::vector<RaftOutput>& into) {
    into.clear();
    into.swap(ready_);
  }

  // ---- state ----
  int self() const { return config_.self; }
  MemberRole role() const { return role_; }
  bool is_leader() const { return role_ == MemberRole::leader; }
  std::uint64_t term() const { return term_; }
  int leader() const { return leader_; }
  int voted_for() const { return voted_for_; }
  std::uint64_t commit_index() const { return commit_index_; }
  std::uint64_t applied_index() const { return applied_index_; }
  std::uint64_t first_index_in_memory() const { return log_offset_ + 1; }
  std::uint64_t last_log_index() const { return log_offset_ + log_.size(); }
  // Entry `index`, which must be in memory (after log_offset_).
  const SharedLogEntry& entry(std::uint64_t index) const {
    LOCKSTEP_INVARIANT(index > log_offset_ && index <= last_log_index(),
                       "an entry is read only while the log holds it");
    return log_[index - log_offset_ - 1];
  }
  std::uint64_t log_term(std::uint64_t index) const {
    return index == log_offset_ ? log_offset_term_ : entry(index)->term;
  }
  // Leader only (0 otherwise): how far `peer`'s log is known to match this one.
  std::uint64_t match_index(int peer) const {
    return match_index_.empty() ? 0 : match_index_[static_cast<std::size_t>(peer)];
  }
  // Leader only: whether `peer` is probed (one append at a time) rather than replicated to.
  bool probing(int peer) const {
    return !probing_.empty() && probing_[static_cast<std::size_t>(peer)] != 0;
  }
  int lead_transferee() const { return lead_transferee_; }

 private:
  struct LeaderRead {
    std::uint64_t seq;
    std::uint64_t commit_index;
    int from;
    std::uint64_t round;
  };

  // Builds the message in place in the Ready (a raft message is moved once more, into the
  // driver's closure, and no further).
  template <typename Message>
  void send(int to, Message&& message) {
    ready_.emplace_back(std::in_place_type<SendMessage>, to, std::forward<Message>(message));
  }
  void become_follower(std::uint64_t term, int leader, TermNews why);
  void become_candidate(bool forced);
  void become_leader();
  // A message from the leader of `term` (not older than ours): follow it, and count it as
  // hearing from a live leader.
  void follow(std::uint64_t term, int leader, const char* message);
  // A follower learned that entries up to `index` (which its log holds) are committed.
  void commit_to(std::uint64_t index);
  // A reply to this leader's message: steps down if the reply carries a newer term; true when
  // this node still leads the reply's term, so the reply counts.
  bool leads_term_of_reply(std::uint64_t reply_term, int from, const char* message);
  void broadcast_heartbeat();
  // Sends `peer` what it lacks (new entries or a newer commit index) if flow control allows:
  // the peer is replicating and has no append unacknowledged.
  void maybe_send_append(int peer);
  // Sends the entries from the peer's next index; a replicating peer's next index moves past
  // them at once (Raft's optimistic update).
  void send_append(int peer);
  // A follower stopped matching or an append went missing: probe from `next_index`.
  void start_probe(int peer, std::uint64_t next_index);
  void append_to_log(LogEntry&& entry);
  // The least index every member's log holds (a leader's view: its match indexes).
  std::uint64_t held_by_all() const;
  // Drops from memory the entries up to `held_by_all` that the driver applied.
  void compact_log(std::uint64_t held_by_all);
  int quorum() const { return config_.members / 2 + 1; }
  void advance_commit();
  void handle_read_index(int from, std::uint64_t round, bool passed_on);
  void confirm_reads(std::uint64_t acked_seq, int from);

  const RaftConfig config_;
  Duration now_local_{0};
  std::vector<RaftOutput> ready_;

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
  std::uint64_t applied_index_ = 0;

  // Volatile state.
  MemberRole role_ = MemberRole::follower;
  int leader_ = -1;
  std::uint64_t commit_index_ = 0;
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
  std::vector<std::uint64_t> commit_sent_;   // the commit index last sent to each peer
  std::vector<Duration> append_sent_local_;  // when the last append to each peer went
  std::uint64_t heartbeat_seq_ = 0;
  std::vector<std::uint64_t> acked_seq_;
  // ReadIndex requests at the leader, in heartbeat round order: each answers `from`'s
  // `round` with `commit_index` once a quorum has acknowledged heartbeat round `seq`.
  std::vector<LeaderRead> leader_reads_;
  // ReadIndex requests that came before this leader committed an entry of its term: its
  // commit index may still lag what earlier leaders committed. (from, round)
  std::vector<std::pair<int, std::uint64_t>> deferred_read_requests_;
  // The member a leadership transfer goes to (-1: none in progress).
  int lead_transferee_ = -1;
};

}  // namespace lockstep::sim
