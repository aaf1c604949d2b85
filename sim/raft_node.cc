#include "lockstep/sim/raft_node.h"

#include <algorithm>
#include <utility>

namespace lockstep::sim {

namespace {
// The most entries one append carries.
constexpr std::size_t kMaxEntriesPerAppend = 256;
// Entries dropped from memory at least at a time (see compact_log).
constexpr std::uint64_t kLogCompactionBatch = 4096;
}  // namespace

RaftNode::RaftNode(RaftConfig config) : config_(config) {
  LOCKSTEP_INVARIANT(config_.members >= 1 && config_.self >= 0 && config_.self < config_.members,
                     "a node is one of its cluster's members");
}

// ---------------------------------------------------------------- lifecycle

void RaftNode::start(Duration now_local) {
  now_local_ = now_local;
  role_ = MemberRole::follower;
  leader_ = -1;
  commit_index_ = applied_index_;
  ready_.emplace_back(ResetElectionTimer{/*redraw=*/true});
  // A one-member cluster still holds an election, after its first timeout, like etcd.
}

void RaftNode::crash() {
  role_ = MemberRole::follower;
  leader_ = -1;
  votes_.clear();
  next_index_.clear();
  match_index_.clear();
  recent_active_.clear();
  probing_.clear();
  commit_sent_.clear();
  append_sent_local_.clear();
  acked_seq_.clear();
  leader_reads_.clear();
  deferred_read_requests_.clear();
  lead_transferee_ = -1;
  ready_.clear();
}

void RaftNode::applied_to(std::uint64_t index) {
  LOCKSTEP_INVARIANT(index <= commit_index_, "only committed entries are applied");
  LOCKSTEP_INVARIANT(index >= applied_index_, "the applied index only grows");
  applied_index_ = index;
}

const char* vote_refusal_name(VoteRefusal reason) {
  switch (reason) {
    case VoteRefusal::leader_lease: return "leader-lease";
    case VoteRefusal::stale_term: return "stale-term";
    case VoteRefusal::log_behind: return "log-behind";
    case VoteRefusal::voted: return "voted";
  }
  return "unknown";
}

// ---------------------------------------------------------------- roles

void RaftNode::become_follower(std::uint64_t term, int leader, TermNews why) {
  const bool was_leader = role_ == MemberRole::leader;
  const std::uint64_t previous_term = term_;
  if (term > term_) {
    term_ = term;
    voted_for_ = -1;
  }
  role_ = MemberRole::follower;
  leader_ = leader;
  lead_transferee_ = -1;
  ready_.emplace_back(BecameFollower{previous_term, was_leader, leader, why, last_log_index(), commit_index_});
  if (was_leader) {
    leader_reads_.clear();
    deferred_read_requests_.clear();
    // Members whose ReadIndex this node would have answered ask again (their round's retry
    // timer), and the new leader answers.
  }
  if (leader >= 0) {
    last_heard_leader_local_ = now_local_;
    ready_.emplace_back(LeaderAvailable{});
  }
  ready_.emplace_back(ResetElectionTimer{/*redraw=*/true});
}

void RaftNode::become_candidate(bool forced) {
  role_ = MemberRole::candidate;
  ++term_;
  voted_for_ = config_.self;
  leader_ = -1;
  votes_ = {config_.self};
  ready_.emplace_back(Campaigned{term_, last_log_index(), log_term(last_log_index()), forced});
  ready_.emplace_back(ResetElectionTimer{/*redraw=*/true});
  if (static_cast<int>(votes_.size()) >= quorum()) {
    become_leader();
    return;
  }
  const VoteRequest req{term_, config_.self, last_log_index(), log_term(last_log_index()), forced};
  for (int peer = 0; peer < config_.members; ++peer)
    if (peer != config_.self) send(peer, req);
}

void RaftNode::become_leader() {
  role_ = MemberRole::leader;
  leader_ = config_.self;
  ready_.emplace_back(BecameLeader{term_});
  const auto members = static_cast<std::size_t>(config_.members);
  next_index_.assign(members, last_log_index() + 1);
  match_index_.assign(members, 0);
  recent_active_.assign(members, 0);
  quorum_check_ticks_ = 0;
  probing_.assign(members, 1);
  commit_sent_.assign(members, 0);
  append_sent_local_.assign(members, now_local_);
  acked_seq_.assign(members, 0);
  // An empty entry of the new term lets the leader commit what earlier terms left behind
  // (Raft's no-op); a no-op compaction request is not used: an empty txn is a read-only no-op.
  LogEntry noop;
  noop.op = TxnRequest{};
  append_to_log(std::move(noop));
  for (int peer = 0; peer < config_.members; ++peer)
    if (peer != config_.self) send_append(peer);  // probes: where does each log agree with ours?
  advance_commit();
  ready_.emplace_back(LeaderAvailable{});
}

void RaftNode::follow(std::uint64_t term, int leader, const char* message) {
  if (term > term_ || role_ != MemberRole::follower || leader_ != leader) {
    become_follower(term, leader, TermNews{leader, message, term});
  } else {
    last_heard_leader_local_ = now_local_;
    ready_.emplace_back(ResetElectionTimer{/*redraw=*/false});
  }
}

bool RaftNode::leads_term_of_reply(std::uint64_t reply_term, int from, const char* message) {
  if (reply_term > term_) {
    become_follower(reply_term, -1, TermNews{from, message, reply_term});
    return false;
  }
  return role_ == MemberRole::leader && reply_term == term_;
}

// ---------------------------------------------------------------- timers

void RaftNode::election_timeout(Duration now_local) {
  now_local_ = now_local;
  if (role_ == MemberRole::leader) return;
  become_candidate(/*forced=*/false);
}

void RaftNode::heartbeat_timeout(Duration now_local) {
  now_local_ = now_local;
  if (role_ != MemberRole::leader) return;
  // Check-quorum, as raft counts it: every election timeout's worth of heartbeat ticks, a
  // leader that heard from no majority since the last check steps down (so a cut-off leader
  // steps down after one to two election timeouts). Ticks, not time: a leader that was paused
  // gets one tick on resume, and reads what came meanwhile before its next check.
  const std::int64_t election_ticks =
      std::max<std::int64_t>(1, config_.election_timeout / config_.heartbeat_interval);
  if (++quorum_check_ticks_ >= election_ticks) {
    quorum_check_ticks_ = 0;
    int recent = 1;
    for (std::size_t peer = 0; peer < recent_active_.size(); ++peer) {
      if (peer != static_cast<std::size_t>(config_.self) && recent_active_[peer]) ++recent;
      recent_active_[peer] = 0;
    }
    if (recent < quorum()) {
      become_follower(term_, -1, TermNews{});
      return;
    }
    lead_transferee_ = -1;  // a transfer not done in an election timeout is abandoned
  }
  broadcast_heartbeat();
}

// ---------------------------------------------------------------- replication (leader)

void RaftNode::broadcast_heartbeat() {
  ++heartbeat_seq_;
  acked_seq_[static_cast<std::size_t>(config_.self)] = heartbeat_seq_;
  for (int peer = 0; peer < config_.members; ++peer) {
    if (peer == config_.self) continue;
    const auto p = static_cast<std::size_t>(peer);
    const Heartbeat m{term_, config_.self, std::min(match_index_[p], commit_index_), heartbeat_seq_};
    commit_sent_[p] = std::max(commit_sent_[p], m.commit);
    send(peer, m);
  }
  confirm_reads(heartbeat_seq_, config_.self);
}

void RaftNode::maybe_send_append(int peer) {
  const auto p = static_cast<std::size_t>(peer);
  if (probing_[p]) return;                           // a reply sends the next probe
  if (match_index_[p] + 1 < next_index_[p]) return;  // one append in flight at a time
  if (next_index_[p] > last_log_index() && commit_sent_[p] >= commit_index_) return;
  send_append(peer);
}

void RaftNode::start_probe(int peer, std::uint64_t next_index) {
  const auto p = static_cast<std::size_t>(peer);
  probing_[p] = 1;
  // Entries up to log_offset_ are held by every member (compact_log): a probe starts after
  // them. (A new leader probing from a match index it has not learned yet, 0, would else ask
  // for entries it no longer has.)
  next_index_[p] = std::max<std::uint64_t>(log_offset_ + 1, next_index);
  send_append(peer);
}

void RaftNode::send_append(int peer) {
  const auto p = static_cast<std::size_t>(peer);
  Append m;
  m.term = term_;
  m.leader = config_.self;
  const std::uint64_t next = std::max<std::uint64_t>(1, next_index_[p]);
  m.prev_index = next - 1;
  m.prev_term = log_term(m.prev_index);
  const std::uint64_t last =
      std::min<std::uint64_t>(last_log_index(), m.prev_index + kMaxEntriesPerAppend);
  LOCKSTEP_INVARIANT(m.prev_index >= log_offset_, "a peer never needs an entry every member holds");
  if (last > m.prev_index)
    m.entries.assign(log_.begin() + static_cast<std::ptrdiff_t>(m.prev_index - log_offset_),
                     log_.begin() + static_cast<std::ptrdiff_t>(last - log_offset_));
  m.leader_commit = commit_index_;
  m.heartbeat_seq = heartbeat_seq_;
  m.held_by_all = held_by_all();
  m.needs_ack = probing_[p] || !m.entries.empty();
  commit_sent_[p] = std::max(commit_sent_[p], commit_index_);
  append_sent_local_[p] = now_local_;
  if (!probing_[p]) next_index_[p] = std::max(next_index_[p], last + 1);
  send(peer, std::move(m));
}

void RaftNode::append_to_log(LogEntry&& entry) {
  LOCKSTEP_INVARIANT(role_ == MemberRole::leader, "only a leader appends proposals");
  entry.term = term_;
  log_.push_back(SharedLogEntry(std::move(entry)));
  match_index_[static_cast<std::size_t>(config_.self)] = last_log_index();
}

std::uint64_t RaftNode::held_by_all() const {
  if (match_index_.empty()) return 0;  // not a leader since the last start
  return *std::min_element(match_index_.begin(), match_index_.end());
}

void RaftNode::compact_log(std::uint64_t held_by_all) {
  const std::uint64_t upto = std::min(held_by_all, applied_index_);
  if (upto <= log_offset_) return;
  const std::uint64_t drop = upto - log_offset_;
  // Why in batches: erasing the front of a vector moves what stays; dropping at least half of
  // it (and a few thousand entries) at a time keeps that to a move or two per entry.
  if (drop < kLogCompactionBatch || drop < log_.size() / 2) return;
  log_offset_term_ = log_term(upto);
  log_.erase(log_.begin(), log_.begin() + static_cast<std::ptrdiff_t>(drop));
  log_offset_ = upto;
}

void RaftNode::advance_commit() {
  if (role_ != MemberRole::leader) return;
  const std::uint64_t before = commit_index_;
  for (std::uint64_t n = last_log_index(); n > commit_index_; --n) {
    if (log_term(n) != term_) break;  // Raft: only entries of the current term by counting
    int count = 0;
    for (const std::uint64_t match : match_index_)
      if (match >= n) ++count;
    if (count >= quorum()) {
      commit_index_ = n;
      ready_.emplace_back(Committed{n});
      break;
    }
  }
  if (commit_index_ == before) return;
  if (!deferred_read_requests_.empty()) {
    // The first commit of this term: the ReadIndex requests that waited for it get today's
    // commit index, confirmed by one heartbeat round.
    for (const auto& [from, round] : deferred_read_requests_)
      leader_reads_.push_back(LeaderRead{heartbeat_seq_ + 1, commit_index_, from, round});
    deferred_read_requests_.clear();
    broadcast_heartbeat();
  }
  // The followers learn the new commit index (to apply, and answer their clients) at once.
  for (int peer = 0; peer < config_.members; ++peer)
    if (peer != config_.self) maybe_send_append(peer);
}

// ---------------------------------------------------------------- messages

void RaftNode::step(const VoteRequest& m, Duration now_local) {
  now_local_ = now_local;
  const std::uint64_t own_last_index = last_log_index();
  const std::uint64_t own_last_term = log_term(own_last_index);
  const auto refuse = [&](VoteRefusal reason, bool adopted_term) {
    ready_.emplace_back(VoteRefused{m.candidate, m.term, reason, adopted_term, m.last_log_index, m.last_log_term,
                                    own_last_index, own_last_term, voted_for_});
  };
  // A member that hears a live leader ignores campaigns (etcd's check-quorum lease), unless
  // the campaign is a leadership transfer. A leader is always in its lease: check-quorum
  // deposes it before its lease could run out (etcd's electionElapsed, reset at each check).
  const bool in_lease =
      role_ == MemberRole::leader ||
      (leader_ >= 0 && now_local_ - last_heard_leader_local_ < config_.election_timeout);
  if (!m.forced && in_lease && m.term > term_) {
    refuse(VoteRefusal::leader_lease, false);
    return;
  }
  // A hand-over only when this leader handed over to that candidate (a transfer another leader
  // began reads as a higher term).
  const bool adopted_term = m.term > term_;
  if (adopted_term)
    become_follower(m.term, -1, TermNews{m.candidate, "vote-request", m.term, m.forced && lead_transferee_ == m.candidate});
  const bool up_to_date = m.last_log_term > own_last_term ||
                          (m.last_log_term == own_last_term && m.last_log_index >= own_last_index);
  bool granted = false;
  if (m.term < term_) {
    refuse(VoteRefusal::stale_term, false);
  } else if (!up_to_date) {
    refuse(VoteRefusal::log_behind, adopted_term);
  } else if (voted_for_ != -1 && voted_for_ != m.candidate) {
    refuse(VoteRefusal::voted, adopted_term);
  } else {
    voted_for_ = m.candidate;
    granted = true;
    ready_.emplace_back(ResetElectionTimer{/*redraw=*/false});
  }
  send(m.candidate, VoteReply{term_, config_.self, granted});
}

void RaftNode::step(const VoteReply& m, Duration now_local) {
  now_local_ = now_local;
  if (m.term > term_) {
    become_follower(m.term, -1, TermNews{m.from, "vote-reply", m.term});
    return;
  }
  if (role_ != MemberRole::candidate || m.term != term_ || !m.granted) return;
  votes_.insert(m.from);
  if (static_cast<int>(votes_.size()) >= quorum()) become_leader();
}

void RaftNode::commit_to(std::uint64_t index) {
  if (index <= commit_index_) return;
  LOCKSTEP_INVARIANT(index <= last_log_index(), "only entries in the log are committed");
  commit_index_ = index;
  ready_.emplace_back(Committed{index});
}

void RaftNode::step(const Append& m, Duration now_local) {
  now_local_ = now_local;
  if (m.term < term_) {
    send(m.leader, AppendReply{term_, config_.self, false, 0, m.prev_index, last_log_index(),
                               m.heartbeat_seq});
    return;
  }
  follow(m.term, m.leader, "append");
  // Entries up to log_offset_ are held by every member, so they match the leader's (a
  // duplicated append can arrive after they were dropped).
  const bool success = m.prev_index <= last_log_index() &&
                       (m.prev_index < log_offset_ || log_term(m.prev_index) == m.prev_term);
  std::uint64_t match = 0;
  if (success) {
    std::uint64_t i = m.prev_index;
    for (const auto& e : m.entries) {
      ++i;
      if (i <= log_offset_) continue;
      if (i <= last_log_index()) {
        if (entry(i)->term == e->term) continue;
        LOCKSTEP_INVARIANT(i > commit_index_, "a committed entry is never overwritten");
        log_.resize(i - 1 - log_offset_);
      }
      log_.push_back(e);
    }
    match = m.prev_index + m.entries.size();
    commit_to(std::min(m.leader_commit, match));
    compact_log(m.held_by_all);
  }
  if (success && !m.needs_ack) return;
  send(m.leader, AppendReply{term_, config_.self, success, match, success ? 0 : m.prev_index,
                             last_log_index(), m.heartbeat_seq});
}

void RaftNode::step(const AppendReply& m, Duration now_local) {
  now_local_ = now_local;
  if (!leads_term_of_reply(m.term, m.from, "append-reply")) return;
  const auto from = static_cast<std::size_t>(m.from);
  recent_active_[from] = 1;
  // Duplicated or reordered replies must not multiply the traffic: a success only sends what
  // flow control allows, and a rejection that no longer matches what was sent is ignored.
  if (m.success) {
    const bool advanced = m.match_index > match_index_[from];
    if (advanced) match_index_[from] = m.match_index;
    if (probing_[from]) {
      probing_[from] = 0;  // the logs agree up to match: replicate from there
      next_index_[from] = match_index_[from] + 1;
    } else {
      next_index_[from] = std::max(next_index_[from], match_index_[from] + 1);
    }
    if (advanced) {
      advance_commit();
      compact_log(held_by_all());
    }
    if (advanced && m.from == lead_transferee_ && match_index_[from] == last_log_index()) {
      send(m.from, TimeoutNow{term_});
      return;
    }
    maybe_send_append(m.from);
  } else {
    const bool stale = probing_[from] ? m.rejected_prev + 1 != next_index_[from]
                                      : m.rejected_prev <= match_index_[from];
    // Probe at the follower's last index if it is shorter, else one entry further back.
    if (!stale)
      start_probe(m.from, std::max(match_index_[from] + 1,
                                   std::min(m.rejected_prev, m.last_index + 1)));
  }
  confirm_reads(m.heartbeat_seq, m.from);
}

void RaftNode::step(const Heartbeat& m, Duration now_local) {
  now_local_ = now_local;
  if (m.term >= term_) {
    follow(m.term, m.leader, "heartbeat");
    commit_to(std::min(m.commit, last_log_index()));
  }
  // A stale leader learns the newer term from the reply.
  send(m.leader, HeartbeatReply{term_, config_.self, m.heartbeat_seq});
}

void RaftNode::step(const HeartbeatReply& m, Duration now_local) {
  now_local_ = now_local;
  if (!leads_term_of_reply(m.term, m.from, "heartbeat-reply")) return;
  const auto from = static_cast<std::size_t>(m.from);
  recent_active_[from] = 1;
  // A follower still behind a heartbeat interval after its last append lost that append (or
  // its reply): probe again from what it acknowledged.
  if (match_index_[from] < last_log_index() &&
      now_local_ - append_sent_local_[from] >= config_.heartbeat_interval)
    start_probe(m.from, match_index_[from] + 1);
  confirm_reads(m.heartbeat_seq, m.from);
}

void RaftNode::step(const TimeoutNow& m, Duration now_local) {
  now_local_ = now_local;
  if (m.term < term_) return;
  // A lagging successor learns the term first.
  if (m.term > term_) become_follower(m.term, -1, TermNews{-1, "timeout-now", m.term});
  if (role_ == MemberRole::leader) return;
  become_candidate(/*forced=*/true);
}

void RaftNode::step(ForwardedProposal&& m, Duration now_local) {
  now_local_ = now_local;
  // A member that no longer leads passes it on to the leader it knows, as raft's followers
  // do (dropped when it knows none).
  if (role_ == MemberRole::leader || (leader_ >= 0 && leader_ != config_.self))
    propose(std::move(*m.entry), now_local);
  else
    ready_.emplace_back(ForwardedProposalDropped{std::move(*m.entry)});
}

void RaftNode::step(RaftMessage&& m, Duration now_local) {
  std::visit([&](auto&& message) { step(std::move(message), now_local); }, std::move(m));
}

// ---------------------------------------------------------------- proposals

void RaftNode::propose(LogEntry&& entry, Duration now_local) {
  now_local_ = now_local;
  if (role_ != MemberRole::leader) {
    if (leader_ >= 0) send(leader_, ForwardedProposal{Box<LogEntry>(std::move(entry))});
    return;  // with no leader known, dropped, as raft drops proposals
  }
  if (lead_transferee_ >= 0) {
    ready_.emplace_back(ProposalDropped{std::move(entry)});
    return;
  }
  append_to_log(std::move(entry));
  for (int peer = 0; peer < config_.members; ++peer)
    if (peer != config_.self) maybe_send_append(peer);
  advance_commit();
}

void RaftNode::transfer_leadership(int successor, Duration now_local) {
  now_local_ = now_local;
  if (role_ != MemberRole::leader || successor == config_.self || successor == lead_transferee_)
    return;
  lead_transferee_ = successor;
  // Raft resets its election tick count: the transfer has one election timeout to finish
  // (the same count paces check-quorum).
  quorum_check_ticks_ = 0;
  if (match_index_[static_cast<std::size_t>(successor)] == last_log_index()) {
    send(successor, TimeoutNow{term_});
  } else {
    maybe_send_append(successor);  // the append reply sends TimeoutNow once it has caught up
  }
}

// ---------------------------------------------------------------- ReadIndex

void RaftNode::read_index(std::uint64_t round, Duration now_local) {
  now_local_ = now_local;
  if (role_ == MemberRole::leader) {
    handle_read_index(config_.self, round, false);
  } else if (leader_ >= 0) {
    send(leader_, ReadIndexRequest{config_.self, round, false});
  }
}

void RaftNode::step(const ReadIndexRequest& m, Duration now_local) {
  now_local_ = now_local;
  handle_read_index(m.from, m.round, m.passed_on);
}

void RaftNode::handle_read_index(int from, std::uint64_t round, bool passed_on) {
  if (role_ != MemberRole::leader) {
    // raft's follower passes a ReadIndex on to the leader it knows, which answers the asking
    // member directly, and drops it when it knows none; it never answers "not leader". The
    // asking member's round waits, asks again at its retry time, and fails with "leader
    // changed" once it hears of another leader. Passed on once only, so two members with
    // stale news of each other never pass it back and forth.
    if (!passed_on && leader_ >= 0 && leader_ != from)
      send(leader_, ReadIndexRequest{from, round, /*passed_on=*/true});
    return;
  }
  if (log_term(commit_index_) != term_) {
    deferred_read_requests_.emplace_back(from, round);  // answered by advance_commit()
    return;
  }
  // The read may use the current commit index once a quorum confirms this node still leads:
  // a heartbeat round sent after now must be acknowledged by a majority.
  leader_reads_.push_back(LeaderRead{heartbeat_seq_ + 1, commit_index_, from, round});
  broadcast_heartbeat();
}

void RaftNode::confirm_reads(std::uint64_t acked_seq, int from) {
  if (role_ != MemberRole::leader) return;
  std::uint64_t& acked = acked_seq_[static_cast<std::size_t>(from)];
  acked = std::max(acked, acked_seq);
  // leader_reads_ is in heartbeat round order (each is queued for the round about to be
  // sent), so the confirmed reads are a prefix of it.
  const auto confirmed_end =
      std::find_if(leader_reads_.begin(), leader_reads_.end(), [this](const LeaderRead& r) {
        int acks = 0;
        for (const std::uint64_t seq : acked_seq_)
          if (seq >= r.seq) ++acks;
        return acks < quorum();
      });
  for (auto r = leader_reads_.begin(); r != confirmed_end; ++r) {
    if (r->from == config_.self) {
      ready_.emplace_back(ReadState{r->round, r->commit_index});
    } else {
      send(r->from, ReadIndexReply{r->round, r->commit_index});
    }
  }
  leader_reads_.erase(leader_reads_.begin(), confirmed_end);
}

void RaftNode::step(const ReadIndexReply& m, Duration now_local) {
  now_local_ = now_local;
  ready_.emplace_back(ReadState{m.round, m.index});
}

}  // namespace lockstep::sim
