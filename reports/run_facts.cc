#include "lockstep/reports/run_facts.h"

#include <algorithm>
#include <map>

#include "lockstep/reports/explain_parts.h"
#include "lockstep/reports/report_text.h"

namespace lockstep::reports {

std::optional<bool> CallRecord::touches(const std::string& k) const {
  if (!key || (request != "range" && request != "put" && request != "delete_range")) return std::nullopt;
  if (range_end.empty()) return *key == k;
  // etcd's range end: "\0" means every key from `key` on.
  return *key <= k && (range_end == std::string(1, '\0') || k < range_end);
}

RunFacts::RunFacts(const History& history)
    : history_(history),
      truth_(extract_lock_truth(history)),
      faults_(fault_bands(history)),
      holdings_(believed_holding_intervals(history)),
      completion_(history.events.size(), -1) {
  std::map<std::string, std::size_t> open;  // process -> position of its open invoke
  std::map<std::pair<std::string, std::int64_t>, std::size_t> open_calls;  // -> calls_ position
  for (std::size_t i = 0; i < history.events.size(); ++i) {
    const auto& e = history.events[i];
    if (e.kind == EventKind::truth && e.args.is_object() && (e.op == "link-released" || e.op == "link-dead")) {
      // Read leniently (int_of, text_of): a field of another type reads as absent.
      const bool dead = e.op == "link-dead";
      // A release's batch reached the receiver at arrived_ns; a paused one read it later.
      const std::int64_t arrived_ns = int_of(e.args, "arrived_ns");
      link_events_.push_back({text_of(e.args, "from"), text_of(e.args, "to"), int_of(e.args, "held_since_ns"),
                              arrived_ns > 0 ? arrived_ns : e.true_ns, e.true_ns, dead,
                              int_of(e.args, dead ? "lost" : "messages")});
      continue;
    }
    if (e.kind == EventKind::truth && e.args.is_object() && e.op == "leader-view") {
      const std::int64_t leader = int_of(e.args, "leader", -1);
      leader_views_.push_back({member_of(e.args, "member"), e.true_ns,
                               leader >= 0 ? "member-" + std::to_string(leader) : std::string(), int_of(e.args, "term"),
                               member_of(e.args, "from"), text_of(e.args, "message")});
      continue;
    }
    if (e.kind == EventKind::truth && e.args.is_object() && e.op == "request-cancelled") {
      cancelled_.push_back({member_of(e.args, "member"), text_of(e.args, "client"), int_of(e.args, "call"), e.true_ns,
                            flag_of(e.args, "started")});
      continue;
    }
    if (e.kind == EventKind::truth && e.args.is_object() && e.op == "campaign") {
      campaigns_.push_back({member_of(e.args, "member"), e.true_ns, int_of(e.args, "term"),
                            int_of(e.args, "last_index"), int_of(e.args, "last_term"),
                            flag_of(e.args, "forced")});
      continue;
    }
    if (e.kind == EventKind::truth && e.args.is_object() && e.op == "vote-refused") {
      VoteRefusal v;
      v.member = member_of(e.args, "member");
      v.candidate = member_of(e.args, "candidate");
      v.at_ns = e.true_ns;
      v.term = int_of(e.args, "term");
      v.reason = text_of(e.args, "reason");
      v.adopted_term = flag_of(e.args, "adopted_term");
      v.candidate_last_index = int_of(e.args, "candidate_last_index");
      v.candidate_last_term = int_of(e.args, "candidate_last_term");
      v.last_index = int_of(e.args, "last_index");
      v.last_term = int_of(e.args, "last_term");
      v.voted_for = member_of(e.args, "voted_for");
      vote_refusals_.push_back(std::move(v));
      continue;
    }
    if (e.kind == EventKind::truth && e.args.is_object() &&
        (e.op == "request-forwarded" || e.op == "request-appended")) {
      const bool appended = e.op == "request-appended";
      request_steps_.push_back({member_of(e.args, "member"), e.true_ns, appended ? std::string() : member_of(e.args, "to"),
                                int_of(e.args, "term"), int_of(e.args, "index"), cause_of(e)});
      // A forward names the member it went to; one that does not says nothing usable.
      if (!appended && request_steps_.back().to.empty()) request_steps_.pop_back();
      continue;
    }
    if (e.kind == EventKind::truth && e.op == "proposal-dropped") {
      dropped_.push_back({e.process, e.true_ns, cause_of(e), text_of(e.args, "reason", "no-leader")});
      continue;
    }
    if (e.kind == EventKind::trace && e.args.is_object() && (e.op == "kv-send" || e.op == "kv-end")) {
      const std::int64_t call = e.args.value("call", std::int64_t{0});
      if (e.op == "kv-send") {
        CallRecord c;
        c.process = e.process;
        c.call = call;
        c.request = e.args.value("request", "");
        c.member = e.args.value("member", "");
        c.lease = e.args.value("lease", std::int64_t{0});
        if (auto k = e.args.find("key"); k != e.args.end() && k->is_string()) {
          c.key = unescape_bytes(k->get<std::string>());
          if (auto end = e.args.find("range_end"); c.key && end != e.args.end() && end->is_string())
            c.range_end = unescape_bytes(end->get<std::string>()).value_or("");
        }
        c.sent_ns = e.true_ns;
        // A keep-alive belongs to the session that runs in the background, whatever
        // operation happens to be open when it is sent.
        if (auto op = open.find(e.process); op != open.end() && c.request != "lease_keep_alive")
          c.invoke = static_cast<std::int64_t>(op->second);
        open_calls[{e.process, call}] = calls_.size();
        calls_.push_back(std::move(c));
      } else if (auto it = open_calls.find({e.process, call}); it != open_calls.end()) {
        CallRecord& c = calls_[it->second];
        c.end_ns = e.true_ns;
        c.outcome = e.args.value("outcome", "");
        c.error = e.args.value("error", "");
        open_calls.erase(it);
      }
      continue;
    }
    if (e.kind == EventKind::invoke) {
      open[e.process] = i;
    } else if (e.is_completion()) {
      auto it = open.find(e.process);
      if (it == open.end()) continue;
      completion_[it->second] = static_cast<std::int64_t>(i);
      open.erase(it);
    }
  }
  if (!history.events.empty()) end_ns_ = history.events.back().true_ns;
}

const HistoryEvent* RunFacts::event(std::int64_t index) const {
  if (index < 0 || index >= static_cast<std::int64_t>(history_.events.size())) return nullptr;
  return &history_.events[static_cast<std::size_t>(index)];
}

const HistoryEvent* RunFacts::completion_of(std::int64_t invoke) const {
  if (invoke < 0 || invoke >= static_cast<std::int64_t>(completion_.size())) return nullptr;
  return event(completion_[static_cast<std::size_t>(invoke)]);
}

std::vector<const FaultBand*> RunFacts::faults_hitting(const std::string& process,
                                                       std::int64_t from_ns, std::int64_t to_ns,
                                                       bool with_cluster) const {
  std::vector<const FaultBand*> out;
  for (const auto& f : faults_) {
    const std::int64_t end = f.open_end ? end_ns_ : f.end_ns;
    if (f.start_ns > to_ns || end < from_ns) continue;
    if (f.hits(process) || (with_cluster && f.hits_cluster)) out.push_back(&f);
  }
  return out;
}

const KeyLifetime* RunFacts::key_of(const std::string& process, std::int64_t key_revision,
                                    std::int64_t at_ns) const {
  return truth_.key_acquired(process, key_revision, at_ns);
}

std::vector<const CallRecord*> RunFacts::calls_of(const std::string& process,
                                                  std::int64_t from_ns, std::int64_t to_ns,
                                                  const std::string& request) const {
  std::vector<const CallRecord*> out;
  for (const auto& c : calls_) {
    if (c.sent_ns > to_ns) break;
    if (c.sent_ns < from_ns || c.process != process) continue;
    if (!request.empty() && c.request != request) continue;
    out.push_back(&c);
  }
  return out;
}

std::vector<std::pair<std::int64_t, std::int64_t>> RunFacts::leaderless(std::int64_t from_ns,
                                                                        std::int64_t to_ns,
                                                                        std::int64_t min_ns) const {
  std::vector<std::pair<std::int64_t, std::int64_t>> gaps;
  if (truth_.leaders.empty()) return gaps;
  std::vector<std::pair<std::int64_t, std::int64_t>> terms;
  for (const auto& t : truth_.leaders) terms.emplace_back(t.start_ns, std::min(t.end_ns, end_ns_));
  std::sort(terms.begin(), terms.end());
  std::int64_t covered_to = from_ns;
  for (const auto& [start, end] : terms) {
    if (start > covered_to && start > from_ns) {
      const std::int64_t a = covered_to, b = std::min(start, to_ns);
      if (b - a >= min_ns) gaps.emplace_back(a, b);
    }
    covered_to = std::max(covered_to, end);
    if (covered_to >= to_ns) break;
  }
  if (covered_to < to_ns && to_ns - covered_to >= min_ns) gaps.emplace_back(covered_to, to_ns);
  return gaps;
}

const CancelledCall* RunFacts::cancelled(const std::string& client, std::int64_t call) const {
  for (const auto& c : cancelled_)
    if (c.client == client && c.call == call) return &c;
  return nullptr;
}

const DroppedProposal* RunFacts::dropped_proposal(const std::string& client, std::int64_t call,
                                                  std::int64_t from_ns, std::int64_t to_ns) const {
  for (const auto& d : dropped_)
    if (d.cause.client == client && d.cause.call == call && from_ns <= d.at_ns && d.at_ns <= to_ns) return &d;
  return nullptr;
}

std::set<std::string> RunFacts::members() const {
  std::set<std::string> members;
  const auto add = [&](const std::string& p) {
    if (is_member(p)) members.insert(p);
  };
  for (const auto& f : faults_)
    for (const auto& p : f.processes) add(p);
  for (const auto& t : truth_.leaders) add(t.member);
  for (const Campaign& c : campaigns_) add(c.member);
  for (const LeaderView& v : leader_views_) add(v.member);
  const std::int64_t count = int_of(history_.header.meta, "members");
  for (std::int64_t i = 0; i < count && i < 64; ++i) members.insert("member-" + std::to_string(i));
  return members;
}

std::vector<const RequestStep*> RunFacts::request_steps(const ChangeCause& by) const {
  std::vector<const RequestStep*> steps;
  for (const auto& r : request_steps_)
    if (r.cause.client == by.client && r.cause.call == by.call && r.cause.lock_service_call == by.lock_service_call)
      steps.push_back(&r);
  return steps;
}

const CallRecord* RunFacts::find_call(const std::string& process, std::int64_t call) const {
  for (const auto& c : calls_)
    if (c.call == call && c.process == process) return &c;
  return nullptr;
}

bool RunFacts::is_lock_key(const KeyLifetime& key) const {
  if (!key.owner.empty() || key.created_by.kind != "request") return true;
  const CallRecord* call = find_call(key.created_by.client, key.created_by.call);
  const HistoryEvent* op = call != nullptr ? event(call->invoke) : nullptr;
  return op == nullptr || (op->op != "write" && op->op != "read");
}

std::vector<const KeyLifetime*> RunFacts::keys_at(std::int64_t at_ns) const {
  std::vector<const KeyLifetime*> out;
  for (const auto& k : truth_.keys)
    if (k.start_ns <= at_ns && at_ns < k.end_ns && is_lock_key(k)) out.push_back(&k);
  return out;
}

namespace {

// The fields a resource event repeats from the operation that caused it: all equal.
bool same_operation_args(const nlohmann::json& invoke_args, const nlohmann::json& effect_args) {
  if (!invoke_args.is_object()) return true;
  for (const char* field : {"token", "value", "base"})
    if (invoke_args.contains(field) && effect_args.contains(field) && invoke_args[field] != effect_args[field])
      return false;
  return true;
}

}  // namespace

const HistoryEvent* RunFacts::resource_effect(std::int64_t invoke) const {
  const HistoryEvent* call = event(invoke);
  if (call == nullptr) return nullptr;
  const HistoryEvent* done = completion_of(invoke);
  const bool write = call->op == "write";
  const std::string want = write ? "resource-write" : "resource-read";
  for (std::size_t i = static_cast<std::size_t>(invoke) + 1; i < history_.events.size(); ++i) {
    const auto& e = history_.events[i];
    if (e.kind == EventKind::invoke && e.process == call->process) {
      // A read matters only until the client's next operation. A write that was not
      // acknowledged may still arrive much later (a retransmission, a held message): it is
      // looked for until the client sends the same write again.
      if (!write || (e.op == "write" && e.args == call->args)) break;
      continue;
    }
    if (done && done->kind == EventKind::ok && e.index > done->index) break;
    if (e.kind != EventKind::truth || !e.args.is_object()) continue;
    if (e.op == want && e.args.value("client", "") == call->process && same_operation_args(call->args, e.args))
      return &e;
    // A guarded write keeps its data in etcd: its effect is the put its call made.
    if (write && e.op == "key-put") {
      const ChangeCause by = cause_of(e);
      if (by.client == call->process && by.sent_ns >= call->true_ns &&
          (done == nullptr || by.sent_ns <= done->true_ns))
        return &e;
    }
  }
  return nullptr;
}

std::string fault_span(const FaultBand& band) {
  // A clock's jump is instant and stays: said at its moment, whatever the fault's duration.
  const bool jump_only = band.kind == "clock" && band.args.value("amount_ms", std::int64_t{0}) != 0 &&
                         band.args.value("rate_ppm", std::int64_t{0}) <= 0;
  if (band.instant() || jump_only) return "at " + format_seconds(band.start_ns);
  if (band.open_end) return "from " + format_seconds(band.start_ns) + " until the end of the run";
  return "from " + format_seconds(band.start_ns) + " to " + format_seconds(band.end_ns);
}

}  // namespace lockstep::reports
