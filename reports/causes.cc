#include "lockstep/reports/causes.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <set>

#include "lockstep/kv/tcp_retransmission.h"
#include "lockstep/reports/elections.h"
#include "lockstep/reports/report_text.h"
#include "lockstep/reports/request_way.h"

namespace lockstep::reports {

namespace {


// Faults that can keep a client's keep-alives from renewing its lease: on the client itself,
// on the members it called (or the leader), or on links among these only. Duplication and
// reordering delay nothing, so they are never a cause.
bool can_stop_renewal(const FaultBand& f, const std::string& client,
                      const std::set<std::string>& members) {
  if (f.kind == "duplicate" || f.kind == "reorder" || f.processes.empty()) return false;
  if (f.args.contains("from") || f.args.contains("to")) {
    // A link fault counts when it acts on a link between the client and a member it called,
    // or between two such members; one also cutting other clients off (a member isolated
    // from everyone) counts as well.
    std::vector<std::string> ends(members.begin(), members.end());
    ends.push_back(client);
    for (const auto& a : ends)
      for (const auto& b : ends)
        if (a != b && f.on_link(a, b)) return true;
    return false;
  }
  // A process fault counts when it names this client or a member it reached the leader
  // through, whatever else it names (several clients paused at once); one on other clients
  // alone does not.
  bool names_ours = false;
  for (const auto& p : f.processes) names_ours = names_ours || p == client || members.count(p) > 0;
  if (!names_ours) return false;
  // A member's clock decides expiry only on the leader (passed in `members` too); a client's
  // own clock decides when it sends keep-alives.
  return true;
}

// Whether `c` (a keep-alive of `client`) was sent while a lease-drop of that client was on: it
// never left the client (the fault is a client library that stops sending them), so it was on
// no link and reached no member.
bool dropped_at_client(const RunFacts& facts, const std::string& client, const CallRecord* c) {
  return std::any_of(facts.faults().begin(), facts.faults().end(), [&](const FaultBand& d) {
    return d.kind == "lease-drop" && d.hits(client) && d.start_ns <= c->sent_ns && (d.open_end || d.end_ns > c->sent_ns);
  });
}

// Whether link fault `f` acted on the way of one of `keep_alives` (the client's, each sent to
// a member) while that keep-alive was out (until it ended, or `until_ns`): between the client
// and the member it called, or between that member and a member that led meanwhile (a
// follower passes a keep-alive on to the leader). A cut elsewhere (two other members, another
// client's links) held none of them: an election it caused shows as leaderless time. Without
// any recorded call of the client (an older history), every link `can_stop_renewal` accepts
// counts, as the history cannot say which way the keep-alives took.
bool on_keep_alive_way(const RunFacts& facts, const FaultBand& f, const std::string& client,
                       const std::vector<const CallRecord*>& keep_alives, std::int64_t until_ns) {
  if (!(f.args.contains("from") || f.args.contains("to"))) return true;  // not a link fault
  if (facts.calls_of(client, 0, facts.end_ns()).empty()) return true;
  const std::int64_t f_end = f.open_end ? facts.end_ns() : f.end_ns;
  for (const CallRecord* c : keep_alives) {
    const std::int64_t out_until = std::min(c->end_ns, until_ns);
    if (f.start_ns > out_until || f_end < c->sent_ns || dropped_at_client(facts, client, c)) continue;
    if (c->member.empty()) return true;
    if (f.on_link(client, c->member) || f.on_link(c->member, client)) return true;
    for (const auto& t : facts.truth().leaders)
      if (t.member != c->member && t.start_ns <= out_until && t.end_ns >= c->sent_ns &&
          (f.on_link(c->member, t.member) || f.on_link(t.member, c->member)))
        return true;
  }
  return false;
}

std::vector<std::int64_t> start_events(const std::vector<const FaultBand*>& faults) {
  std::vector<std::int64_t> out;
  for (const FaultBand* f : faults) out.push_back(f->start_event);
  return out;
}

std::string count_words(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "2 reached their deadline, 1 lost its connection": how unanswered calls ended.
std::string endings(const std::vector<const CallRecord*>& calls, std::int64_t until_ns) {
  std::size_t deadline = 0, lost = 0, error = 0, open = 0;
  for (const CallRecord* c : calls) {
    if (c->end_ns > until_ns) {
      ++open;
    } else if (c->outcome == "deadline") {
      ++deadline;
    } else if (c->outcome == "connection-lost") {
      ++lost;
    } else if (c->outcome != "ok") {
      ++error;
    }
  }
  std::vector<std::string> parts;
  if (deadline) parts.push_back(std::to_string(deadline) + " reached the client's deadline");
  if (lost) parts.push_back(std::to_string(lost) + " lost their connection");
  if (error) parts.push_back(std::to_string(error) + " failed with an error");
  if (open) parts.push_back(std::to_string(open) + (open == 1 ? " was" : " were") + " still unanswered at " + format_seconds(until_ns));
  return join_words(parts);
}

// How one unanswered call ended, as a clause: "it reached the client's deadline".
std::string single_ending(const CallRecord& c, std::int64_t until_ns) {
  if (c.end_ns > until_ns) return "it was still unanswered at " + format_seconds(until_ns);
  if (c.outcome == "deadline") return "it reached the client's deadline";
  if (c.outcome == "connection-lost") return "it lost its connection";
  return "it failed with an error";
}

// How one call that did not succeed ended, as a predicate: "failed at 5.154 s (raft proposal
// dropped)", "reached the client's deadline at 10.154 s".
std::string call_ending(const CallRecord& c, std::int64_t until_ns) {
  if (c.end_ns > until_ns) return "was still unanswered at " + format_seconds(until_ns);
  const std::string at = " at " + format_seconds(c.end_ns);
  if (c.outcome == "deadline") return "reached the client's deadline" + at;
  if (c.outcome == "connection-lost") return "lost its connection" + at;
  return "failed" + at + (c.error.empty() ? std::string() : " (" + c.error + ")");
}

// The members of the run: those named by faults and leader records, and `also`.
std::set<std::string> member_names(const RunFacts& facts, const std::string& also) {
  std::set<std::string> members = {also};
  for (const auto& f : facts.faults())
    for (const auto& p : f.processes)
      if (is_member(p)) members.insert(p);
  for (const auto& t : facts.truth().leaders) members.insert(t.member);
  return members;
}

// Whether link fault `f` acts on a request's way: from `client` to the member it called (and
// back), or between members (the proposal's way to the leader, the leader's quorum).
bool on_request_way(const FaultBand& f, const std::string& client, const std::string& member,
                    const std::set<std::string>& members) {
  if (f.on_link(client, member) || f.on_link(member, client)) return true;
  for (const auto& a : members)
    for (const auto& b : members)
      if (a != b && f.on_link(a, b)) return true;
  return false;
}

// The client's call whose request granted `lease` (from the lease-granted truth), or nullptr.
const CallRecord* grant_call(const RunFacts& facts, std::int64_t lease, const std::string& client) {
  for (const auto& e : facts.history().events) {
    if (e.kind != EventKind::truth || e.op != "lease-granted" ||
        int_of(e.args, "lease") != lease)
      continue;
    const ChangeCause c = cause_of(e);
    return c.kind == "request" && c.client == client ? facts.find_call(client, c.call) : nullptr;
  }
  return nullptr;
}

// "connection-lost: watch stream's member went away": how an operation that failed ended.
std::string failure_words(const HistoryEvent& done) {
  const std::string error = done.result.value("error", std::string());
  const std::string message = done.result.value("message", std::string());
  if (error.empty()) return message.empty() ? std::string("no answer") : message;
  return message.empty() ? error : error + ": " + message;
}

// The faults on `client` or on the members its operation `invoke` called that were active at
// some instant of [from_ns, to_ns]: what made that operation fail.
std::vector<const FaultBand*> faults_on_operation(const RunFacts& facts, const std::string& client,
                                                  std::int64_t invoke, std::int64_t from_ns,
                                                  std::int64_t to_ns) {
  std::set<std::string> members;
  bool proposal_dropped = false;  // a call refused because leadership was moving
  for (const CallRecord* c : facts.calls_of(client, 0, to_ns)) {
    if (c->invoke != invoke) continue;
    if (!c->member.empty()) members.insert(c->member);
    proposal_dropped = proposal_dropped || c->error.find("proposal dropped") != std::string::npos ||
                       c->error.find("leader changed") != std::string::npos;
  }
  std::vector<const FaultBand*> out;
  for (const auto& f : facts.faults()) {
    const std::int64_t end = f.open_end ? facts.end_ns() : f.end_ns;
    // A leadership transfer drops proposals until it completes, an election timeout or so
    // after the fault that started it: one started shortly before is behind such a refusal.
    if (f.kind == "leader-change" && proposal_dropped && f.start_ns >= from_ns - 1'000'000'000 &&
        f.start_ns <= to_ns) {
      out.push_back(&f);
      continue;
    }
    if (f.start_ns > to_ns || end < from_ns) continue;
    if (f.kind == "duplicate" || f.kind == "reorder") continue;
    const bool link = f.args.contains("from") || f.args.contains("to");
    bool hits = !link && f.hits(client);
    for (const auto& m : members)
      hits = hits || (link ? f.on_link(client, m) || f.on_link(m, client) : f.hits(m));
    if (hits) out.push_back(&f);
  }
  return out;
}

}  // namespace

std::vector<const FaultBand*> faults_on_call(const RunFacts& facts, const CallRecord& call, std::int64_t to_ns) {
  std::vector<const FaultBand*> out;
  if (call.member.empty()) return out;
  for (const auto& f : facts.faults()) {
    const std::int64_t end = f.open_end ? facts.end_ns() : f.end_ns;
    if (f.start_ns > to_ns || end < call.sent_ns) continue;
    if (f.kind == "duplicate" || f.kind == "reorder" || f.kind == "lease-drop" || f.kind == "clock") continue;
    const bool link = f.args.contains("from") || f.args.contains("to");
    bool hits = link ? f.on_link(call.process, call.member) || f.on_link(call.member, call.process)
                     : f.hits(call.process) || f.hits(call.member);
    // A member passes what it cannot serve itself to the leader of the moment.
    for (const auto& t : facts.truth().leaders) {
      if (t.member == call.member || t.end_ns < std::max(call.sent_ns, f.start_ns) ||
          t.start_ns > std::min(to_ns, end))
        continue;
      hits = hits || (link ? f.on_link(call.member, t.member) || f.on_link(t.member, call.member) : f.hits(t.member));
    }
    if (hits) out.push_back(&f);
  }
  return out;
}

const LinkEvent* link_hold_of(const RunFacts& facts, const std::string& from, const std::string& to,
                              std::int64_t sent_ns) {
  for (const LinkEvent& l : facts.link_events()) {
    if (l.at_ns < sent_ns || l.from != from || l.to != to) continue;
    if (l.held_since_ns <= sent_ns) return &l;
    // The hold began after the sending: the message was its first, if a cut was there for it.
    for (const auto& f : facts.faults())
      if (f.kind == "partition" && f.on_link(from, to) && f.start_ns <= sent_ns &&
          (f.open_end || f.end_ns > sent_ns) && l.held_since_ns - sent_ns < 1'000'000'000)
        return &l;
    return nullptr;  // delivered before that hold began
  }
  return nullptr;
}

std::string link_hold_words(const LinkEvent& hold, const std::string& what) {
  std::string s = "the link from " + hold.from + " to " + hold.to + " held " + what + ", with what it had held since " +
                  format_seconds(hold.held_since_ns) + ", until ";
  return s + (hold.dead ? "the connection was declared dead at " + format_seconds(hold.at_ns) + ", losing them"
                        : "TCP's retransmission got them through at " + format_seconds(hold.at_ns));
}

std::string held_calls_words(const RunFacts& facts, const LinkEvent& hold, const std::vector<const CallRecord*>& calls) {
  std::vector<std::string> numbers, dropped;
  for (const CallRecord* c : calls) {
    numbers.push_back(std::to_string(c->call));
    // Cancelled unstarted where it arrived: its cancellation (sent at the call's deadline,
    // behind it on the same connection) was read with it.
    if (const CancelledCall* x = facts.cancelled(c->process, c->call);
        x != nullptr && !x->started && x->member == hold.to && x->at_ns >= hold.read_ns &&
        x->at_ns - hold.read_ns < 1'000'000)
      dropped.push_back(std::to_string(c->call));
  }
  std::string s = link_hold_words(hold, (calls.size() == 1 ? "call " : "calls ") + join_words(numbers));
  if (dropped.empty() || hold.dead) return s;
  const std::string client = calls.front()->process;
  if (dropped.size() == calls.size())
    return s + (calls.size() == 1 ? ", and it came with its cancellation (" + client +
                                        " cancels a call at its deadline), so " + hold.to + " dropped it unstarted"
                                  : ", and each came with its cancellation (" + client +
                                        " cancels a call at its deadline), so " + hold.to + " dropped each unstarted");
  return s + ", and " + hold.to + " dropped call" + (dropped.size() == 1 ? " " : "s ") + join_words(dropped) +
         " unstarted, each having come with its cancellation (" + client + " cancels a call at its deadline)";
}

bool held_whole_way(const RunFacts& facts, const CallRecord& call) {
  const LinkEvent* hold = link_hold_of(facts, call.process, call.member, call.sent_ns);
  return hold != nullptr && call.end_ns != kStillOpen && hold->at_ns >= call.end_ns;
}

std::string held_messages_words(const LinkEvent& l) {
  return l.from + "'s messages to " + l.to + ", held since " + format_seconds(l.held_since_ns) +
         (l.dead ? ", were lost when the connection was declared dead at " + format_seconds(l.at_ns)
                 : ", got through at TCP's retransmission at " + format_seconds(l.at_ns));
}

std::string dropped_words(const RunFacts& facts, const CallRecord& call, const std::string& what) {
  const DroppedProposal* d = facts.dropped_proposal(call.process, call.call, call.sent_ns,
                                                    call.end_ns == kStillOpen ? facts.end_ns() : call.end_ns);
  if (d == nullptr) return "";
  const std::string by = d->cause.lock_service.empty() ? d->cause.member : d->cause.lock_service;
  // A lock service's request made for the client's call: that request is what was dropped.
  const std::string dropped = d->cause.lock_service.empty()
                                  ? what
                                  : "the " + d->cause.request + " that " + d->cause.lock_service +
                                        "'s lock service made for " + what;
  const std::string why = d->reason == "leader-transfer"
                              ? " was handing its leadership over, and a leader drops every proposal then"
                              : " no longer led and knew no leader";
  return d->member + " dropped " + dropped + " at " + format_seconds(d->at_ns) + " (" +
         (by.empty() ? std::string("a member") : by) + " passed it on to " + d->member +
         " as the leader, but " + d->member + why +
         "; etcd does not propose a dropped request again, so only the caller's deadline ends it)";
}

std::vector<const KeyLifetime*> lock_keys_ahead(const RunFacts& facts, const std::string& key_name,
                                                std::int64_t revision) {
  const std::string prefix = key_name.substr(0, key_name.rfind('/') + 1);
  std::vector<const KeyLifetime*> ahead;
  for (const auto& other : facts.truth().keys)
    if (other.create_revision < revision && other.key.rfind(prefix, 0) == 0 && facts.is_lock_key(other))
      ahead.push_back(&other);
  return ahead;
}

std::string call_held_words(const RunFacts& facts, const CallRecord& call) {
  const std::int64_t end_ns = call.end_ns == kStillOpen ? facts.end_ns() : call.end_ns;
  std::vector<std::string> why;
  if (const auto held = faults_on_call(facts, call, end_ns); !held.empty()) why.push_back(fault_clauses(held, 4));
  if (const std::string dropped = dropped_words(facts, call); !dropped.empty())
    why.push_back(dropped);
  // Its link to the member still held it when the call ended (a cut healed before, but TCP's
  // retransmission came after), or lost it.
  const LinkEvent* hold = link_hold_of(facts, call.process, call.member, call.sent_ns);
  if (hold != nullptr && hold->at_ns >= end_ns) why.push_back(held_calls_words(facts, *hold, {&call}));
  // A call its own link held until it ended reached no member: who led did not matter to it.
  if (hold == nullptr || hold->at_ns < end_ns) {
    if (const std::string gaps = leaderless_during(facts, call.sent_ns, end_ns); !gaps.empty()) why.push_back(gaps);
    // The member it went to knew no leader to pass it on to.
    if (std::string alone = member_without_leader_words(facts, call.member, call.sent_ns, end_ns,
                                                         std::min<std::int64_t>(1'000'000'000, (end_ns - call.sent_ns) / 4));
        !alone.empty())
      why.push_back(alone + kHeldWithoutLeader);
  }
  if (why.empty()) return "";
  std::string words = why.front();
  for (std::size_t i = 1; i < why.size(); ++i) words += "; " + why[i];
  return words;
}

std::string late_renewal_words(const RunFacts& facts, const std::string& client, std::int64_t lease,
                               std::int64_t renewed_ns) {
  std::vector<const CallRecord*> by;
  for (const CallRecord* c : facts.calls_of(client, 0, renewed_ns, "lease_keep_alive"))
    if (c->lease == lease && c->outcome == "ok" && c->end_ns != kStillOpen && c->end_ns >= renewed_ns &&
        c->end_ns - renewed_ns < 1'000'000'000 && c->end_ns - c->sent_ns >= 1'000'000'000)
      by.push_back(c);
  if (by.empty()) return "";
  std::vector<std::string> sent, numbers;
  for (const CallRecord* c : by) {
    sent.push_back(format_seconds(c->sent_ns));
    numbers.push_back(std::to_string(c->call));
  }
  const CallRecord& last = *by.back();
  const bool one = by.size() == 1;
  const bool one_member =
      std::all_of(by.begin(), by.end(), [&](const CallRecord* c) { return c->member == last.member; });
  return "for " + client + "'s keep-alive" + (one ? "" : "s") + " sent" +
         (one_member && !last.member.empty() ? " to " + last.member : std::string()) + " at " + join_words(sent) +
         " (call" + (one ? " " : "s ") + join_words(numbers) + "), answered at " + format_seconds(last.end_ns) +
         ", " + format_duration(last.end_ns - last.sent_ns) + " after " + (one ? "it was" : "the last was") +
         " sent";
}

bool unseen_renewal(const RunFacts& facts, const HistoryEvent& renewal) {
  const ChangeCause c = cause_of(renewal);
  if (c.abandoned_ns) return true;
  const CallRecord* call = facts.find_call(c.client, c.call);
  return call != nullptr && c.call != 0 && call->outcome != "ok";
}

std::string unseen_renewal_words(const RunFacts& facts, std::int64_t lease, std::int64_t until_ns,
                                 std::int64_t* renewed_ns) {
  // The last renewal, and the last its client never saw: only when they are the same moment is
  // the lease's last renewal one its client never saw (several held keep-alives arrive together).
  const HistoryEvent* last = nullptr;
  std::int64_t last_renewal_ns = -1;
  for (const auto& e : facts.history().events) {
    if (e.true_ns > until_ns) break;
    if (e.kind != EventKind::truth || e.op != "lease-renewed" || int_of(e.args, "lease") != lease) continue;
    last_renewal_ns = e.true_ns;
    if (unseen_renewal(facts, e)) last = &e;
  }
  if (last == nullptr || last->true_ns != last_renewal_ns) return "";
  if (renewed_ns != nullptr) *renewed_ns = last->true_ns;
  const ChangeCause c = cause_of(*last);
  std::string s = "for a keep-alive that " + c.client + " had sent";
  if (!c.member.empty()) s += " to " + c.member;
  if (c.sent_ns >= 0) s += " at " + format_seconds(c.sent_ns);
  if (c.call != 0) s += " (call " + std::to_string(c.call) + ")";
  if (c.abandoned_ns) {
    s += " and given up at " + format_seconds(*c.abandoned_ns);
  } else if (const CallRecord* call = facts.find_call(c.client, c.call); call != nullptr && call->end_ns != kStillOpen) {
    s += ", whose answer it never had (the call ended " + call->outcome + " at " + format_seconds(call->end_ns) + ")";
  } else {
    s += ", whose answer it never had";
  }
  if (const CallRecord* call = facts.find_call(c.client, c.call); call != nullptr && c.call != 0) {
    auto held = faults_on_call(facts, *call, last->true_ns);
    // The recorded release that let it through, on the client's link to its member: until then
    // it was on that link, and only the faults on that link held it.
    const LinkEvent* hold = link_hold_of(facts, call->process, call->member, call->sent_ns);
    if (hold != nullptr && (hold->dead || hold->at_ns > last->true_ns)) hold = nullptr;
    if (hold != nullptr)
      std::erase_if(held, [&](const FaultBand* f) {
        const bool link = f->args.contains("from") || f->args.contains("to");
        return !link || !f->on_link(call->process, call->member) || (!f->open_end && f->end_ns < call->sent_ns);
      });
    if (!held.empty() && last->true_ns - call->sent_ns >= 1'000'000'000) {
      s += ", held on its way while " + fault_clauses(held, 3);
      if (hold != nullptr) s += " (" + link_hold_words(*hold) + ")";
    }
    // Given up, yet it ran: its cancellation, read in the same batch as it (the link's release),
    // came too late to stop it. (A request already passed on when its cancellation came is
    // recorded as started too, but did not come with it.)
    const LinkEvent* batch = link_hold_of(facts, call->process, call->member, call->sent_ns);
    if (const CancelledCall* x = facts.cancelled(c.client, c.call);
        x != nullptr && x->started && c.abandoned_ns && batch != nullptr && !batch->dead && x->member == batch->to &&
        x->at_ns >= batch->read_ns && x->at_ns - batch->read_ns < 1'000'000)
      s += "; its cancellation reached " + x->member + " with it, but " + x->member +
           " had started it first (gRPC's handler can run before a cancellation read in the same batch)";
  }
  return s;
}

std::vector<std::string> keys_of_lease_at(const RunFacts& facts, std::int64_t lease, std::int64_t at_ns) {
  std::vector<std::string> keys;
  for (const auto& e : facts.history().events) {
    if (e.true_ns > at_ns) break;
    if (e.kind != EventKind::truth) continue;
    const std::string key = e.args.value("key", std::string());
    const auto at = std::find(keys.begin(), keys.end(), key);
    if (e.op == "key-put" && int_of(e.args, "lease") == lease) {
      if (at == keys.end()) keys.push_back(key);
    } else if ((e.op == "key-put" || e.op == "key-delete") && at != keys.end()) {
      keys.erase(at);  // deleted, or put again without the lease
    }
  }
  return keys;
}

std::string lease_hex(std::int64_t lease) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(lease));
  return buf;
}

std::string request_words(const ChangeCause& c) {
  if (!c.lock_service.empty()) {
    std::string s = "a " + (c.request.empty() ? std::string("request") : c.request) + " that " +
                    c.lock_service + "'s lock service sent";
    if (c.sent_ns >= 0) s += " at " + format_seconds(c.sent_ns);
    return s + " for " + c.client + "'s " + (c.for_request.empty() ? "" : c.for_request + " ") +
           "call (call " + std::to_string(c.call) + ")";
  }
  std::string s = (c.request.empty() ? std::string("request") : c.request) + " that " +
                  (c.client.empty() ? std::string("a client") : c.client) + " sent";
  if (!c.member.empty()) s += " to " + c.member;
  if (c.sent_ns >= 0) s += " at " + format_seconds(c.sent_ns);
  if (c.call != 0) s += " (call " + std::to_string(c.call) + ")";
  return "a " + s;
}

nlohmann::json request_json(const ChangeCause& c) {
  nlohmann::json j = {{"request", c.request}, {"client", c.client}, {"call", c.call},
                      {"member", c.member},   {"sent_ns", c.sent_ns}};
  if (c.abandoned_ns) j["abandoned_ns"] = *c.abandoned_ns;
  if (!c.lock_service.empty()) {
    j["lock_service"] = c.lock_service;
    j["for_request"] = c.for_request;
  }
  return j;
}

std::string request_delay_words(const RunFacts& facts, const ChangeCause& by, std::int64_t applied_ns,
                                std::vector<const FaultBand*>& held) {
  held.clear();
  // What held the request between its sending and its applying. Where its way is recorded,
  // the faults on that way (request_way.h). Else, as a bound: a pause or crash of the member
  // that received it or of the leader then, faults on the sender's own links to the members,
  // or between members (the proposal's way to the leader). Faults on other clients' traffic
  // are not.
  const std::int64_t took_ns = by.sent_ns >= 0 ? applied_ns - by.sent_ns : 0;
  // Where the history records the request's way, the faults on that way, and no guess.
  const std::vector<RequestLeg> legs = request_legs(facts, by, applied_ns);
  if (!legs.empty()) {
    held = faults_on_legs(facts, legs);
  } else if (by.sent_ns >= 0) {
    const std::set<std::string> members = member_names(facts, by.member);
    const auto leaderless = facts.leaderless(by.sent_ns, applied_ns, 1'000'000'000);
    for (const auto& f : facts.faults()) {
      const std::int64_t end = f.open_end ? facts.end_ns() : f.end_ns;
      if (f.start_ns > applied_ns || end < by.sent_ns) continue;
      if (f.kind == "pause" || f.kind == "crash" || f.kind == "clock") {
        // The receiving member's own; the leader's it forwarded the request to (the leader
        // when it was sent); another member's when no member led meanwhile (it may have
        // cost the leader its quorum). A clock times the member's elections.
        bool counts = f.hits(by.member);
        for (const auto& t : facts.truth().leaders)
          counts = counts || (f.kind != "clock" && t.start_ns <= by.sent_ns && by.sent_ns < t.end_ns &&
                              f.hits(t.member));
        for (const auto& [a, b] : leaderless)
          for (const auto& m : members)
            counts = counts || (f.kind != "clock" && f.hits(m) && f.start_ns <= b && end >= a);
        if (counts) held.push_back(&f);
        continue;
      }
      if (f.kind == "duplicate" || f.kind == "reorder" || f.kind == "lease-drop" || f.processes.empty())
        continue;
      if (on_request_way(f, by.client, by.member, members)) held.push_back(&f);
    }
  }
  std::stable_sort(held.begin(), held.end(), [](const FaultBand* a, const FaultBand* b) {
    return (a->kind == "pause" || a->kind == "crash") > (b->kind == "pause" || b->kind == "crash");
  });
  // A request applied within a second of its sending was not held: say nothing of its way.
  if (by.sent_ns >= 0 && (took_ns >= 1'000'000'000 || by.abandoned_ns)) {
    // Held by a cut that healed well before it was applied: TCP resends what a cut link holds
    // at its next retransmission, whose timeout doubles while the link stays cut.
    std::int64_t last_cut_end_ns = -1;
    bool cut_still_open = false;
    for (const FaultBand* f : held) {
      if (f->kind != "partition") continue;
      cut_still_open = cut_still_open || f->open_end || f->end_ns >= applied_ns;
      if (!f->open_end) last_cut_end_ns = std::max(last_cut_end_ns, f->end_ns);
    }
    std::string after_heal;
    // Held on the client's own link to the member: its first held message (this request or
    // an earlier call on that link during the cut) sets the retransmission schedule. When
    // the request was applied just after that schedule's first retransmission past the
    // heal, the wait after the heal was TCP's, whatever else happened meanwhile.
    std::int64_t got_through_ns = -1;
    const auto on_own_link = [&](const FaultBand* f) {
      return f->kind == "partition" && !f->open_end && f->on_link(by.client, by.member);
    };
    for (const FaultBand* f : held) {
      if (!on_own_link(f) || f->start_ns > by.sent_ns || f->end_ns <= by.sent_ns) continue;
      // Cuts of the link that overlap or follow on at once are one cut to TCP: the link
      // heals when the last of them ends.
      std::int64_t healed_ns = f->end_ns;
      for (bool grew = true; grew;) {
        grew = false;
        for (const FaultBand* g : held)
          if (on_own_link(g) && g->start_ns <= healed_ns && g->end_ns > healed_ns) {
            healed_ns = g->end_ns;
            grew = true;
          }
      }
      if (healed_ns >= applied_ns) continue;
      std::int64_t first_held_ns = by.sent_ns;
      for (const CallRecord* c : facts.calls_of(by.client, f->start_ns, by.sent_ns))
        if (c->member == by.member) first_held_ns = std::min(first_held_ns, c->sent_ns);
      std::int64_t retransmit_ns = next_tcp_retransmission_ns(first_held_ns, healed_ns);
      // The history's record of the release, where there is one, says when it arrived.
      if (const LinkEvent* record = link_hold_of(facts, by.client, by.member, by.sent_ns);
          record != nullptr && !record->dead && record->at_ns >= healed_ns)
        retransmit_ns = record->at_ns;
      if (applied_ns >= retransmit_ns && applied_ns - retransmit_ns < 200'000'000 &&
          retransmit_ns - healed_ns >= 300'000'000) {
        got_through_ns = retransmit_ns;
        after_heal = "; it got through at TCP's retransmission at " + format_seconds(retransmit_ns) + ", " +
                     format_duration(retransmit_ns - healed_ns) + " after the cut healed: the retransmission "
                     "timeout had doubled from 200 ms while the link stayed cut since its first held request (sent "
                     "at " + format_seconds(first_held_ns) + ")";
        break;
      }
    }
    // Sent into a loss on its own link: TCP resent it until a transmission got through.
    const FaultBand* loss_on_own_link = nullptr;
    for (const FaultBand* f : held) {
      if (got_through_ns >= 0) break;
      if (f->kind != "loss" || !f->on_link(by.client, by.member)) continue;
      // Applied right after that retransmission, with no leaderless wait in between: TCP's doing.
      if (!facts.leaderless(f->end_ns, applied_ns, 100'000'000).empty()) continue;
      after_heal = loss_retransmission_words(*f, by.sent_ns, applied_ns, 50'000'000);
      if (after_heal.empty()) continue;
      loss_on_own_link = f;
      got_through_ns = last_tcp_transmission(by.sent_ns, applied_ns).at_ns;
    }
    // Held by TCP until it got through: a fault elsewhere that ended before then did not
    // hold it (the request had not reached any member yet).
    if (got_through_ns >= 0)
      std::erase_if(held, [&](const FaultBand* f) {
        return !on_own_link(f) && f != loss_on_own_link && !f->open_end && f->end_ns < got_through_ns;
      });
    std::string h = "It took " + format_duration(took_ns) + " from sending to applying";
    const std::size_t bare_size = h.size();
    // With its way recorded, what held it is known; a delay under a second is not the point.
    if (!held.empty()) h += ": " + fault_clauses(held, 4);
    else if (!legs.empty()) h += took_ns >= 1'000'000'000 ? "; no fault held it on its way" : "";
    else h += "; no fault was active on " + by.member + ", on " + by.client +
              "'s link to it or on the links between members in that time";
    if (after_heal.empty() && last_cut_end_ns >= 0 && !cut_still_open &&
        applied_ns - last_cut_end_ns >= 500'000'000 &&
        facts.leaderless(last_cut_end_ns, applied_ns, 100'000'000).empty())
      // Measured to its applying (the retransmission's own time is not known here).
      after_heal = "; it was applied " + format_duration(applied_ns - last_cut_end_ns) +
                   " after the last of those cuts healed, held until TCP's next retransmission, whose timeout "
                   "doubles while a link stays cut";
    // A fault on the leader of the moment, not the member called: say why it mattered (a
    // recorded way says where the request went instead).
    if (legs.empty())
      for (const auto& t : facts.truth().leaders) {
        if (!(t.start_ns <= by.sent_ns && by.sent_ns < t.end_ns) || t.member == by.member) continue;
        if (std::any_of(held.begin(), held.end(), [&](const FaultBand* f) { return f->hits(t.member); }))
          h += " (" + t.member + " led the cluster when it was sent: " + by.member +
               " would pass the request on to it)";
      }
    h += after_heal;
    // Where it went, after what held it on its way to its first member.
    if (const std::string way = request_way_words(facts, legs, applied_ns, !held.empty()); !way.empty()) h += "; " + way;
    // Leaderless time counts only where the request could have been waiting for a leader:
    // after it got through, when TCP held it until then.
    const std::int64_t waiting_from_ns = got_through_ns >= 0 ? got_through_ns : by.sent_ns;
    if (const std::string gaps = leaderless_during(facts, waiting_from_ns, applied_ns); !gaps.empty())
      h += "; " + gaps;
    // A recorded way that nothing held, quick and told nothing of: not worth a sentence.
    if (!legs.empty() && took_ns < 1'000'000'000 && h.size() == bare_size) return "";
    return h + ".";
  }
  held.clear();
  return "";
}

namespace {

// Why keep-alives that went to a member other than the lessor's (`leader`) did not reach it in
// time, for each such member: a follower passes a keep-alive on to the leader it knows, and holds
// it while it knows none. A member knew no leader from its campaign (a candidate knows none) until
// a leader of that term or a newer one was elected: it cannot follow an older term's leader. With
// its campaigns and what the voters did with them, and what the links between it and the leader
// held or lost while the keep-alives were out. "" when the records show none of it.
std::string keep_alive_way_words(const RunFacts& facts, const std::string& client,
                                 const std::vector<const CallRecord*>& keep_alives, const std::string& leader,
                                 std::int64_t to_ns) {
  std::vector<std::string> members;
  std::map<std::string, std::int64_t> first_sent_ns;
  for (const CallRecord* c : keep_alives) {
    const bool answered_in_time = c->outcome == "ok" && c->end_ns <= to_ns;
    if (answered_in_time || c->member.empty() || c->member == leader || c->sent_ns > to_ns) continue;
    if (first_sent_ns.emplace(c->member, c->sent_ns).second) members.push_back(c->member);
  }
  std::vector<std::string> sentences;
  for (const std::string& m : members) {
    const std::int64_t from_ns = first_sent_ns[m];
    // A member that led meanwhile served them itself (its lessor is not the one that expired
    // the lease): what it did as a follower is not why.
    if (std::any_of(facts.truth().leaders.begin(), facts.truth().leaders.end(), [&](const LeaderTerm& t) {
          return t.member == m && t.start_ns <= to_ns && t.end_ns >= from_ns;
        }))
      continue;
    std::vector<std::string> parts;
    std::vector<const Campaign*> campaigns;
    for (const Campaign& c : facts.campaigns())
      if (c.member == m && c.at_ns >= from_ns && c.at_ns <= to_ns) campaigns.push_back(&c);
    if (!campaigns.empty()) {
      const Campaign& first = *campaigns.front();
      const LeaderTerm* next = nullptr;
      for (const auto& t : facts.truth().leaders)
        if (t.start_ns > first.at_ns && t.term >= first.term) {
          next = &t;
          break;
        }
      std::int64_t until_ns = next != nullptr ? next->start_ns : facts.end_ns();
      std::string until = next != nullptr ? "until " + next->member + " was elected in term " + std::to_string(next->term) +
                                                " at " + format_seconds(next->start_ns)
                                          : std::string("to the end of the history");
      // Its own view, when recorded: the moment it learned of a leader (an election it could not
      // follow, or heard of only later, does not end its wait).
      for (const LeaderView& v : facts.leader_views())
        if (v.member == m && v.at_ns > first.at_ns && !v.leader.empty()) {
          until_ns = v.at_ns;
          until = "until it learned at " + format_seconds(v.at_ns) + " that " + v.leader + " led (term " +
                  std::to_string(v.term) + ")";
          break;
        }
      parts.push_back("it knew none from " + format_seconds(first.at_ns) + ", when it first campaigned, " + until);
      // Its term ran ahead of the lessor's: it could not follow that leader again.
      for (const auto& t : facts.truth().leaders)
        if (t.member == leader && t.start_ns <= first.at_ns && t.end_ns >= first.at_ns && first.term > t.term) {
          parts.push_back("its term from then (" + std::to_string(first.term) + " and up) was newer than " + leader +
                          "'s (" + std::to_string(t.term) + "), so it could not follow " + leader + " again");
          break;
        }
      parts.push_back(campaigns_words(facts, m, campaigns, facts.members(), first.at_ns, until_ns));
    }
    for (const LinkEvent& l : facts.link_events()) {
      const bool between = (l.from == m && l.to == leader) || (l.from == leader && l.to == m);
      if (!between || l.at_ns < from_ns || l.held_since_ns > to_ns) continue;
      parts.push_back(held_messages_words(l));
    }
    if (parts.empty()) continue;
    std::string s = m + ", where " + client + "'s keep-alives went, passes them on to the leader it knows, and holds them while it knows none";
    for (std::size_t i = 0; i < parts.size(); ++i) s += (i == 0 ? ": " : "; ") + parts[i];
    sentences.push_back(s + ".");
  }
  std::string out;
  for (const std::string& s : sentences) out += (out.empty() ? "" : " ") + s;
  return out;
}

}  // namespace

nlohmann::json explain_lease_expiry(const RunFacts& facts, const LeaseLifetime& lease,
                                    const std::string& client, Story& story) {
  const ChangeCause& x = lease.expiry;
  const std::int64_t expired_ns = *lease.expired_ns;
  const std::string leader = x.leader.empty() ? lease.expired_by : x.leader;
  // The window in which a renewal would have saved the lease: from the leader's last renewal
  // (or, unrecorded, the lease's first sight) to when its lessor found it expired.
  const std::int64_t from_ns = x.renewed_ns >= 0 ? x.renewed_ns : lease.first_seen_ns;
  const std::int64_t to_ns = x.found_ns >= 0 ? x.found_ns : expired_ns;

  nlohmann::json cause = {{"class", "lease-expired"}, {"lease", lease.lease}, {"leader", leader},
                          {"process", client}, {"expired_ns", expired_ns}};
  std::string s = client + "'s lease " + lease_hex(lease.lease) + " expired at " +
                  format_seconds(expired_ns) + ", when the revoke proposed by " + leader +
                  (x.term ? " (leader in term " + std::to_string(x.term) + ")" : std::string()) +
                  " committed";
  if (x.renewed_ns >= 0) {
    std::int64_t unseen_ns = -1;
    const std::string unseen = unseen_renewal_words(facts, lease.lease, x.renewed_ns, &unseen_ns);
    // By what: a keep-alive its client had given up, ones answered late, or a prompt one.
    std::string by_keep_alive = unseen_ns == x.renewed_ns ? unseen : std::string();
    if (x.renewed_by == "keep-alive" && by_keep_alive.empty())
      by_keep_alive = late_renewal_words(facts, client, lease.lease, x.renewed_ns);
    if (by_keep_alive.empty()) by_keep_alive = "a keep-alive";
    s += "; " + leader + "'s lessor had last renewed it at " + format_seconds(x.renewed_ns) +
         (x.renewed_by == "keep-alive"        ? " (" + by_keep_alive + ")"
          : x.renewed_by == "grant"           ? " (its grant)"
          : x.renewed_by == "leader-election" ? " (when " + leader + " became leader)"
                                              : std::string()) +
         " and found it expired at " + format_seconds(to_ns);
  }
  story.say(s + ".", TimeSpan{from_ns, expired_ns});
  // A lessor deposed before its revoke committed: etcd 3.4.23 forwards the revoke to the new
  // leader, which commits it (etcd issue 15247).
  for (const LeaderTerm& t : facts.truth().leaders) {
    if (x.term == 0 || t.term <= x.term || t.start_ns > expired_ns) continue;
    // What cut the deposed leader off from that election: its pause, crash or cut then.
    std::vector<const FaultBand*> deposing;
    for (const FaultBand* f : facts.faults_hitting(leader, t.start_ns, t.start_ns))
      if (f->kind == "pause" || f->kind == "crash" || f->kind == "partition") deposing.push_back(f);
    if (!deposing.empty()) cause["deposed_while"] = start_events(deposing);
    if (t.member == leader) {
      // Deposed and elected again: the revoke committed in its own newer term.
      story.say("By then " + leader + " had lost the lead and been elected again, in term " + std::to_string(t.term) +
                    " at " + format_seconds(t.start_ns) + "; its revoke committed in that term.",
                TimeSpan{t.start_ns, expired_ns});
      break;
    }
    story.say("By then " + leader + " no longer led: " + t.member + " had been elected in term " +
                  std::to_string(t.term) + " at " + format_seconds(t.start_ns) +
                  (deposing.empty() ? std::string() : ", while " + fault_clauses(deposing, 3)) + ". " + leader +
                  "'s revoke went to the new leader and committed, as etcd 3.4.23 lets a " +
                  "deposed leader's lessor do (etcd issue 15247).",
              TimeSpan{t.start_ns, expired_ns});
    cause["deposed_leader"] = true;
    break;
  }
  // Had the client itself given the lease up (a revoke it sent)?
  for (const CallRecord* c : facts.calls_of(client, 0, expired_ns, "lease_revoke")) {
    if (c->lease != lease.lease) continue;
    const HistoryEvent* op = facts.event(c->invoke);
    std::string s = client + " had itself sent a revoke of this lease at " + format_seconds(c->sent_ns) +
                    " (call " + std::to_string(c->call) + ", " +
                    (c->outcome.empty() ? std::string("unanswered") : c->outcome) +
                    (op != nullptr ? ", in its " + op->op + " started at " + format_seconds(op->true_ns) : std::string()) +
                    "): it held the lock on a lease it had given up.";
    // Why that operation left the key behind: how its calls failed, and the faults on them.
    const HistoryEvent* done = op != nullptr ? facts.completion_of(op->index) : nullptr;
    if (op != nullptr && (done == nullptr || done->kind != EventKind::ok)) {
      const std::int64_t done_ns = done != nullptr ? done->true_ns : facts.end_ns();
      std::vector<std::string> failed;
      for (const CallRecord* call : facts.calls_of(client, op->true_ns, done_ns))
        if (call->invoke == op->index && call->outcome != "ok") {
          // Where the history says a member dropped it, that is how it was lost.
          const std::string dropped = dropped_words(facts, *call, "it");
          failed.push_back("its " + call->request + " (call " + std::to_string(call->call) + ", to " +
                           call->member + ") " + call_ending(*call, done_ns) + (dropped.empty() ? "" : ": " + dropped));
        }
      const auto hit = faults_on_operation(facts, client, op->index, op->true_ns, done_ns);
      if (!failed.empty()) {
        // An operation that ended `info` may have taken effect: indeterminate, not failed.
        const char* ended = done == nullptr                   ? " had not ended: "
                            : done->kind == EventKind::info ? " had ended indeterminate: "
                                                            : " had failed: ";
        s += " That " + op->op + ended + join_words(failed);
        if (!hit.empty()) s += "; meanwhile " + fault_clauses(hit, 4);
        // Leaderless time explains a failed call sent while no member led (a follower with no
        // leader drops the proposal) or one that ended then (none to answer it).
        std::vector<std::string> gaps;
        for (const auto& [a, b] : facts.leaderless(op->true_ns, done_ns, 100'000'000)) {
          bool met_it = false;
          for (const CallRecord* call : facts.calls_of(client, op->true_ns, done_ns))
            met_it = met_it || (call->invoke == op->index && call->outcome != "ok" &&
                                ((call->end_ns >= a && call->end_ns <= b) || (call->sent_ns >= a && call->sent_ns <= b)));
          if (met_it) gaps.push_back("from " + format_seconds(a) + " to " + format_seconds(b));
        }
        if (!gaps.empty()) s += "; no member led the cluster " + join_words(gaps);
        s += ".";
        nlohmann::json starts = nlohmann::json::array();
        for (const FaultBand* f : hit) starts.push_back(f->start_event);
        cause["release_failed_by"] = starts;
      }
    }
    story.say(s, TimeSpan{c->sent_ns, expired_ns});
    cause["holder_revoked"] = true;
    break;
  }

  // The client's keep-alives for this lease in the window (and one sent before it still in
  // flight then), and how they ended.
  const auto keep_alives = facts.calls_of(client, 0, to_ns, "lease_keep_alive");
  // The keep-alive that made the last renewal: the latest sent before it that was answered
  // after it (the answer may be slow: the lessor renews on arrival).
  const CallRecord* renewing = nullptr;
  if (x.renewed_by == "keep-alive")
    for (const CallRecord* c : keep_alives)
      if (c->lease == lease.lease && c->outcome == "ok" && c->sent_ns <= from_ns && c->end_ns != kStillOpen &&
          c->end_ns >= from_ns && c->end_ns <= to_ns && (renewing == nullptr || c->sent_ns > renewing->sent_ns))
        renewing = c;
  std::vector<const CallRecord*> mine;
  std::set<std::string> members = {leader};
  for (const CallRecord* c : keep_alives) {
    // One sent before the window counts when it was still unanswered at its start, unless it
    // is the keep-alive that renewed the lease then.
    if (c->lease != lease.lease || c->end_ns <= from_ns || c == renewing) continue;
    // Nor when a keep-alive sent after it, before the window, was answered: the lease was
    // renewed after it was sent, so whatever held it stopped no renewal that mattered.
    if (c->sent_ns < from_ns &&
        std::any_of(keep_alives.begin(), keep_alives.end(), [&](const CallRecord* later) {
          return later->lease == lease.lease && later->outcome == "ok" && later->sent_ns > c->sent_ns &&
                 later->sent_ns <= from_ns;
        }))
      continue;
    mine.push_back(c);
  }
  // Those that left the client (a lease-drop keeps the others in it): only they reached a
  // member, and so only their members' faults and leaders count.
  std::vector<const CallRecord*> sent_out;
  for (const CallRecord* c : mine)
    if (!dropped_at_client(facts, client, c)) sent_out.push_back(c);
  for (const CallRecord* c : sent_out)
    if (!c->member.empty()) members.insert(c->member);
  // The members its other calls in flight went to (a crashed one breaks them), and those that
  // led meanwhile: a keep-alive reaches the lessor through them.
  for (const CallRecord* c : facts.calls_of(client, 0, to_ns))
    if (c->end_ns > from_ns && !c->member.empty() &&
        !(c->request == "lease_keep_alive" && dropped_at_client(facts, client, c)))
      members.insert(c->member);
  // From the first keep-alive still out at the window's start: a follower passed it on to
  // the leader of that moment.
  const std::int64_t first_out_ns = mine.empty() ? from_ns : std::min(from_ns, mine.front()->sent_ns);
  for (const auto& t : facts.truth().leaders)
    if (t.start_ns <= to_ns && t.end_ns >= first_out_ns) members.insert(t.member);
  // And the leader each keep-alive's member knew when it was sent, which it passed the
  // keep-alive on to: a leader that had crashed a moment before was still that member's leader
  // until it heard of another (its term in the truth ends with the crash).
  for (const CallRecord* c : sent_out) {
    const LeaderView* known = nullptr;
    for (const LeaderView& v : facts.leader_views()) {
      if (v.at_ns > c->sent_ns) break;
      if (v.member == c->member) known = &v;
    }
    if (known != nullptr && !known->leader.empty()) members.insert(known->leader);
  }
  std::size_t answered = 0;
  for (const CallRecord* c : mine)
    if (c->outcome == "ok" && c->end_ns <= to_ns) ++answered;
  std::size_t before = 0;  // sent before the window, still unanswered at its start
  for (const CallRecord* c : mine) before += c->sent_ns < from_ns ? 1 : 0;
  // Keep-alives for it sent after the window (after the lessor found it expired): "after X"
  // would count them too, so the window's end bounds the claim.
  const auto later_calls = facts.calls_of(client, to_ns + 1, std::numeric_limits<std::int64_t>::max(),
                                          "lease_keep_alive");
  const bool sent_more_later = std::any_of(later_calls.begin(), later_calls.end(),
                                           [&](const CallRecord* c) { return c->lease == lease.lease; });
  const std::string until = sent_more_later ? " to " + format_seconds(to_ns) : "";
  std::string since = sent_more_later ? " between " + format_seconds(from_ns) + " and " + format_seconds(to_ns)
                                      : " after " + format_seconds(from_ns);
  if (before > 0 && before < mine.size()) {
    since = " from " + format_seconds(mine.front()->sent_ns) + until + " (" +
            (before == 1 ? std::string("one") : std::to_string(before)) + " still unanswered at " +
            format_seconds(from_ns) + ")";
  }
  if (!mine.empty() && before == mine.size()) {
    // All sent before the window and still out at its start: none followed them.
    std::string k = mine.size() == 1
                        ? client + "'s last keep-alive for it was sent at " + format_seconds(mine.front()->sent_ns)
                        : client + "'s last " + std::to_string(mine.size()) + " keep-alives for it were sent from " +
                              format_seconds(mine.front()->sent_ns);
    k += ", before " + format_seconds(from_ns) + ", and it sent none" +
         (sent_more_later ? " between then and " + format_seconds(to_ns) : std::string(" after"));
    if (answered == 0) {
      k += mine.size() == 1 ? "; it was not answered in time: " : "; none was answered in time: ";
      k += mine.size() == 1 ? single_ending(*mine.front(), to_ns) : endings(mine, to_ns);
    } else {
      k += "; " + std::to_string(answered) + " of them answered before " + format_seconds(to_ns) +
           ", none renewing it at " + leader;
    }
    story.say(k + ".", TimeSpan{mine.front()->sent_ns, to_ns});
    cause["keep_alives"] = {{"sent", mine.size()}, {"answered", answered}};
  } else if (mine.empty()) {
    // Bounded: a keep-alive sent after the lessor found the lease expired renews nothing.
    story.say(client + " sent no keep-alive for it between " + format_seconds(from_ns) + " and " +
              format_seconds(to_ns) + ".");
    cause["keep_alives"] = {{"sent", 0}, {"answered", 0}};
    // No keep-alive of any lease, ever, and the lease still as its grant left it: whether that
    // is the lock's design or a fault's doing, the caller decides from the faults.
    if (keep_alives.empty() && x.renewed_by == "grant") cause["no_keep_alive_in_run"] = true;
    // Nobody renewed anything: every lease ran its TTL from its grant, faults or not.
    if (!facts.calls().empty() &&
        std::none_of(facts.calls().begin(), facts.calls().end(),
                     [](const CallRecord& c) { return c.request == "lease_keep_alive"; })) {
      std::string none = "No client sent a keep-alive in this run: no lease was renewed by its client";
      if (x.renewed_by == "grant" && x.renewed_ns >= 0 && lease.ttl_seconds > 0)
        none += "; this one ran its TTL of " + std::to_string(lease.ttl_seconds) + " s from its grant at " +
                format_seconds(x.renewed_ns) + ", to " +
                format_seconds(monotonic_deadline_ns(facts.faults(), leader, x.renewed_ns,
                                                     lease.ttl_seconds * 1'000'000'000)) +
                " as " + leader + "'s lessor counted it";
      story.say(none + ".");
      cause["no_keep_alive_by_anyone"] = true;
    }
  } else {
    std::string k = client + " sent " + count_words(mine.size(), "keep-alive", "keep-alives") +
                    " for it" + since;
    if (answered == 0) {
      k += "; none was answered in time: " + endings(mine, to_ns);
    } else {
      k += "; " + std::to_string(answered) + " of them answered before " + format_seconds(to_ns) +
           ", none renewing it at " + leader;
    }
    story.say(k + ".", TimeSpan{mine.front()->sent_ns, to_ns});
    cause["keep_alives"] = {{"sent", mine.size()}, {"answered", answered}};
  }

  const std::int64_t ttl_ns = (lease.ttl_seconds > 0 ? lease.ttl_seconds : 1) * 1'000'000'000;
  // Keep-alives stop with the operation that took the lease: one the client gave up (an
  // acquire that lost its member) leaves its lease to expire, and the fault behind that is
  // earlier than the window below looks.
  std::vector<const FaultBand*> gave_up_faults;
  if (const CallRecord* grant = grant_call(facts, lease.lease, client); grant != nullptr) {
    const HistoryEvent* op = facts.event(grant->invoke);
    const HistoryEvent* done = op != nullptr ? facts.completion_of(op->index) : nullptr;
    // Given up only if the lease was healthy when the operation ended (every keep-alive of
    // the last TTL before then answered within a keep-alive interval, a third of the TTL, or
    // sent so recently that it still could be) and never used after it (no keep-alive, no key
    // put under it): a session whose keep-alives went unanswered gives its lease up by itself,
    // which is said below.
    bool kept_until_end = true, used_after = false;  // true also when none was due yet
    if (done != nullptr) {
      const std::int64_t third_ns = ttl_ns / 3;
      for (const CallRecord* c : keep_alives) {
        if (c->lease != lease.lease) continue;
        if (c->sent_ns > done->true_ns) {
          used_after = true;
        } else if (c->sent_ns >= done->true_ns - ttl_ns) {
          const bool prompt = c->outcome == "ok" && c->end_ns - c->sent_ns <= third_ns;
          const bool still_due = c->sent_ns > done->true_ns - third_ns && c->end_ns > done->true_ns;
          if (!prompt && !still_due) kept_until_end = false;
        }
      }
      for (const auto& e : facts.history().events)
        if (e.kind == EventKind::truth && e.op == "key-put" && e.true_ns > done->true_ns &&
            int_of(e.args, "lease") == lease.lease)
          used_after = true;
    }
    if (done != nullptr && done->kind != EventKind::ok && done->true_ns <= to_ns && kept_until_end &&
        !used_after) {
      gave_up_faults = faults_on_operation(facts, client, op->index, std::min(from_ns, done->true_ns),
                                           done->true_ns);
      story.say(client + " had given up the " + op->op + " that took this lease (started at " +
                    format_seconds(op->true_ns) + ") at " + format_seconds(done->true_ns) + " (" +
                    failure_words(*done) + ") and kept the lease alive no more" +
                    (gave_up_faults.empty() ? std::string() : ": " + fault_clauses(gave_up_faults, 4)) + ".",
                TimeSpan{done->true_ns, to_ns});
      cause["gave_up"] = {{"operation", op->op}, {"at_ns", done->true_ns}};
    }
  }

  // Keep-alives that had stopped before the window, after a run of unanswered ones: the
  // client gives its lease up once a whole TTL passes with no answer (etcd's client, and
  // lockstep's sessions). Why they went unanswered is in that run, not in the window.
  std::vector<const FaultBand*> stopped_faults;
  if (cause.find("gave_up") == cause.end() && mine.empty()) {
    std::vector<const CallRecord*> all;
    for (const CallRecord* c : keep_alives)
      if (c->lease == lease.lease) all.push_back(c);
    if (!all.empty() && all.back()->sent_ns < from_ns) {
      const CallRecord* last_sent = all.back();
      std::size_t first = all.size();  // the run of keep-alives unanswered when the last was sent
      while (first > 0 && (all[first - 1]->outcome != "ok" || all[first - 1]->end_ns > last_sent->sent_ns))
        --first;
      // The rule explains the stop only if a whole TTL without an answer had passed by the
      // session's next check (as far after the last send as the sends before it were apart);
      // a session closed sooner (by a release) stopped for that, and is not said to give up.
      // The TTL runs from the send of the last keep-alive answered (lockstep's sessions count
      // from there: the lessor renewed no earlier), or from the grant.
      std::int64_t last_answer_ns = lease.granted_ns >= 0 ? lease.granted_ns : lease.first_seen_ns;
      if (first > 0 && all[first - 1]->outcome == "ok")
        last_answer_ns = std::max(last_answer_ns, all[first - 1]->sent_ns);
      const std::int64_t spacing_ns =
          all.size() >= 2 ? last_sent->sent_ns - all[all.size() - 2]->sent_ns : ttl_ns / 3;
      const bool ttl_passed = last_sent->sent_ns + spacing_ns + 50'000'000 >= last_answer_ns + ttl_ns;
      if (all.size() - first >= 2 && ttl_passed) {
        const std::int64_t run_from = all[first]->sent_ns, run_to = last_sent->sent_ns;
        std::string k = client + "'s keep-alives for it had stopped: the last was sent at " + format_seconds(run_to) +
                        " (call " + std::to_string(last_sent->call) + "), and none of the " +
                        std::to_string(all.size() - first) + " it sent from " + format_seconds(run_from) +
                        " had been answered by then; a session gives its lease up once a whole TTL (" +
                        std::to_string(lease.ttl_seconds) + " s) has passed since it sent the last keep-alive " +
                        "that was answered";
        if (first > 0 && all[first - 1]->outcome == "ok" && all[first - 1]->sent_ns == last_answer_ns)
          k += " (call " + std::to_string(all[first - 1]->call) + ", sent at " +
               format_seconds(all[first - 1]->sent_ns) + ", answered at " + format_seconds(all[first - 1]->end_ns) + ")";
        else
          k += ", or since the lease's grant at " + format_seconds(last_answer_ns) + " when none was";
        // It checks when a keep-alive is due: the next after the last it sent.
        k += ", and it gave this one up at its next check, about " + format_seconds(run_to + spacing_ns);
        const std::set<std::string> everyone = member_names(facts, leader);
        const std::vector<const CallRecord*> run(all.begin() + static_cast<std::ptrdiff_t>(first), all.end());
        for (const auto& f : facts.faults()) {
          const std::int64_t end = f.open_end ? facts.end_ns() : f.end_ns;
          if (f.start_ns <= run_to && end >= run_from && can_stop_renewal(f, client, everyone) &&
              on_keep_alive_way(facts, f, client, run, run_to))
            stopped_faults.push_back(&f);
        }
        if (!stopped_faults.empty()) k += "; meanwhile " + fault_clauses(stopped_faults, 4);
        if (const std::string gaps = leaderless_words(facts, run_from, run_to, 100'000'000); !gaps.empty())
          k += "; " + gaps;
        story.say(k + ".", TimeSpan{run_from, run_to});
        cause["keep_alives_stopped_ns"] = run_to;
      }
    }
  }

  // The faults in that window that could have stopped the renewals. A keep-alive is first due
  // a third of the TTL after a renewal (etcd's client and lockstep's sessions), or when the
  // client first sent one: a fault over before then stopped none. A clock fault counts over the
  // whole window: the client's clock times its keep-alives, the leader's the TTL.
  std::int64_t due_ns = from_ns;
  if (lease.ttl_seconds > 0) due_ns = from_ns + lease.ttl_seconds * 1'000'000'000 / 3;
  if (!mine.empty()) due_ns = std::min(due_ns, mine.front()->sent_ns);
  std::vector<const FaultBand*> faults, off_way;
  for (const auto& f : facts.faults()) {
    const std::int64_t end = f.open_end ? facts.end_ns() : f.end_ns;
    if (f.start_ns > to_ns || end < std::min(from_ns, due_ns)) continue;
    if (f.kind == "clock") {
      if (f.hits(client) || f.hits(leader)) faults.push_back(&f);
      continue;
    }
    if (end < due_ns) continue;
    if (!can_stop_renewal(f, client, members)) continue;
    // A link fault on no keep-alive's way (between other members, say) held none of them.
    if (!on_keep_alive_way(facts, f, client, mine, to_ns)) {
      off_way.push_back(&f);
      continue;
    }
    // A link fault during which this client's keep-alives were answered in time (before the
    // lessor found the lease expired) stopped nothing. One answered later may have been held
    // by the fault: a cut link holds its messages until it heals, as TCP does.
    // Only a fault that acts on every message alike (a cut, a delay) is cleared so, and only
    // by a keep-alive sent in the window: loss lets some messages through and not others.
    bool answered_through = false;
    if (f.kind == "partition" || f.kind == "delay")
      for (const CallRecord* c : keep_alives)
        if (c->lease == lease.lease && c->outcome == "ok" && c->end_ns <= to_ns &&
            c->sent_ns >= std::max(f.start_ns, std::min(from_ns, due_ns)) && c->sent_ns <= end)
          answered_through = true;
    if (!answered_through) faults.push_back(&f);
  }
  // A revoke that took long to commit after the lessor found the lease expired.
  for (const auto& f : facts.faults()) {
    const std::int64_t end = f.open_end ? facts.end_ns() : f.end_ns;
    if (f.kind == "slow-revoke" && f.start_ns <= expired_ns && end >= to_ns &&
        expired_ns - to_ns >= 100'000'000)
      faults.push_back(&f);
  }
  if (!faults.empty()) {
    // The members its keep-alives went to, when a fault named hit one of them: why that
    // member's pause or crash stopped this client's renewals.
    std::vector<std::string> called;
    for (const CallRecord* c : sent_out)
      if (c->sent_ns <= to_ns && !c->member.empty() &&
          std::find(called.begin(), called.end(), c->member) == called.end() &&
          std::any_of(faults.begin(), faults.end(), [&](const FaultBand* f) {
            return (f->kind == "pause" || f->kind == "crash") && f->hits(c->member);
          }))
        called.push_back(c->member);
    // Or a member that passed them on to a leader such a fault hit: the leader it knew when
    // the keep-alive came (recorded leader views).
    std::vector<std::string> passed_on;
    for (const CallRecord* c : sent_out) {
      if (c->sent_ns > to_ns || c->member.empty()) continue;
      const LeaderView* known = nullptr;
      for (const LeaderView& v : facts.leader_views()) {
        if (v.at_ns > c->sent_ns) break;
        if (v.member == c->member) known = &v;
      }
      if (known == nullptr || known->leader.empty() || known->leader == c->member) continue;
      const bool hit = std::any_of(faults.begin(), faults.end(), [&](const FaultBand* f) {
        return (f->kind == "pause" || f->kind == "crash") && f->hits(known->leader) && !f->hits(c->member) &&
               f->start_ns <= c->sent_ns && (f->open_end || f->end_ns >= c->sent_ns);
      });
      const std::string words = c->member + ", which knew " + known->leader + " as the leader";
      if (hit && std::find(passed_on.begin(), passed_on.end(), words) == passed_on.end()) passed_on.push_back(words);
    }
    for (const std::string& p : passed_on) called.push_back(p);
    story.say("In that time " + fault_clauses(faults, 6) +
                  (called.empty() ? std::string()
                                  : "; " + client + "'s keep-alives went to " + join_words(called)) +
                  ".",
              TimeSpan{faults.front()->start_ns, to_ns});
  } else if (!off_way.empty()) {
    // Faults were active, but on links no keep-alive of it took: not denied, not blamed.
    const std::string span = "between " + format_seconds(due_ns) + " and " + format_seconds(to_ns);
    story.say((mine.empty() ? "No keep-alive of it was on its way " + span + " to be held by the faults then active: "
                            : "The faults active " + span + " were on links none of " + client +
                                  "'s keep-alives for it took (to the members it called and on to the leader): ") +
                  fault_clauses(off_way, 4) + ".",
              TimeSpan{off_way.front()->start_ns, to_ns});
  } else {
    // Say what did not happen only as far as it is true: for the client, over the lease's
    // life before the expiry (a fault on it then is named, not denied; one over before the
    // lease was granted did nothing to it), or the whole run when the grant is not recorded;
    // for the members it called and those that led, over the window.
    const bool grant_known = lease.granted_ns >= 0;
    const auto on_client = facts.faults_hitting(client, grant_known ? lease.granted_ns : 0, to_ns);
    const std::string span = grant_known ? "the lease's grant at " + format_seconds(lease.granted_ns) + " and " +
                                               format_seconds(to_ns)
                                         : format_seconds(to_ns);
    std::string s = on_client.empty()
                        ? "No fault hit " + client + (grant_known ? " between " : " before ") + span
                        : (grant_known ? "Between " : "Before ") + span + ", " + fault_clauses(on_client);
    s += "; none of the faults on the members it called or that led, or on the links between them and " + client +
         ", was active between " + format_seconds(due_ns) + " and " + format_seconds(to_ns);
    story.say(s + ".");
  }
  if (const std::string way = keep_alive_way_words(facts, client, mine, leader, to_ns); !way.empty())
    story.say(way, TimeSpan{mine.front()->sent_ns, to_ns});
  for (const auto* extra : {&gave_up_faults, &stopped_faults})
    for (const FaultBand* f : *extra)
      if (std::find(faults.begin(), faults.end(), f) == faults.end()) faults.push_back(f);
  cause["faults"] = start_events(faults);
  return cause;
}

nlohmann::json explain_key_loss(const RunFacts& facts, const KeyLifetime& key,
                                const std::string& holder, Story& story) {
  const std::string rev =
      key.delete_revision ? " (revision " + std::to_string(key.delete_revision) + ")" : "";
  const std::string subject = holder + "'s lock key " + key.key + " (created at " +
                              format_seconds(key.start_ns) + ", revision " +
                              std::to_string(key.create_revision) + ")";
  const ChangeCause& by = key.deleted_by;
  const LeaseLifetime* lease = key.lease != 0 ? facts.truth().find_lease(key.lease) : nullptr;
  if (by.kind == "lease-expiry" || (by.kind.empty() && key.deleted_by_lease_expiry)) {
    story.say(subject + " was deleted at " + format_seconds(key.end_ns) + rev +
                  " with its lease.",
              TimeSpan{key.end_ns, key.end_ns});
    if (lease != nullptr && lease->expired_ns) {
      nlohmann::json cause = explain_lease_expiry(facts, *lease, holder, story);
      cause["key"] = key.key;
      return cause;
    }
    return {{"class", "lease-expired"}, {"process", holder}, {"key", key.key}, {"lease", key.lease}};
  }
  if (by.kind == "request") {
    // The same call applied before: a duplicate of the request (the duplicate fault, or a
    // retry of the same call) applied again, after its first copy did what it was sent for.
    const HistoryEvent* first_copy = nullptr;
    for (const auto& e : facts.history().events) {
      if (e.index >= key.delete_event) break;
      // Changes of the store only: a request's way (passed on, appended) or its drop changed nothing.
      if (e.kind != EventKind::truth || (e.op != "key-put" && e.op != "key-delete" && e.op != "lease-granted" &&
                                         e.op != "lease-revoked"))
        continue;
      const ChangeCause c = cause_of(e);
      if (c.kind == "request" && c.client == by.client && c.call == by.call &&
          c.lock_service == by.lock_service && c.lock_service_call == by.lock_service_call &&
          e.true_ns < key.end_ns) {
        first_copy = &e;
        break;
      }
    }
    std::string s = subject + " was deleted at " + format_seconds(key.end_ns) + rev + " by " +
                    request_words(by);
    if (first_copy != nullptr) {
      s += ", applied a second time: its first copy had been applied at " +
           format_seconds(first_copy->true_ns) + " (revision " +
           std::to_string(first_copy->args.value("revision", std::int64_t{0})) + ")";
      // A duplicate fault on the request's way (the sender's link to its member, or the
      // members' links it was passed on by) before its first copy was applied; one on the
      // sender's other links, to the resource say, copied nothing of it.
      const std::set<std::string> members = member_names(facts, by.member);
      std::vector<const FaultBand*> dup;
      for (const auto& f : facts.faults())
        if (f.kind == "duplicate" && f.start_ns <= first_copy->true_ns && (f.open_end || f.end_ns >= by.sent_ns) &&
            on_request_way(f, by.client, by.member, members))
          dup.push_back(&f);
      // What let time pass between the two copies' applying (a copy right behind the first
      // deletes nothing new): reordering or delay on the request's way.
      for (const auto& f : facts.faults()) {
        const std::int64_t end = f.open_end ? facts.end_ns() : f.end_ns;
        if ((f.kind == "reorder" || f.kind == "delay") && f.start_ns <= key.end_ns && end >= by.sent_ns &&
            on_request_way(f, by.client, by.member, members))
          dup.push_back(&f);
      }
      s += dup.empty() ? "" : ", and " + fault_clauses(dup) + " when it was sent";
      story.say(s + ".", TimeSpan{by.sent_ns, key.end_ns});
      nlohmann::json cause = {{"class", "key-deleted-by-request"}, {"process", holder},
                              {"key", key.key}, {"request", request_json(by)},
                              {"duplicate", true}, {"faults", start_events(dup)}};
      return cause;
    }
    // The operation the request was sent in (the release of an earlier hold, the clean-up of
    // a failed acquire): which, and what else that operation failed to do (a revoke refused
    // leaves the lease and its other keys behind).
    const CallRecord* own_call = by.client.empty() ? nullptr : facts.find_call(by.client, by.call);
    const HistoryEvent* own_op = own_call != nullptr ? facts.event(own_call->invoke) : nullptr;
    if (own_op != nullptr)
      s += " during " + (by.client == holder ? std::string("its own ") : by.client + "'s ") + own_op->op +
           " (started at " + format_seconds(own_op->true_ns) + ")";
    if (by.abandoned_ns)
      s += ", on which " + by.client + " had given up at " + format_seconds(*by.abandoned_ns) +
           " (no answer by its deadline)";
    if (!by.lock_service.empty() && by.for_request == "lock" && by.abandoned_ns)
      s += ": the clean-up of that lock call (the server's Mutex deletes its key when the call's "
           "context ends), and every lock call of one lease uses the same key name";
    if (by.client == holder && by.sent_ns >= 0 && by.sent_ns < key.start_ns)
      s += ": a request older than the key itself, left over from before " + holder +
           " created it, applied late";
    story.say(s + ".", TimeSpan{by.sent_ns >= 0 ? by.sent_ns : key.end_ns, key.end_ns});
    // Why the lock call went unanswered until its client gave up: what held it.
    if (const CallRecord* lock_call = own_call;
        lock_call != nullptr && !by.lock_service.empty() && by.for_request == "lock" && by.abandoned_ns &&
        lock_call->end_ns != kStillOpen && lock_call->outcome == "deadline")
    {
      // The lock key it waited behind at its deadline: the newest of the same prefix older
      // than the key its lock service created for this call (a later call's key of the same
      // name may be the one the clean-up deleted), and what held the call.
      std::int64_t own_revision = 0;
      for (const auto& mine : facts.truth().keys)
        if (!mine.created_by.lock_service.empty() && mine.created_by.client == by.client &&
            mine.created_by.call == lock_call->call)
          own_revision = mine.create_revision;
      const KeyLifetime* ahead = nullptr;
      for (const KeyLifetime* other : lock_keys_ahead(facts, key.key, own_revision))
        if (other->start_ns <= lock_call->end_ns && other->end_ns > lock_call->end_ns &&
            (ahead == nullptr || other->create_revision > ahead->create_revision))
          ahead = other;
      std::vector<std::string> why;
      if (ahead != nullptr)
        why.push_back("it waited behind " + (key_made_for(*ahead).empty() ? std::string("the") : key_made_for(*ahead) + "'s") +
                      " key (revision " + std::to_string(ahead->create_revision) + "), which stood until " +
                      (ahead->end_ns == kStillOpen ? std::string("the end") : format_seconds(ahead->end_ns)));
      // Who held the lock in that wait, and what stretched each hold (the key ahead's owner
      // may have been waiting itself).
      std::string holds;
      if (ahead != nullptr) holds = holds_in_wait_words(facts, *ahead, by.client, lock_call->sent_ns, lock_call->end_ns);
      if (const std::string held = call_held_words(facts, *lock_call); !held.empty())
        why.push_back((ahead != nullptr ? "meanwhile " : "") + held);
      if (!why.empty())
        story.say(by.client + "'s lock call " + std::to_string(lock_call->call) + " (sent to " + lock_call->member +
                      " at " + format_seconds(lock_call->sent_ns) + ") had no answer by its deadline at " +
                      format_seconds(lock_call->end_ns) + ": " + why.front() + holds +
                      (why.size() > 1 ? "; " + why.back() : std::string()) + ".",
                  TimeSpan{lock_call->sent_ns, lock_call->end_ns});
    }
    nlohmann::json cause = {{"class", "key-deleted-by-request"}, {"process", holder},
                            {"key", key.key}, {"request", request_json(by)}};
    if (own_op != nullptr) {
      cause["in_operation"] = own_op->op;
      for (const CallRecord* c : facts.calls_of(by.client, own_call->sent_ns, facts.end_ns())) {
        if (c == own_call || c->invoke != own_call->invoke || c->outcome == "ok" || c->outcome.empty())
          continue;
        std::string f = "That " + own_op->op + "'s " + c->request + " (call " + std::to_string(c->call) +
                        ") failed at " + format_seconds(c->end_ns) + " (" +
                        (c->error.empty() ? c->outcome : c->error) + ")";
        // The faults it met: on the member it called, or the cluster's (a leader change drops
        // proposals while it hands over), from a second before its sending; "raft proposal
        // dropped" is a hand-over's doing alone.
        const bool dropped = c->error.find("proposal dropped") != std::string::npos;
        std::vector<const FaultBand*> met;
        for (const FaultBand* b : facts.faults_hitting(c->member, c->sent_ns - 1'000'000'000, c->end_ns, true))
          if (!dropped || b->kind == "leader-change") met.push_back(b);
        if (!met.empty()) f += ", after " + fault_clauses(met, 3);
        if (c->request == "lease_revoke" && c->lease != 0) {
          const std::vector<std::string> left = keys_of_lease_at(facts, c->lease, c->end_ns);
          f += ": lease " + lease_hex(c->lease) + (left.empty() ? std::string()
                                                                : " and its key" + std::string(left.size() > 1 ? "s " : " ") +
                                                                      join_words(left)) +
               " outlived the " + own_op->op;
        }
        story.say(f + ".", TimeSpan{c->sent_ns, c->end_ns});
        break;
      }
    }
    std::vector<const FaultBand*> held;
    if (const std::string h = request_delay_words(facts, by, key.end_ns, held); !h.empty())
      story.say(h, TimeSpan{by.sent_ns, key.end_ns});
    cause["faults"] = start_events(held);
    return cause;
  }
  story.say(subject + " was deleted at " + format_seconds(key.end_ns) + rev +
                "; the history does not record by what.",
            TimeSpan{key.end_ns, key.end_ns});
  return {{"class", "key-deleted"}, {"process", holder}, {"key", key.key}};
}

}  // namespace lockstep::reports
