// RunFacts: the lookups the explanation needs over one history, computed once.
//
// Contract: built from a history (and nothing else), it answers "what completed this invoke",
// "which faults hit this process in this span", "who believed it held the lock at this
// instant", "which key lifetime belongs to this acquire" and "what did the resource do with
// this write". Event indices are positions in history.events.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lockstep/checker/history.h"
#include "lockstep/checker/lock_truth.h"
#include "lockstep/checker/mutex_checker.h"
#include "lockstep/reports/fault_bands.h"

namespace lockstep::reports {

// One KV call of a client, from its kv-send and kv-end records (simulated runs).
struct CallRecord {
  std::string process;
  std::int64_t call = 0;
  std::string request;              // "put", "lease_keep_alive", ...
  std::string member;               // the member it was sent to
  std::int64_t lease = 0;           // keep-alive and revoke: the lease
  // put, delete and range: the key (and a range's end; "" for one key), unescaped bytes.
  std::optional<std::string> key;
  std::string range_end;
  // Whether this call read or wrote `k` (a range or delete covering it, a put of it); nullopt
  // when the history does not say (a txn, or a call recorded without its key).
  std::optional<bool> touches(const std::string& k) const;
  std::int64_t sent_ns = 0;
  std::int64_t end_ns = kStillOpen;  // kStillOpen: never ended
  std::string outcome;              // "ok", "error", "deadline", "connection-lost", "" (open)
  std::string error;
  std::int64_t invoke = -1;         // the client's operation open when it was sent (its invoke
                                    // event), or -1: sent between operations, or a keep-alive
                                    // (the session's own, not the operation's)
};

// What a cut link did with the messages it held (simulated runs): released them together at
// TCP's retransmission after the heal (`link-released`), or lost them with the connection
// its timeout ended (`link-dead`).
struct LinkEvent {
  std::string from;
  std::string to;
  std::int64_t held_since_ns = 0;  // when the first of them came to the cut
  std::int64_t at_ns = 0;          // released (TCP's retransmission arrived) or lost then
  std::int64_t read_ns = 0;        // when the receiver read the release (later, if paused)
  bool dead = false;
  std::int64_t messages = 0;
};

// A request a member dropped (simulated runs): another member had passed it on to it as the
// leader, but it no longer led and knew no leader (`proposal-dropped`).
struct DroppedProposal {
  std::string member;  // the member that dropped it
  std::int64_t at_ns = 0;
  ChangeCause cause;   // the request: its client and call, and the member that passed it on
  std::string reason;  // "no-leader" (it no longer led and knew none) or "leader-transfer"
};

// A member's campaign (simulated runs, `campaign`): it became a candidate of `term`.
struct Campaign {
  std::string member;
  std::int64_t at_ns = 0;
  std::int64_t term = 0;
  std::int64_t last_index = 0;  // its log's last entry, which voters compare with theirs
  std::int64_t last_term = 0;
  bool forced = false;          // a leadership hand-over's campaign
};

// A vote a member did not give (simulated runs, `vote-refused`).
struct VoteRefusal {
  std::string member;     // the voter
  std::string candidate;
  std::int64_t at_ns = 0;
  std::int64_t term = 0;
  std::string reason;     // "leader-lease", "stale-term", "log-behind", "voted"
  bool adopted_term = false;  // the voter took up the request's newer term, restarting its election timer
  std::int64_t candidate_last_index = 0, candidate_last_term = 0;  // log-behind: the two logs' last entries
  std::int64_t last_index = 0, last_term = 0;
  std::string voted_for;  // voted: for whom
};

// A change of the leader a member knows (simulated runs, `leader-view`).
struct LeaderView {
  std::string member;
  std::int64_t at_ns = 0;
  std::string leader;   // "" when it knows none
  std::int64_t term = 0;
  std::string from;     // losing one: the member whose message carried the newer term
  std::string message;  // losing one: that message, or "check-quorum", "campaign", "start"
};

// A client's call that a member cancelled on the client's cancellation (simulated runs,
// `request-cancelled`): the client cancels a call at its deadline.
struct CancelledCall {
  std::string member;
  std::string client;
  std::int64_t call = 0;
  std::int64_t at_ns = 0;
  bool started = false;  // sent on before the cancellation (it may still take effect); else never run
};

// A step of a client's write through the cluster (simulated runs, `request-forwarded` and
// `request-appended`): `member` passed it on to `to`, the leader it knew; or, as leader of
// `term`, appended it to its log as entry `index` (`to` empty).
struct RequestStep {
  std::string member;
  std::int64_t at_ns = 0;
  std::string to;
  std::int64_t term = 0;
  std::int64_t index = 0;
  ChangeCause cause;
  bool appended() const { return to.empty(); }
};

class RunFacts {
 public:
  explicit RunFacts(const History& history);

  const History& history() const { return history_; }
  const LockTruth& truth() const { return truth_; }
  const std::vector<FaultBand>& faults() const { return faults_; }
  const std::vector<HoldingInterval>& holdings() const { return holdings_; }
  std::int64_t end_ns() const { return end_ns_; }

  // The event at position `index`, or nullptr when out of range.
  const HistoryEvent* event(std::int64_t index) const;
  // The ok/fail/info that closed the operation `invoke` opened, or nullptr (still open).
  const HistoryEvent* completion_of(std::int64_t invoke) const;
  // Faults hitting `process` (or the whole cluster, when `with_cluster`) that were active at
  // some instant of [from_ns, to_ns].
  std::vector<const FaultBand*> faults_hitting(const std::string& process, std::int64_t from_ns,
                                               std::int64_t to_ns, bool with_cluster = false) const;
  // The lock key an acquire created: owner == process and create_revision == key_revision,
  // else the last key `process` owned that was created at or before `at_ns`.
  const KeyLifetime* key_of(const std::string& process, std::int64_t key_revision,
                            std::int64_t at_ns) const;
  // Every recorded KV call, in send order.
  const std::vector<CallRecord>& calls() const { return calls_; }
  // The client's KV calls sent in [from_ns, to_ns] (all requests when `request` is empty), in
  // send order.
  std::vector<const CallRecord*> calls_of(const std::string& process, std::int64_t from_ns,
                                          std::int64_t to_ns, const std::string& request = "") const;
  // The call `call` of `process`, or nullptr when the history does not record it.
  const CallRecord* find_call(const std::string& process, std::int64_t call) const;
  // Every release or death of a cut link's held messages, in time order.
  const std::vector<LinkEvent>& link_events() const { return link_events_; }
  // The member's cancellation of `client`'s call `call`, or nullptr when none is recorded.
  const CancelledCall* cancelled(const std::string& client, std::int64_t call) const;
  // The members of the history: those its faults, leaders, campaigns and views of the leader
  // name, and as many as a simulated run's header counts (a member no record names is one too).
  std::set<std::string> members() const;
  // Every change of a member's known leader, in time order.
  const std::vector<LeaderView>& leader_views() const { return leader_views_; }
  // Every campaign and every refused vote, in time order.
  const std::vector<Campaign>& campaigns() const { return campaigns_; }
  const std::vector<VoteRefusal>& vote_refusals() const { return vote_refusals_; }
  // The drop within [from_ns, to_ns] of the request `call` of `client` (for a lock service's
  // request, the client call it served), or nullptr.
  const DroppedProposal* dropped_proposal(const std::string& client, std::int64_t call, std::int64_t from_ns,
                                          std::int64_t to_ns) const;
  // The recorded steps of the request `by` names (its client and call, and a lock service's
  // own call), in time order; empty when the history does not record them.
  std::vector<const RequestStep*> request_steps(const ChangeCause& by) const;
  // The spans within [from_ns, to_ns] of at least `min_ns` when no member led the cluster (from
  // the leader-elected / leader-stepped-down truth; empty when the history records no leaders).
  std::vector<std::pair<std::int64_t, std::int64_t>> leaderless(std::int64_t from_ns, std::int64_t to_ns,
                                                                std::int64_t min_ns) const;
  // Whether `key` is a lock key: one an acquire was granted on or created, not data a client
  // wrote in etcd as its protected resource (a guarded algorithm's data key, written during
  // a write).
  bool is_lock_key(const KeyLifetime& key) const;
  // The lock keys alive at `at_ns`.
  std::vector<const KeyLifetime*> keys_at(std::int64_t at_ns) const;
  // The truth event that carried out the client's operation opened by `invoke`: the
  // "resource-write"/"resource-read" with its client, token, value and base, or for a guarded
  // write (data kept in etcd) the "key-put" its call made; nullptr when it never took effect.
  // An unacknowledged write is looked for to the end of the history (it may arrive late).
  const HistoryEvent* resource_effect(std::int64_t invoke) const;

 private:
  const History& history_;
  LockTruth truth_;
  std::vector<FaultBand> faults_;
  std::vector<HoldingInterval> holdings_;
  std::vector<std::int64_t> completion_;  // per event: its completion's index, or -1
  std::vector<CallRecord> calls_;          // in send order
  std::vector<LinkEvent> link_events_;     // in time order
  std::vector<DroppedProposal> dropped_;   // in time order
  std::vector<RequestStep> request_steps_;  // in time order
  std::vector<Campaign> campaigns_;        // in time order
  std::vector<CancelledCall> cancelled_;   // in time order
  std::vector<LeaderView> leader_views_;   // in time order
  std::vector<VoteRefusal> vote_refusals_;  // in time order
  std::int64_t end_ns_ = 0;
};

// "from 6.995 s to 20.349 s", "at 3.021 s" (instant), "from 6.995 s until the end".
std::string fault_span(const FaultBand& band);

}  // namespace lockstep::reports
