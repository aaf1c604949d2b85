#include "lockstep/sim/etcd_member.h"

#include <algorithm>
#include <string_view>

#include "lockstep/kv/invariant.h"
#include "lockstep/sim/etcd_cluster.h"

namespace lockstep::sim {

namespace {
template <typename... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <typename... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

// How long a member waits for the answer to its ReadIndex round before asking again (etcd's
// readIndexRetryTime).
constexpr Duration kReadIndexRetry = milliseconds(500);
// How long etcd's lessor waits before it finds an expired lease, whose revoke has not been
// applied, expired again (its expiredLeaseRetryInterval).
constexpr Duration kExpiredLeaseRetry = seconds(3);

// Borrows a member's spare vector for a list built and dropped within one call, and gives it
// back cleared. Why: such lists are built for every request, and allocating each one showed
// in the profile. A nested call finds the spare taken (empty) and uses a fresh vector.
template <typename T>
class Borrowed {
 public:
  explicit Borrowed(std::vector<T>& spare) : spare_(spare), items(std::move(spare)) {
    items.clear();
  }
  ~Borrowed() {
    items.clear();
    spare_ = std::move(items);
  }
  Borrowed(const Borrowed&) = delete;
  Borrowed& operator=(const Borrowed&) = delete;

 private:
  std::vector<T>& spare_;

 public:
  std::vector<T> items;
};

// etcd's isTxnReadonly: every operation of both branches is a range (a nested txn is not).
bool is_read_only_txn(const TxnRequest& t) {
  const auto all_ranges = [](const std::vector<RequestOp>& ops) {
    return std::all_of(ops.begin(), ops.end(), [](const RequestOp& op) {
      return std::holds_alternative<RangeRequest>(op.request);
    });
  };
  return all_ranges(t.success) && all_ranges(t.failure);
}

// etcd's isTxnSerializable: every operation is a serializable range (so an empty txn is).
bool is_serializable_txn(const TxnRequest& t) {
  const auto all_serializable = [](const std::vector<RequestOp>& ops) {
    return std::all_of(ops.begin(), ops.end(), [](const RequestOp& op) {
      const auto* range = std::get_if<RangeRequest>(&op.request);
      return range != nullptr && range->serializable;
    });
  };
  return all_serializable(t.success) && all_serializable(t.failure);
}

// A read etcd serves without the log: a range, or a txn of ranges only (etcd's Txn serves
// those by ReadIndex, never proposing them).
bool is_read(const ClientRequest& r) {
  if (std::holds_alternative<RangeRequest>(r)) return true;
  const auto* txn = std::get_if<TxnRequest>(&r);
  return txn != nullptr && is_read_only_txn(*txn);
}

// A read etcd answers at once from the member's own store, with no ReadIndex.
bool is_serializable_read(const ClientRequest& r) {
  if (const auto* range = std::get_if<RangeRequest>(&r)) return range->serializable;
  const auto* txn = std::get_if<TxnRequest>(&r);
  return txn != nullptr && is_read_only_txn(*txn) && is_serializable_txn(*txn);
}

bool is_write(const ClientRequest& r) {
  return std::holds_alternative<PutRequest>(r) || std::holds_alternative<DeleteRangeRequest>(r) ||
         std::holds_alternative<TxnRequest>(r) || std::holds_alternative<CompactionRequest>(r) ||
         std::holds_alternative<LeaseGrantRequest>(r) ||
         std::holds_alternative<LeaseRevokeRequest>(r);
}
}  // namespace

EtcdMember::EtcdMember(EtcdCluster& cluster, int index, ProcessId pid, Rng rng)
    : cluster_(cluster),
      index_(index),
      pid_(pid),
      rng_(rng),
      raft_(RaftConfig{index, cluster.config().members, cluster.config().election_timeout,
                       cluster.config().heartbeat_interval}),
      store_(EtcdStoreOptions{cluster.config().min_lease_ttl_seconds, cluster.config().max_txn_ops}),
      lock_service_(cluster, index, pid),
      election_timer_(cluster.world(), pid,
                      [this] {
                        raft_.election_timeout(local_now());
                        drain_raft();
                      }),
      read_round_timer_(cluster.world(), pid, [this] { on_read_round_timeout(); }),
      request_deadline_timer_(cluster.world(), pid, [this] { fail_expired_requests(); }) {}

std::uint64_t EtcdMember::member_id() const { return 0x100 + static_cast<std::uint64_t>(index_); }

ResponseHeader EtcdMember::header() const {
  ResponseHeader h;
  h.cluster_id = cluster_.config().cluster_id;
  h.member_id = member_id();
  h.revision = store_.revision();
  h.raft_term = raft_.term();
  return h;
}

// ---------------------------------------------------------------- lifecycle

void EtcdMember::start() {
  viewed_leader_ = -2;  // a restarted member knows no leader until it hears one
  record_leader_view(-1, nullptr, "start");
  raft_.start(local_now());
  drain_raft();
}

void EtcdMember::on_crash() {
  lock_service_.on_crash();
  raft_.crash();
  lessor_primary_ = false;
  held_lease_calls_.clear();
  renewals_.clear();
  last_known_leader_ = -1;
  revoking_.clear();
  revoke_retry_at_.clear();
  reads_waiting_.clear();
  read_round_.clear();
  reads_indexed_.clear();
  read_round_timer_.disarm();
  pending_.clear();
  waiting_ids_.clear();
  start_queued_ = false;
  leader_news_held_ = false;
  request_deadline_timer_.disarm();
  watchers_.clear();
  election_timer_.disarm();
  ++heartbeat_generation_;
  cluster_.break_streams_of(index_);
}

Duration EtcdMember::local_now() const { return cluster_.world().local_monotonic(pid_); }

// ---------------------------------------------------------------- the raft node's Ready

void EtcdMember::receive(RaftMessage&& message) {
  std::visit([this](auto&& m) { deliver_raft(std::move(m)); }, std::move(message));
}

template <typename Message>
void EtcdMember::deliver_raft(Message&& message) {
  if constexpr (std::is_same_v<std::decay_t<Message>, ForwardedProposal>) {
    if (cluster_.world().running_held()) {
      cluster_.world().post(pid_, [this, m = std::move(message)]() mutable {
        step_proposal([&] { raft_.step(std::move(m), local_now()); });
      });
    } else {
      step_proposal([&] { raft_.step(std::move(message), local_now()); });
    }
    return;
  }
  raft_.step(std::forward<Message>(message), local_now());
  drain_raft();
}

template <typename Step>
void EtcdMember::step_proposal(Step&& step) {
  const std::uint64_t last_before = raft_.last_log_index();
  step();
  // A leader appends a proposal as its log's last entry, at once.
  if (cluster_.records_details() && raft_.is_leader() && raft_.last_log_index() > last_before)
    cluster_.report_request_appended(index_, raft_.term(), raft_.last_log_index(),
                                     *raft_.entry(raft_.last_log_index()));
  drain_raft();
}

void EtcdMember::send_raft(int to, RaftMessage&& message) {
  if (const auto* passed_on = std::get_if<ForwardedProposal>(&message);
      passed_on != nullptr && cluster_.records_details())
    cluster_.report_request_forwarded(index_, to, *passed_on->entry);
  // Each closure holds its own message type (not the variant): a raft message's closure must
  // fit EventFn's inline buffer.
  std::visit(
      [this, to](auto&& m) {
        cluster_.send_to_member(index_, to, [m = std::move(m)](EtcdMember& target) mutable {
          target.deliver_raft(std::move(m));
        });
      },
      std::move(message));
}

void EtcdMember::act_on_ready() {
  // An action may give the node another input, drained (nested) before the rest of this
  // list: each nesting level has its own list, kept for reuse.
  if (drain_depth_ == ready_by_depth_.size()) ready_by_depth_.emplace_back();
  std::vector<RaftOutput>& ready = ready_by_depth_[drain_depth_++];
  raft_.take_ready(ready);
  for (RaftOutput& output : ready) act_on(std::move(output));
  ready.clear();
  --drain_depth_;
}

void EtcdMember::act_on(RaftOutput&& output) {
  std::visit(Overloaded{
                 [this](SendMessage& m) { send_raft(m.to, std::move(m.message)); },
                 [this](BecameLeader& m) { on_became_leader(m.term); },
                 [this](BecameFollower& m) { on_became_follower(m); },
                 [this](LeaderAvailable&) { retry_waiting_requests(); },
                 [this](ResetElectionTimer& m) { restart_election_timeout(m.redraw); },
                 [this](Committed& m) { apply_committed(m.index); },
                 [this](ReadState& m) { on_read_index_reply(m.round, m.index); },
                 [this](ProposalDropped& m) { drop_proposal(std::move(m.entry)); },
                 [this](ForwardedProposalDropped& m) { cluster_.report_proposal_dropped(index_, m.entry, "no-leader"); },
                 [this](Campaigned& m) {
                   record_campaign(m);
                   record_leader_view(-1, nullptr, "campaign");
                 },
                 [this](VoteRefused& m) { record_vote_refusal(m); },
             },
             output);
}

void EtcdMember::propose(LogEntry&& entry) {
  step_proposal([&] { raft_.propose(std::move(entry), local_now()); });
}

void EtcdMember::transfer_leadership(int successor) {
  raft_.transfer_leadership(successor, local_now());
  drain_raft();
}

// ---------------------------------------------------------------- roles and timers

void EtcdMember::restart_election_timeout(bool redraw) {
  if (redraw) {
    // Randomised in [T, 2T) as in Raft, on this member's own clock.
    const auto timeout_ns = cluster_.config().election_timeout.count();
    election_timeout_local_ = Duration(
        timeout_ns + static_cast<std::int64_t>(rng_.below(static_cast<std::uint64_t>(timeout_ns))));
  }
  election_timer_.arm_after_local(election_timeout_local_);
}

void EtcdMember::on_became_follower(const BecameFollower& change) {
  // Every end of a leadership is recorded, with what ended it: check-quorum, a higher term
  // seen (from which member, in which message), a hand-over.
  if (change.was_leader) {
    nlohmann::json args = {{"term", change.previous_term}, {"member", index_}, {"last_index", change.last_log_index},
                           {"commit_index", change.commit_index}};
    const TermNews& why = change.why;
    if (why.from < 0 && std::string_view(why.message) == "check-quorum") {
      args["reason"] = "check-quorum";
    } else {
      args["reason"] = why.forced ? "hand-over" : "higher-term";
      args["new_term"] = why.seen_term;
      args["message"] = why.message;
      if (why.from >= 0) args["from"] = why.from;
    }
    cluster_.world().record_truth(cluster_.world().process(pid_).name, "leader-stepped-down",
                                  std::move(args));
  }
  note_leader(change.leader);
  record_leader_view(change.leader, &change.why);
  if (change.was_leader) {
    lessor_primary_ = false;     // etcd's lessor Demote
    release_held_lease_calls();  // answered "no leader": their members ask the new one
    ++heartbeat_generation_;
    revoking_.clear();
    revoke_retry_at_.clear();
  }
}

// Campaigns and refused votes are recorded (elections are rare, so this costs nothing that
// matters): why no leader was elected for a while is read from them.
void EtcdMember::record_campaign(const Campaigned& c) {
  if (!cluster_.records_details()) return;
  nlohmann::json args = {{"member", index_}, {"term", c.term}, {"last_index", c.last_log_index},
                         {"last_term", c.last_log_term}};
  if (c.forced) args["forced"] = true;
  cluster_.world().record_truth(cluster_.world().process(pid_).name, "campaign", std::move(args));
}

void EtcdMember::record_leader_view(int leader, const TermNews* why, const char* cause) {
  if (leader == viewed_leader_) return;
  viewed_leader_ = leader;
  if (!cluster_.records_details()) return;
  nlohmann::json args = {{"member", index_}, {"leader", leader}, {"term", raft_.term()}};
  // Lost: for a newer term seen in another member's message (whose, and which), for its own
  // check-quorum, or by campaigning or starting.
  if (leader < 0 && why != nullptr) {
    if (why->from >= 0) args["from"] = why->from;
    args["message"] = why->message;
  } else if (leader < 0 && cause != nullptr) {
    args["message"] = cause;
  }
  cluster_.world().record_truth(cluster_.world().process(pid_).name, "leader-view", std::move(args));
}

void EtcdMember::record_vote_refusal(const VoteRefused& v) {
  if (!cluster_.records_details()) return;
  nlohmann::json args = {{"member", index_}, {"candidate", v.candidate}, {"term", v.term}, {"reason", vote_refusal_name(v.reason)}};
  if (v.adopted_term) args["adopted_term"] = true;
  if (v.reason == VoteRefusal::log_behind) {
    args["candidate_last_index"] = v.candidate_last_log_index;
    args["candidate_last_term"] = v.candidate_last_log_term;
    args["last_index"] = v.last_log_index;
    args["last_term"] = v.last_log_term;
  }
  if (v.reason == VoteRefusal::voted) args["voted_for"] = v.voted_for;
  cluster_.world().record_truth(cluster_.world().process(pid_).name, "vote-refused", std::move(args));
}

void EtcdMember::note_leader(int leader) {
  if (leader < 0 || leader == last_known_leader_) return;
  const bool changed = last_known_leader_ >= 0;
  last_known_leader_ = leader;
  if (!changed) return;
  // Reads this member read in the same batch as the news (it was paused or cut off), before
  // or after it: etcd's gRPC handlers hand them to the read loop while raft takes in the new
  // leader's messages, and the loop, which captured its leader-changed notifier before the
  // pause, fails them with "leader changed" (seen on a real cluster: a range through a
  // follower paused across a hand-over, both with the news read first and read last).
  if (cluster_.world().running_held() && !leader_news_held_) {
    leader_news_held_ = true;
    // Posted after everything the batch holds, so it ends with the batch.
    cluster_.world().post(pid_, [this] { leader_news_held_ = false; });
  }
  std::vector<std::uint64_t> held_reads;
  for (const auto& [id, p] : pending_)
    if (p.arrived_held && !p.in_flight && is_read(*p.request)) held_reads.push_back(id);
  for (const std::uint64_t id : held_reads)
    finish_request(id, Error(ErrorCode::leader_changed, "etcdserver: leader changed"));
  if (read_round_.empty()) return;
  // etcd's linearizableReadLoop: the reads whose ReadIndex is out fail with a retryable
  // "leader changed" when a new leader becomes known (those not yet asked for wait).
  read_round_timer_.disarm();
  std::vector<std::uint64_t> reads = std::move(read_round_);
  read_round_.clear();
  for (const std::uint64_t id : reads)
    finish_request(id, Error(ErrorCode::leader_changed, "etcdserver: leader changed"));
}

void EtcdMember::on_became_leader(std::uint64_t term) {
  cluster_.safety().elected(term, index_);
  note_leader(index_);
  record_leader_view(index_, nullptr);
  election_timer_.disarm();  // no elections while leading
  // The lessor is promoted only when this leader applies the first entry of its term (see
  // promote_lessor); until then it neither renews nor expires leases.
  lessor_primary_ = false;
  cluster_.world().record_truth(cluster_.world().process(pid_).name, "leader-elected",
                                {{"term", term}, {"member", index_}});
  schedule_heartbeat();
}

void EtcdMember::schedule_heartbeat() {
  const std::uint64_t generation = heartbeat_generation_;
  cluster_.world().schedule_after_local(cluster_.config().heartbeat_interval, pid_,
                                        [this, generation] {
    if (generation != heartbeat_generation_ || !raft_.is_leader()) return;
    raft_.heartbeat_timeout(local_now());
    drain_raft();
    if (raft_.is_leader()) schedule_heartbeat();  // unless check-quorum deposed it
  });
}

void EtcdMember::drop_proposal(LogEntry&& entry) {
  // The member that received the request hears of it only if it is this one: a proposal a
  // follower forwarded is lost, and its client waits for its deadline, as in etcd. That loss
  // is recorded (only the history can tell it).
  if (entry.origin_member == index_ && entry.origin_request != 0)
    finish_request(entry.origin_request, Error(ErrorCode::unavailable, "raft proposal dropped"));
  else if (entry.origin_member >= 0 && entry.origin_member != index_)
    cluster_.report_proposal_dropped(index_, entry, "leader-transfer");
  if (entry.from_lease_expiry) {
    if (const auto* revoke = std::get_if<LeaseRevokeRequest>(&entry.op)) {
      revoking_.erase(revoke->id);
      revoke_retry_at_[revoke->id] = MonoTime(local_now()) + kExpiredLeaseRetry;
    }
  }
}

// ---------------------------------------------------------------- applying

void EtcdMember::apply_committed(std::uint64_t index) {
  while (raft_.applied_index() < index) {
    const std::uint64_t applied = raft_.applied_index() + 1;
    const SharedLogEntry entry = raft_.entry(applied);  // held: applying may change the log
    raft_.applied_to(applied);
    if (raft_.is_leader() && !lessor_primary_ && entry->term == raft_.term()) promote_lessor();
    const bool answers_client = entry->origin_member == index_ && entry->origin_request != 0;
    std::optional<Result<ClientResponse>> result;
    const bool wants_result = answers_client || cluster_.records_truth_of(applied);
    apply_entry(*entry, wants_result ? &result : nullptr);
    cluster_.safety().applied(applied, entry->term, store_.revision());
    if (answers_client) finish_request(entry->origin_request, std::move(*result));
  }
  serve_ready_reads();
}

void EtcdMember::apply_entry(const LogEntry& entry,
                             std::optional<Result<ClientResponse>>* response) {
  std::vector<Event> store_events;
  // Events cost copies of every changed key: asked for only when a watcher or the truth
  // record will read them.
  std::vector<Event>* events =
      !watchers_.empty() || cluster_.records_truth_of(raft_.applied_index()) ? &store_events
                                                                       : nullptr;
  const MonoTime now(cluster_.world().local_monotonic(pid_));
  // Keeps a store call's outcome as the response, when one is wanted.
  const auto answer = [&](auto&& outcome) {
    if (response != nullptr) response->emplace(as_answer(std::move(outcome)));
  };
  std::visit(Overloaded{
                 [&](const PutRequest& r) { answer(store_.put(r, events)); },
                 [&](const DeleteRangeRequest& r) { answer(store_.delete_range(r, events)); },
                 [&](const TxnRequest& r) { answer(store_.txn(r, events)); },
                 [&](const CompactionRequest& r) { answer(store_.compact(r)); },
                 [&](const LeaseGrantRequest& r) {
                   renewals_[r.id] = {cluster_.world().now().time_since_epoch().count(), "grant"};
                   answer(store_.lease_grant(r, now));
                 },
                 [&](const LeaseRevokeRequest& r) {
                   revoking_.erase(r.id);
                   renewals_.erase(r.id);
                   answer(store_.lease_revoke(r.id, events));
                   // Keep-alives of the lease waited for its revoke: they learn it is gone.
                   if (!held_lease_calls_.empty()) release_held_lease_calls();
                 },
             },
             entry.op);
  cluster_.report_applied(raft_.applied_index(), store_events, entry,
                          response != nullptr ? &**response : nullptr);
  if (!store_events.empty()) dispatch_watch_events(store_events);
}

// ---------------------------------------------------------------- serving clients

void EtcdMember::handle_client(ReplyRoute route, Box<ClientRequest>&& boxed) {
  const std::uint64_t id = next_request_id_++;
  // On this member's clock, as etcd's request context times out on the server's own clock.
  const Duration deadline =
      cluster_.world().local_monotonic(pid_) + cluster_.config().server_request_timeout;
  ClientRequest& request = *boxed;
  if (auto* w = std::get_if<WatchCreateRequest>(&request)) {
    create_watch(route, std::move(*w));
    return;
  }
  if (std::holds_alternative<CallCancel>(request)) {
    cancel_call(route);
    return;
  }
  if (auto* lock = std::get_if<LockRequest>(&request)) {
    lock_service_.lock(route, std::move(*lock));
    return;
  }
  if (auto* unlock = std::get_if<UnlockRequest>(&request)) {
    lock_service_.unlock(route, std::move(*unlock));
    return;
  }
  if (auto* c = std::get_if<WatchCancelRequest>(&request)) {
    const auto it = watchers_.find(c->watch_id);
    WatchResponse r;
    r.header = header();
    r.watch_id = c->watch_id;
    r.canceled = true;
    if (it != watchers_.end()) watchers_.erase(it);
    reply(route, ClientResponse(std::move(r)));
    return;
  }
  if (is_serializable_read(request)) {
    reply(route, serve_read(request));
    return;
  }
  if (leader_news_held_ && cluster_.world().running_held() && is_read(request)) {
    // Read in the same batch as the news of a new leader, which came first (see note_leader).
    reply(route, Error(ErrorCode::leader_changed, "etcdserver: leader changed"));
    return;
  }
  LOCKSTEP_INVARIANT(pending_.empty() || pending_.back().first < id, "request ids only grow");
  pending_.emplace_back(id, PendingRequest{route, std::move(boxed), deadline, false, std::nullopt});
  waiting_ids_.push_back(id);  // the newest id: the list stays in order
  request_deadline_timer_.arm_no_later_than_local(deadline);
  if (cluster_.world().running_held()) {
    // It came while this member could not read (paused, or behind a cut): what came with it
    // is read first, so a cancellation of it among them wins (see World::running_held). Not
    // even a leader's message in the same batch starts it (retry_waiting_requests skips it).
    pending_.back().second.arrived_held = true;
    if (!start_queued_) {
      start_queued_ = true;
      cluster_.world().post(pid_, [this] {
        start_queued_ = false;
        for (auto& [pending_id, p] : pending_) p.arrived_held = false;
        retry_waiting_requests();
      });
    }
    return;
  }
  retry_waiting_requests();
}

void EtcdMember::cancel_call(const ReplyRoute& call) {
  // gRPC cancels the handler's context. A request not yet sent on (proposed, forwarded, asked
  // a read index for) is never run; one already proposed may still commit, unanswered.
  lock_service_.cancel(call);
  const auto it = std::find_if(pending_.begin(), pending_.end(), [&](const auto& p) {
    return p.second.route.client == call.client && p.second.route.call_id == call.call_id;
  });
  if (it == pending_.end()) return;
  // Read in the same batch as the request: gRPC's handler for it was already started when
  // the cancellation was read, and sometimes proposes first (see EtcdConfig). It then runs
  // as any request does; its answer goes to a client that no longer waits for it.
  if (it->second.arrived_held &&
      rng_.chance(cluster_.config().held_cancel_race_probability)) {
    cluster_.report_request_cancelled(index_, it->second.route, /*started=*/true);
    return;
  }
  cluster_.report_request_cancelled(index_, it->second.route, it->second.in_flight);
  pending_.erase(it);  // waiting_ids_ skips ids no longer pending
}

EtcdMember::Pending::iterator EtcdMember::find_pending(std::uint64_t request_id) {
  auto it = std::lower_bound(
      pending_.begin(), pending_.end(), request_id,
      [](const auto& pending, std::uint64_t id) { return pending.first < id; });
  return it != pending_.end() && it->first == request_id ? it : pending_.end();
}

void EtcdMember::send_back_to_waiting(std::pair<std::uint64_t, PendingRequest>& pending) {
  if (!pending.second.in_flight) return;
  pending.second.in_flight = false;
  const auto at = std::lower_bound(waiting_ids_.begin(), waiting_ids_.end(), pending.first);
  waiting_ids_.insert(at, pending.first);
}

// Sends every pending request that is not yet in flight on its way, if a leader is known.
void EtcdMember::retry_waiting_requests() {
  if (raft_.leader() < 0) return;
  // Sending may complete requests at once (a one-member cluster commits on proposal), which
  // erases them from pending_, or send some back to waiting: walk the list taken out.
  Borrowed<std::uint64_t> waiting(spare_ids_);
  waiting.items.swap(waiting_ids_);
  for (const std::uint64_t id : waiting.items) {
    auto it = find_pending(id);
    if (it == pending_.end() || it->second.in_flight) continue;
    if (it->second.arrived_held) {
      // Started by the posted start (handle_client); the list stays in order.
      waiting_ids_.insert(std::lower_bound(waiting_ids_.begin(), waiting_ids_.end(), id), id);
      continue;
    }
    it->second.in_flight = true;
    // A write's request is never read again once proposed (a lost proposal fails at the
    // deadline), so it moves into the log; reads and lease calls keep theirs for retries.
    ClientRequest& req = *it->second.request;
    if (is_read(req)) {
      start_read(id);
    } else if (is_write(req)) {
      // A proposal is sent once; if it is lost, the request fails at the server timeout.
      LogOp op = std::visit(
          Overloaded{[](PutRequest& r) -> LogOp { return std::move(r); },
                     [](DeleteRangeRequest& r) -> LogOp { return std::move(r); },
                     [](TxnRequest& r) -> LogOp { return std::move(r); },
                     [](CompactionRequest& r) -> LogOp { return r; },
                     [this](LeaseGrantRequest& r) -> LogOp {
                       // The member that receives a grant picks the id, as etcd does.
                       if (r.id == 0)
                         r.id = static_cast<LeaseId>(
                             (rng_.next_u64() & 0xffffffffffffULL) |
                             (static_cast<std::uint64_t>(index_ + 1) << 48));
                       return r;
                     },
                     [](LeaseRevokeRequest& r) -> LogOp { return r; },
                     [](auto&) -> LogOp { return TxnRequest{}; }},
          req);
      propose_request(std::move(op), id, it->second.route);
    } else if (is_leader()) {
      // Keep-alive and time-to-live: the leader answers.
      on_leader_lease_call(index_, id, it->second.route, req);
    } else {
      cluster_.send_to_member(index_, raft_.leader(), [from = index_, id, route = it->second.route, req](EtcdMember& t) {
        t.on_leader_lease_call(from, id, route, req);
      });
    }
  }
  maybe_start_read_round();
}

void EtcdMember::propose_request(LogOp&& op, std::uint64_t request_id, const ReplyRoute& call) {
  LogEntry entry;
  entry.op = std::move(op);
  entry.origin_member = index_;
  entry.origin_request = request_id;
  entry.client_call = call;
  propose(std::move(entry));
}

void EtcdMember::start_read(std::uint64_t request_id) { reads_waiting_.push_back(request_id); }

void EtcdMember::maybe_start_read_round() {
  if (!read_round_.empty() || reads_waiting_.empty() || raft_.leader() < 0) return;
  read_round_ = std::move(reads_waiting_);
  reads_waiting_.clear();
  ++read_round_id_;
  send_read_round();
}

void EtcdMember::send_read_round() {
  const std::uint64_t round = read_round_id_;
  read_round_timer_.arm_after_local(kReadIndexRetry);
  raft_.read_index(round, local_now());
  drain_raft();
}

void EtcdMember::on_read_round_timeout() {
  if (read_round_.empty()) return;
  if (raft_.leader() >= 0) {
    send_read_round();  // the request or its answer was lost, or the leader changed
    return;
  }
  // No leader to ask: the reads wait for one (retry_waiting_requests).
  for (const std::uint64_t id : read_round_)
    if (auto p = find_pending(id); p != pending_.end()) send_back_to_waiting(*p);
  read_round_.clear();
}

void EtcdMember::on_read_index_reply(std::uint64_t round, std::uint64_t index) {
  if (read_round_.empty() || round != read_round_id_) return;  // an earlier round's answer
  read_round_timer_.disarm();
  std::vector<std::uint64_t> reads = std::move(read_round_);
  read_round_.clear();
  for (const std::uint64_t id : reads) {
    auto p = find_pending(id);
    if (p == pending_.end()) continue;  // failed at its deadline meanwhile
    p->second.read_index = index;
    reads_indexed_.push_back(id);
  }
  serve_ready_reads();
  maybe_start_read_round();
}

void EtcdMember::serve_ready_reads() {
  // Called after every apply: one pass, in place, and no allocation when nothing is ready.
  Borrowed<std::uint64_t> ready(spare_ids_);
  std::erase_if(reads_indexed_, [&](std::uint64_t id) {
    const auto p = find_pending(id);
    if (p == pending_.end()) return true;  // failed at its deadline meanwhile
    if (*p->second.read_index > raft_.applied_index()) return false;
    ready.items.push_back(id);
    return true;
  });
  for (const std::uint64_t id : ready.items) {
    const auto p = find_pending(id);
    if (p == pending_.end()) continue;
    finish_request(id, serve_read(*p->second.request));
  }
}

Result<ClientResponse> EtcdMember::serve_read(const ClientRequest& request) {
  if (const auto* range = std::get_if<RangeRequest>(&request)) return as_answer(store_.range(*range));
  // A read-only txn changes nothing, so it makes no events.
  return as_answer(store_.txn(std::get<TxnRequest>(request), nullptr));
}

void EtcdMember::on_leader_lease_call(int from, std::uint64_t call_id, const ReplyRoute& route,
                                      ClientRequest request) {
  Result<ClientResponse> response = Error(ErrorCode::no_leader, "etcdserver: no leader");
  if (raft_.is_leader()) {
    const MonoTime now(cluster_.world().local_monotonic(pid_));
    const auto* keep_alive = std::get_if<LeaseKeepAliveRequest>(&request);
    // etcd's leader holds a lease call until its lessor is promoted, and a keep-alive of an
    // expired lease until the lease's revoke is applied (lessor.Renew waits for it).
    if (!lessor_primary_ || (keep_alive && store_.lease_expired(keep_alive->id, now))) {
      held_lease_calls_.push_back(HeldLeaseCall{from, call_id, route, std::move(request)});
      return;
    }
    if (auto* k = std::get_if<LeaseKeepAliveRequest>(&request)) {
      LeaseKeepAliveResponse r;
      r.id = k->id;
      auto ttl = store_.lease_renew(k->id, now);
      r.ttl_seconds = ttl ? ttl.value() : 0;  // TTL 0: the lease is gone
      if (ttl) {
        renewals_[k->id] = {cluster_.world().now().time_since_epoch().count(), "keep-alive"};
        cluster_.report_lease_renewal(k->id, index_, from, route);
      }
      response = ClientResponse(std::move(r));  // the header: on_leader_lease_reply
    } else if (auto* t = std::get_if<LeaseTimeToLiveRequest>(&request)) {
      response = ClientResponse(store_.lease_time_to_live(*t, now));
    }
  }
  if (from == index_) {
    on_leader_lease_reply(call_id, std::move(response));
  } else {
    cluster_.send_to_member(index_, from,
                            [call_id, response = std::move(response)](EtcdMember& t) mutable {
                              t.on_leader_lease_reply(call_id, std::move(response));
                            });
  }
}

void EtcdMember::on_leader_lease_reply(std::uint64_t call_id, Result<ClientResponse> response) {
  const auto p = find_pending(call_id);
  if (p == pending_.end()) return;
  if (!response.ok() && response.error().code == ErrorCode::no_leader) {
    send_back_to_waiting(*p);  // asked a former leader: retried later
    return;
  }
  // etcd's lease server fills the header of a keep-alive or time-to-live answer on the member
  // the client called (its own revision and term), not the leader's that renewed the lease:
  // every answer from the leader's lessor comes through here, and gets it here alone.
  if (response.ok())
    std::visit([this](auto& r) {
      if constexpr (requires { r.header; }) r.header = header();
    }, response.value());
  finish_request(call_id, std::move(response));
}

void EtcdMember::release_held_lease_calls() {
  std::vector<HeldLeaseCall> held;
  held.swap(held_lease_calls_);
  for (auto& c : held) on_leader_lease_call(c.from, c.call_id, c.route, std::move(c.request));
}

void EtcdMember::promote_lessor() {
  // etcd's lessor Promote: every lease gets now + election timeout + its TTL.
  lessor_primary_ = true;
  const MonoTime now(cluster_.world().local_monotonic(pid_));
  store_.extend_all_leases(now, cluster_.config().election_timeout);
  renewals_.clear();
  revoking_.clear();
  revoke_retry_at_.clear();
  leader_since_ns_ = cluster_.world().now().time_since_epoch().count();
  schedule_lease_scan();
  release_held_lease_calls();
}

void EtcdMember::finish_request(std::uint64_t request_id, Result<ClientResponse>&& response) {
  auto it = find_pending(request_id);
  if (it == pending_.end()) return;
  const ReplyRoute route = it->second.route;
  pending_.erase(it);
  reply(route, std::move(response));
}

void EtcdMember::fail_expired_requests() {
  const Duration now = cluster_.world().local_monotonic(pid_);
  std::vector<std::uint64_t> expired;
  for (const auto& [id, p] : pending_)
    if (p.deadline <= now) expired.push_back(id);
  for (auto id : expired) {
    const bool no_leader = raft_.leader() < 0;
    finish_request(id, no_leader ? Error(ErrorCode::no_leader, "etcdserver: no leader")
                                 : Error(ErrorCode::timeout, "etcdserver: request timed out"));
  }
  Duration earliest = Duration::max();
  for (const auto& [id, p] : pending_) earliest = std::min(earliest, p.deadline);
  if (!pending_.empty()) request_deadline_timer_.arm_at_local(earliest);
}

void EtcdMember::reply(ReplyRoute route, Result<ClientResponse>&& response) {
  cluster_.send_reply(index_, route.client,
                      [&cluster = cluster_, route,
                       response = Box<Result<ClientResponse>>(std::move(response))]() mutable {
                        cluster.deliver_reply(route.client, route.call_id, std::move(*response));
                      });
}

void EtcdMember::stream_reply(ReplyRoute route, Result<ClientResponse>&& response) {
  cluster_.send_stream_reply(
      index_, route.client,
      [&cluster = cluster_, route,
       response = Box<Result<ClientResponse>>(std::move(response))]() mutable {
        cluster.deliver_reply(route.client, route.call_id, std::move(*response));
      });
}

// ---------------------------------------------------------------- leases

void EtcdMember::schedule_lease_scan() {
  const std::uint64_t generation = heartbeat_generation_;
  cluster_.world().schedule_after_local(cluster_.config().lease_check_interval, pid_,
                                        [this, generation] {
    if (generation != heartbeat_generation_ || !raft_.is_leader() || !lessor_primary_)
      return;
    lease_scan();
    schedule_lease_scan();
  });
}

EtcdMember::Renewal EtcdMember::last_renewal(LeaseId lease) const {
  const auto it = renewals_.find(lease);
  if (it != renewals_.end()) return it->second;
  return {leader_since_ns_, "leader-election"};
}

void EtcdMember::lease_scan() {
  const MonoTime now(cluster_.world().local_monotonic(pid_));
  for (LeaseId id : store_.expired_leases(now)) {
    if (const auto retry = revoke_retry_at_.find(id); retry != revoke_retry_at_.end()) {
      if (now < retry->second) continue;
      revoke_retry_at_.erase(retry);
    }
    if (!revoking_.insert(id).second) continue;
    LeaseExpiryCause cause;
    cause.leader = index_;
    cause.term = raft_.term();
    cause.found_ns = cluster_.world().now().time_since_epoch().count();
    const Renewal renewed = last_renewal(id);
    cause.renewed_ns = renewed.at_ns;
    cause.renewed_by = renewed.by;
    // An attempt only: the lease has expired when (and if) the revoke commits.
    cluster_.report_lease_revoke_attempt(id, cause);
    auto propose_revoke = [this, id, cause] {
      LogEntry entry;
      entry.op = LeaseRevokeRequest{id};
      entry.from_lease_expiry = true;
      entry.expiry = cause;
      if (raft_.is_leader() && cause.term == raft_.term()) {
        propose(std::move(entry));
        return;
      }
      // Deposed since its lessor found the lease expired. etcd 3.4.23 proposes all the same:
      // raft forwards the proposal to the new leader, which commits it (etcd issue 15247).
      // Later releases confirm leadership first and drop it.
      if (cluster_.config().version == EtcdVersion::v3_4_23 && raft_.leader() >= 0 &&
          !raft_.is_leader())
        propose(std::move(entry));
    };
    if (cluster_.config().lease_revoke_delay.count() > 0) {
      cluster_.world().schedule_after_local(cluster_.config().lease_revoke_delay, pid_,
                                            propose_revoke);
    } else if (cluster_.world().running_held()) {
      // The scan came due while this member was paused: the proposal goes through raft after
      // the member has read what came meanwhile (a newer leader's messages, which depose it).
      cluster_.world().post(pid_, propose_revoke);
    } else {
      propose_revoke();
    }
  }
}

// ---------------------------------------------------------------- watches

void EtcdMember::create_watch(ReplyRoute route, WatchCreateRequest request) {
  // etcd's gRPC watch server reads an empty key as "\0", the smallest key (v3rpc/watch.go):
  // the watch is created, on a key nobody writes.
  if (request.key.empty()) request.key = std::string(1, '\0');
  // etcd refuses a watch on an empty range (range_end set, not "\0", and <= key; bytes
  // compare unsigned, as std::string does): mvcc's Watch returns ErrEmptyWatcherRange before
  // taking an id, and the server answers created and cancelled at once, with watch id -1.
  const bool empty_range = !request.range_end.empty() &&
                           request.range_end != std::string(1, '\0') &&
                           request.key >= request.range_end;
  if (empty_range) {
    WatchResponse refused;
    refused.header = header();
    refused.watch_id = -1;
    refused.created = true;
    refused.canceled = true;
    refused.cancel_reason = "mvcc: watcher range is empty";
    stream_reply(route, ClientResponse(std::move(refused)));
    return;
  }
  const std::int64_t watch_id = next_watch_id_++;
  WatchResponse created;
  created.header = header();
  created.watch_id = watch_id;
  created.created = true;
  const Revision start =
      request.start_revision > 0 ? request.start_revision : store_.revision() + 1;
  stream_reply(route, ClientResponse(created));
  if (request.start_revision > 0 && request.start_revision < store_.compact_revision()) {
    WatchResponse cancelled;
    cancelled.header = header();
    cancelled.watch_id = watch_id;
    cancelled.canceled = true;
    cancelled.compact_revision = store_.compact_revision();
    cancelled.cancel_reason = "mvcc: required revision has been compacted";
    stream_reply(route, ClientResponse(std::move(cancelled)));
    return;
  }
  Watcher w{route, watch_id, std::move(request), start};
  if (start <= store_.revision()) {
    auto past = store_.events_since(start, w.request.key, w.request.range_end);
    if (past.ok() && !past.value().empty()) {
      watchers_[watch_id] = w;
      dispatch_watch_events(past.value());
      return;
    }
  }
  w.next_revision = std::max(start, store_.revision() + 1);
  watchers_[watch_id] = std::move(w);
}

void EtcdMember::dispatch_watch_events(const std::vector<Event>& events) {
  for (auto& [id, w] : watchers_) {
    WatchResponse r;
    r.header = header();
    r.watch_id = id;
    for (const auto& e : events) {
      if (e.kv.mod_revision < w.next_revision) continue;
      const std::string& key = e.kv.key;
      const auto& req = w.request;
      bool in_range;
      if (req.range_end.empty()) {
        in_range = key == req.key;
      } else if (req.range_end == std::string(1, '\0')) {
        in_range = key >= req.key;
      } else {
        in_range = key >= req.key && key < req.range_end;
      }
      if (!in_range) continue;
      const bool filtered =
          std::any_of(req.filters.begin(), req.filters.end(), [&](WatchFilter f) {
            return (f == WatchFilter::noput && e.type == EventType::put) ||
                   (f == WatchFilter::nodelete && e.type == EventType::del);
          });
      if (filtered) continue;
      Event copy = e;
      if (!req.prev_kv) copy.prev_kv.clear();
      r.events.push_back(std::move(copy));
    }
    if (!events.empty()) w.next_revision = std::max(w.next_revision, events.back().kv.mod_revision + 1);
    if (!r.events.empty()) stream_reply(w.route, ClientResponse(std::move(r)));
  }
}

}  // namespace lockstep::sim
