#include "lockstep/sim/etcd_cluster.h"

#include <cassert>
#include <iterator>
#include <optional>
#include <utility>

#include "lockstep/kv_json/truth_json.h"
#include "lockstep/sim/json_object.h"

namespace lockstep::sim {

EtcdCluster::EtcdCluster(World& world, Network& network, EtcdConfig config)
    : world_(world), network_(network), config_(config) {
  assert(config_.members >= 1);
  const Rng rng = world_.rng_for("etcd");
  for (int i = 0; i < config_.members; ++i) {
    const ProcessId pid = world_.add_process("member-" + std::to_string(i));
    members_.push_back(std::make_unique<EtcdMember>(*this, i, pid, rng.fork(static_cast<std::uint64_t>(i))));
    EtcdMember* m = members_.back().get();
    world_.set_crash_hook(pid, [m] { m->on_crash(); });
    world_.set_restart_hook(pid, [m] { m->start(); });
  }
  // etcd's raft transport reads each peer stream with a 5 s timeout (rafthttp's
  // ConnReadTimeout): a cut longer than that kills the connection and what it held.
  for (int a = 0; a < config_.members; ++a)
    for (int b = a + 1; b < config_.members; ++b)
      network_.set_connection_timeout(member(a).pid(), member(b).pid(), kRaftConnReadTimeout);
  // A client's connection to a member that TCP gave up on fails its calls, as a reset would.
  network_.set_reset_handler([this](ProcessId from, ProcessId to) {
    for (const auto& m : members_) {
      const ProcessId client = m->pid() == from ? to : m->pid() == to ? from : -1;
      if (client < 0) continue;
      if (auto it = stream_break_sinks_.find(client); it != stream_break_sinks_.end())
        world_.post(client, [sink = it->second, index = m->index()] { sink(index); });
    }
  });
  for (auto& m : members_) m->start();
}

std::vector<ProcessId> EtcdCluster::member_pids() const {
  std::vector<ProcessId> pids;
  for (const auto& m : members_) pids.push_back(m->pid());
  return pids;
}

int EtcdCluster::leader() const {
  int best = -1;
  for (const auto& m : members_) {
    if (!m->is_leader() || world_.process(m->pid()).crashed) continue;
    if (best < 0 || m->term() > member(best).term()) best = m->index();
  }
  return best;
}

void EtcdCluster::send_request(ProcessId client, int member_index, ReplyRoute route,
                               ClientRequest&& request) {
  if (std::holds_alternative<LeaseKeepAliveRequest>(request) && keepalive_droppers_.count(client)) {
    ++keepalives_dropped_;
    return;
  }
  EtcdMember* target = members_[static_cast<std::size_t>(member_index)].get();
  network_.send(client, target->pid(),
                [target, route, request = Box<ClientRequest>(std::move(request))]() mutable {
                  target->handle_client(route, std::move(request));
                });
}

void EtcdCluster::set_drop_keepalives(ProcessId client, bool drop) {
  if (drop) {
    keepalive_droppers_.insert(client);
  } else {
    keepalive_droppers_.erase(client);
  }
}

Revision EtcdCluster::propose_compaction(Revision revision) {
  const int leader_index = leader();
  if (leader_index < 0 || world_.process(member(leader_index).pid()).paused) return 0;
  EtcdMember& m = member(leader_index);
  const Revision current = m.store().revision();
  const Revision target = revision > 0 ? std::min(revision, current) : current;
  if (target <= m.store().compact_revision()) return 0;
  LogEntry entry;
  entry.op = CompactionRequest{target, false};
  m.propose(std::move(entry));
  return target;
}

void EtcdCluster::register_client(ProcessId client, ReplySink sink) {
  const auto i = static_cast<std::size_t>(client);
  if (i >= reply_sinks_.size()) reply_sinks_.resize(i + 1);
  reply_sinks_[i] = std::move(sink);  // an empty sink unregisters
}

void EtcdCluster::deliver_reply(ProcessId client, std::uint64_t call_id,
                                Result<ClientResponse>&& response) {
  const auto i = static_cast<std::size_t>(client);
  if (i < reply_sinks_.size() && reply_sinks_[i]) reply_sinks_[i](call_id, std::move(response));
}

void EtcdCluster::register_stream_break(ProcessId client, StreamBreakSink sink) {
  if (sink) {
    stream_break_sinks_[client] = std::move(sink);
  } else {
    stream_break_sinks_.erase(client);
  }
}

void EtcdCluster::break_streams_of(int member_index) {
  for (const auto& entry : stream_break_sinks_) {
    // The reset reaches the client after a network delay, like any packet.
    network_.send(member(member_index).pid(), entry.first,
                  [sink = entry.second, member_index] { sink(member_index); });
  }
}

namespace {

// The request's name in etcd's API, in LogOp's alternative order.
const char* log_op_name(const LogOp& op) {
  static constexpr const char* kNames[] = {"put",        "delete_range", "txn",
                                           "compaction", "lease_grant",  "lease_revoke"};
  static_assert(std::size(kNames) == std::variant_size_v<LogOp>);
  return kNames[op.index()];
}

nlohmann::json expiry_json(const World& world, const EtcdCluster& cluster, LeaseId lease,
                           const LeaseExpiryCause& cause) {
  nlohmann::json j;
  j["lease"] = lease;
  j["leader"] = world.process(cluster.member(cause.leader).pid()).name;
  j["term"] = cause.term;
  j["found_ns"] = cause.found_ns;
  j["renewed_ns"] = cause.renewed_ns;
  j["renewed_by"] = cause.renewed_by;
  return j;
}

}  // namespace

nlohmann::json EtcdCluster::cause_of(const LogEntry& entry) const {
  if (entry.from_lease_expiry) {
    nlohmann::json j = expiry_json(world_, *this, std::get<LeaseRevokeRequest>(entry.op).id,
                                   entry.expiry);
    j["kind"] = "lease-expiry";
    return j;
  }
  if (entry.client_call.call_id == 0) return nullptr;
  const ReplyRoute& call = entry.client_call;
  const auto abandoned_at = [this](ProcessId client, std::uint64_t call_id) {
    const auto it = abandoned_calls_.find({client, call_id});
    return it == abandoned_calls_.end() ? std::optional<std::int64_t>() : it->second;
  };
  JsonObject j;  // members in key order (see JsonObject)
  if (const auto abandoned = abandoned_at(call.client, call.call_id)) j.add("abandoned_ns", *abandoned);
  j.add("call", call.call_id);
  j.add("client", world_.process(call.client).name);
  if (call.for_client != 0) {
    // A request of a member's lock service: made for this Lock or Unlock call of a client.
    j.add("for_call", call.for_call_id);
    if (const auto gave_up = abandoned_at(call.for_client, call.for_call_id))
      j.add("for_call_abandoned_ns", *gave_up);
    j.add("for_client", world_.process(call.for_client).name);
    j.add("for_request", call.for_request);
  }
  j.add("kind", "request");
  j.add("member", world_.process(member(entry.origin_member).pid()).name);
  j.add("request", log_op_name(entry.op));
  j.add("sent_ns", call.sent_ns);
  return std::move(j).take();
}

void EtcdCluster::report_applied(std::uint64_t index, const std::vector<Event>& events,
                                 const LogEntry& entry, const Result<ClientResponse>* result) {
  if (index <= max_reported_index_) return;  // another member applied it first
  max_reported_index_ = index;
  if (!world_.observer()) return;  // nobody records: skip building the truth events
  nlohmann::json cause = cause_of(entry);
  // The lease truths below name the cause too; otherwise the last key event takes it (most
  // entries change one key) instead of a copy.
  const bool lease_truth_follows = std::holds_alternative<LeaseGrantRequest>(entry.op) ||
                                   std::holds_alternative<LeaseRevokeRequest>(entry.op);
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    const bool last_use = i + 1 == events.size() && !lease_truth_follows;
    nlohmann::json::object_t extra;  // the simulator's own facts about the change
    if (!cause.is_null()) extra.emplace("cause", last_use ? std::move(cause) : nlohmann::json(cause));
    if (entry.from_lease_expiry) extra.emplace("lease_expired", true);
    world_.record_truth("etcd", key_event_truth_op(e), key_event_truth_args(e, std::move(extra)));
  }
  if (!result->ok()) return;
  if (const auto* granted = std::get_if<LeaseGrantResponse>(&result->value())) {
    nlohmann::json args = {{"lease", granted->id}, {"ttl_seconds", granted->ttl_seconds}};
    if (!cause.is_null()) args["cause"] = cause;
    world_.record_truth("etcd", "lease-granted", std::move(args));
  } else if (const auto* revoke = std::get_if<LeaseRevokeRequest>(&entry.op)) {
    if (entry.from_lease_expiry) {
      // The lessor's revoke committed: the lease expired now, on the proposing leader's word.
      const std::string& leader = world_.process(member(entry.expiry.leader).pid()).name;
      world_.record_truth(leader, "lease-expired",
                          expiry_json(world_, *this, revoke->id, entry.expiry));
    } else {
      nlohmann::json args = {{"lease", revoke->id}};
      if (!cause.is_null()) args["cause"] = cause;
      world_.record_truth("etcd", "lease-revoked", std::move(args));
    }
  }
}

void EtcdCluster::report_lease_revoke_attempt(LeaseId lease, const LeaseExpiryCause& cause) {
  if (!world_.observer()) return;
  world_.record_truth(world_.process(member(cause.leader).pid()).name, "lease-revoke-attempt",
                      expiry_json(world_, *this, lease, cause));
}

void EtcdCluster::report_lease_renewal(LeaseId lease, int leader, int from_member, const ReplyRoute& route) {
  if (!world_.observer()) return;
  const auto abandoned = abandoned_calls_.find({route.client, route.call_id});
  if (abandoned == abandoned_calls_.end() && !record_details_) return;
  const std::string& leader_name = world_.process(member(leader).pid()).name;
  nlohmann::json cause = {{"kind", "request"},
                          {"request", "lease_keep_alive"},
                          {"client", world_.process(route.client).name},
                          {"call", route.call_id},
                          {"member", world_.process(member(from_member).pid()).name},
                          {"sent_ns", route.sent_ns}};
  if (abandoned != abandoned_calls_.end()) cause["abandoned_ns"] = abandoned->second;
  world_.record_truth(leader_name, "lease-renewed", {{"lease", lease}, {"leader", leader_name}, {"cause", std::move(cause)}});
}

void EtcdCluster::report_proposal_dropped(int member_index, const LogEntry& entry, const char* reason) {
  if (!world_.observer()) return;
  nlohmann::json args = {{"member", member_index}, {"reason", reason}};
  if (nlohmann::json cause = cause_of(entry); !cause.is_null()) args["cause"] = std::move(cause);
  world_.record_truth(world_.process(member(member_index).pid()).name, "proposal-dropped", std::move(args));
}

void EtcdCluster::report_request_forwarded(int member_index, int to, const LogEntry& entry) {
  if (!records_details() || entry.client_call.call_id == 0) return;
  JsonObject args;  // members in key order (see JsonObject)
  args.add("cause", cause_of(entry)).add("member", member_index).add("to", to);
  world_.record_truth(world_.process(member(member_index).pid()).name, "request-forwarded",
                      std::move(args).take());
}

void EtcdCluster::report_request_appended(int member_index, std::uint64_t term, std::uint64_t index,
                                          const LogEntry& entry) {
  if (!records_details() || entry.client_call.call_id == 0) return;
  JsonObject args;  // members in key order (see JsonObject)
  args.add("cause", cause_of(entry)).add("index", index).add("member", member_index).add("term", term);
  world_.record_truth(world_.process(member(member_index).pid()).name, "request-appended",
                      std::move(args).take());
}

void EtcdCluster::report_request_cancelled(int member_index, const ReplyRoute& call, bool started) {
  if (!records_details()) return;
  world_.record_truth(world_.process(member(member_index).pid()).name, "request-cancelled",
                      {{"member", member_index},
                       {"client", world_.process(call.client).name},
                       {"call", call.call_id},
                       {"started", started}});
}

void EtcdCluster::note_abandoned_call(ProcessId client, std::uint64_t call_id) {
  if (!world_.observer()) return;
  abandoned_calls_.emplace(std::make_pair(client, call_id), world_.now().time_since_epoch().count());
}

}  // namespace lockstep::sim
