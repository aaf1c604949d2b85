#include "lockstep/reports/explain.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "lockstep/kv/tcp_retransmission.h"
#include "lockstep/reports/causes.h"
#include "lockstep/reports/elections.h"
#include "lockstep/reports/explain_parts.h"
#include "lockstep/reports/report_text.h"
#include "lockstep/reports/violation_focus.h"

namespace lockstep::reports {


std::int64_t int_of(const nlohmann::json& j, const char* field, std::int64_t fallback) {
  if (!j.is_object() || !j.contains(field)) return fallback;
  const auto& v = j[field];
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_unsigned()) return static_cast<std::int64_t>(v.get<std::uint64_t>());
  return fallback;
}

std::string text_of(const nlohmann::json& j, const char* field, const std::string& fallback) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(field);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

bool flag_of(const nlohmann::json& j, const char* field) {
  if (!j.is_object()) return false;
  const auto it = j.find(field);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

bool is_member(const std::string& process) { return process.rfind("member-", 0) == 0; }

std::string member_of(const nlohmann::json& j, const char* field) {
  if (!j.is_object() || !j.contains(field)) return "";
  const auto& v = j[field];
  if (!v.is_number_integer() && !v.is_number_unsigned()) return "";
  return "member-" + std::to_string(int_of(j, field));
}

std::string leaderless_words(const RunFacts& facts, std::int64_t from_ns, std::int64_t to_ns, std::int64_t min_ns) {
  return leaderless_span_words(facts, facts.leaderless(from_ns, to_ns, min_ns));
}

std::string deletion_words(const KeyLifetime& key) {
  if (key.deleted_by_lease_expiry || key.deleted_by.kind == "lease-expiry") return " with its lease";
  if (key.deleted_by.kind == "request") return " by " + request_words(key.deleted_by);
  return "";
}

std::vector<const FaultBand*> faults_on_way(const RunFacts& facts, const HistoryEvent& op, std::int64_t end_ns) {
  // A clock fault of the client moves its timeouts: it can stretch a call that timed out (or
  // is still open), never one that was answered or failed otherwise.
  const HistoryEvent* done = facts.completion_of(op.index);
  const bool timed_out = done == nullptr || ended_by_timeout(*done);
  std::set<std::string> members;
  for (const CallRecord& c : facts.calls())
    if (c.invoke == op.index && !c.member.empty()) members.insert(c.member);
  const bool to_resource = members.empty() && (op.op == "read" || op.op == "write");
  // A call the resource served: what held it on the way there acted before it was served, what
  // held its answer (or its client) after.
  const HistoryEvent* served = to_resource ? facts.resource_effect(op.index) : nullptr;
  const std::int64_t served_ns = served != nullptr ? served->true_ns : end_ns;
  const auto active = [&](const FaultBand& f, std::int64_t from_ns, std::int64_t to_ns) {
    return f.start_ns <= to_ns && (f.open_end || f.end_ns >= from_ns);
  };
  std::vector<const FaultBand*> out;
  for (const FaultBand& band : facts.faults()) {
    const FaultBand* f = &band;
    if (!active(*f, op.true_ns, end_ns)) continue;
    const bool link = f->args.contains("from") || f->args.contains("to");
    bool acts = false;
    if (link) {
      // A copy more holds nothing up, and a reorder only by its few milliseconds.
      if (f->kind == "duplicate" || f->kind == "reorder") continue;
      acts = (to_resource && ((f->on_link(op.process, "resource") && active(*f, op.true_ns, served_ns)) ||
                              (f->on_link("resource", op.process) && active(*f, served_ns, end_ns)))) ||
             std::any_of(members.begin(), members.end(),
                         [&](const std::string& m) { return f->on_link(op.process, m) || f->on_link(m, op.process); });
    } else if (f->kind == "pause" || f->kind == "crash" || f->kind == "clock") {
      acts = (f->hits(op.process) && (f->kind != "clock" || timed_out)) ||
             (f->kind != "clock" &&
              ((to_resource && f->hits("resource") && active(*f, op.true_ns, served_ns)) ||
               std::any_of(members.begin(), members.end(), [&](const std::string& m) { return f->hits(m); })));
    } else if (f->kind == "leader-change") {
      acts = !members.empty();
    }
    if (acts) out.push_back(f);
  }
  return out;
}

bool ended_by_timeout(const HistoryEvent& done) {
  if (done.kind == EventKind::ok) return false;
  const std::string error = text_of(done.result, "error");
  return error.find("timeout") != std::string::npos || error.find("deadline") != std::string::npos;
}

std::string key_made_for(const KeyLifetime& key) {
  if (!key.owner.empty()) return key.owner;
  return key.created_by.kind == "request" ? key.created_by.client : std::string();
}

std::string key_owner_at(const RunFacts& facts, const KeyLifetime& key, std::int64_t at_ns,
                         std::int64_t& revision) {
  std::string owner = key_made_for(key);
  revision = key.create_revision;
  for (const std::int64_t i : key.rewrites) {
    const HistoryEvent* put = facts.event(i);
    if (put == nullptr || put->true_ns > at_ns || !put->args.is_object()) continue;
    const ChangeCause by = cause_of(*put);
    std::string writer = owner;
    if (!by.client.empty()) {
      writer = by.client;
    } else {
      const std::string value = put->args.value("value", "");
      if (value.rfind("client-", 0) == 0) writer = value.substr(0, value.find('/'));
    }
    // The owner's own rewrite (a re-entry) keeps the key its own: named by the revision it
    // was acquired at, not the rewrite's.
    if (writer != owner) revision = put->args.value("revision", revision);
    owner = writer;
  }
  return owner;
}

std::string fault_clauses(const std::vector<const FaultBand*>& faults, std::size_t max_count) {
  // Back-to-back pauses of the same processes were one pause to them: said as one span.
  std::vector<FaultBand> joined;
  std::vector<int> joined_counts;
  // A pause of processes already paused for all of it (by a longer pause of the same ones in
  // the list) stopped nothing more: its end did not resume them. Not said apart.
  const auto within_listed_pause = [&faults](const FaultBand* f) {
    return f->kind == "pause" && std::any_of(faults.begin(), faults.end(), [f](const FaultBand* g) {
             return g != f && g->kind == "pause" && g->processes == f->processes && g->start_ns <= f->start_ns &&
                    (g->open_end || (!f->open_end && f->end_ns <= g->end_ns)) &&
                    (g->start_ns < f->start_ns || g->open_end != f->open_end || g->end_ns != f->end_ns);
           });
  };
  for (const FaultBand* f : faults) {
    if (within_listed_pause(f)) continue;
    if (!joined.empty()) {
      FaultBand& last = joined.back();
      if (f->kind == "pause" && last.kind == "pause" && last.processes == f->processes && !last.open_end &&
          last.end_ns == f->start_ns) {
        last.end_ns = f->end_ns;
        last.open_end = f->open_end;
        ++joined_counts.back();
        continue;
      }
    }
    joined.push_back(*f);
    joined_counts.push_back(1);
  }
  // Faults that read alike (the same kind, targets and span) are said once, with their count:
  // "A and A" would read as a slip.
  std::vector<std::string> parts;
  std::vector<int> counts;
  for (std::size_t i = 0; i < joined.size() && i < max_count; ++i) {
    std::string clause = describe_fault(joined[i]) + " " + fault_span(joined[i]);
    if (joined_counts[i] > 1) clause += " (" + std::to_string(joined_counts[i]) + " back-to-back pauses)";
    const auto same = std::find(parts.begin(), parts.end(), clause);
    if (same != parts.end()) {
      ++counts[static_cast<std::size_t>(same - parts.begin())];
      continue;
    }
    parts.push_back(clause);
    counts.push_back(1);
  }
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (counts[i] > 1) parts[i] += " (" + std::to_string(counts[i]) + " such faults)";
  if (joined.size() > max_count)
    parts.push_back(std::to_string(joined.size() - max_count) + " more faults");
  return join_words(parts);
}

std::string loss_retransmission_words(const FaultBand& loss, std::int64_t sent_ns, std::int64_t arrived_ns,
                                      std::int64_t slack_ns) {
  if (loss.kind != "loss" || loss.open_end || sent_ns < loss.start_ns || sent_ns >= loss.end_ns) return "";
  const TcpTransmission got_through = last_tcp_transmission(sent_ns, arrived_ns);
  // Only a retransmission well after the loss ended is TCP's doing alone: one during the
  // loss may have got through by chance, and one just after it is no news.
  if (got_through.after_rto_ns == 0 || got_through.at_ns < loss.end_ns ||
      got_through.at_ns - loss.end_ns < 300'000'000 || arrived_ns - got_through.at_ns > slack_ns)
    return "";
  return "; it got through at TCP's retransmission at " + format_seconds(got_through.at_ns) + ", " +
         format_duration(got_through.at_ns - loss.end_ns) +
         " after the loss ended: each lost transmission had doubled the retransmission timeout from 200 ms, to " +
         format_duration(got_through.after_rto_ns) + " by then";
}

std::string operation_phrase(const RunFacts& facts, const HistoryEvent& invoke) {
  const HistoryEvent* done = facts.completion_of(invoke.index);
  const std::string at = " at " + format_seconds(invoke.true_ns);
  const std::int64_t token = int_of(invoke.args, "token", -1);
  // Token 0 is a lock's "no token" (fencing tokens are revisions, from 1).
  const std::string with_token = token > 0 ? " (token " + std::to_string(token) + ")" : "";
  if (invoke.op == "write" || invoke.op == "read") {
    std::string s = invoke.op == "write"
                        ? "wrote " + (invoke.args.contains("value") ? invoke.args["value"].dump() + " " : "") +
                              "to the resource" + at + with_token
                        : "read the resource" + at + with_token;
    const HistoryEvent* effect = facts.resource_effect(invoke.index);
    if (effect == nullptr) {
      // A guarded write (data kept in etcd) fails at its guard: say so, not "never reached".
      if (done != nullptr && done->kind == EventKind::fail)
        return s + ", which failed (" +
               done->result.value("message", done->result.value("error", std::string("failed"))) +
               ")";
      return s + ", which never reached the resource";
    }
    if (effect->op == "key-put")
      return s + ", which etcd applied at " + format_seconds(effect->true_ns) + " (revision " +
             std::to_string(int_of(effect->args, "revision", 0)) + ")";
    if (effect->args.value("accepted", false))
      return s + ", which the resource accepted at " + format_seconds(effect->true_ns);
    return s + ", which the resource rejected" +
           (effect->args.contains("reason") ? " (" + effect->args.value("reason", "") + ")" : "");
  }
  std::string s = invoke.op == "release" ? "released the lock" + at
                  : invoke.op == "acquire" ? "asked for the lock again" + at
                                           : "invoked " + invoke.op + at;
  if (done == nullptr) return s + " (never answered)";
  if (done->kind == EventKind::fail || done->kind == EventKind::info)
    return s + " (" + (done->kind == EventKind::info ? "indeterminate: " : "failed: ") +
           done->result.value("error", std::string(event_kind_name(done->kind))) + ")";
  return s;
}

namespace {

// Any check: its summary, and what its witness points at.
Story explain_generic(const RunFacts& facts, const nlohmann::json& check,
                      const ViolationFocus& focus) {
  Story out;
  std::string summary = check.value("summary", "");
  if (!summary.empty()) {
    summary[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(summary[0])));
    if (summary.back() != '.') summary += '.';
    out.say(summary);
  }
  if (focus.located) {
    std::string s = "The witness points at " +
                    (focus.context_start_ns == focus.context_end_ns
                         ? format_seconds(focus.context_start_ns)
                         : "the span from " + format_seconds(focus.context_start_ns) + " to " +
                               format_seconds(focus.context_end_ns));
    if (!focus.processes.empty()) s += " and names " + join_words(focus.processes);
    out.say(s + ".", TimeSpan{focus.context_start_ns, focus.context_end_ns});
    for (const auto& p : focus.processes) {
      auto hit = facts.faults_hitting(p, focus.context_start_ns, focus.context_end_ns);
      if (!hit.empty()) out.say("In that span " + fault_clauses(hit) + ".");
    }
  }
  return out;
}

}  // namespace


std::vector<CheckExplanation> explain_checks(const History& history, const nlohmann::json& verdict) {
  std::vector<CheckExplanation> out;
  if (!verdict.is_object() || !verdict.contains("checks") || !verdict["checks"].is_array()) return out;
  const RunFacts facts(history);
  const auto foci = violation_foci(history, verdict);
  std::size_t focus_index = 0;
  for (const auto& check : verdict["checks"]) {
    if (!check.is_object() || check.value("status", "") != "violated") continue;
    CheckExplanation x;
    x.check = check.value("name", "");
    Story story;
    if (x.check == "mutex") story = explain_mutex(facts, check);
    if (x.check == "resource") story = explain_resource(facts, check);
    if (x.check == "liveness") story = explain_liveness(facts, check);
    if (story.empty()) story = explain_generic(facts, check, foci[focus_index]);
    ++focus_index;
    x.sentences = std::move(story.sentences);
    x.spans = std::move(story.spans);
    x.cause = std::move(story.cause);
    x.chain_length = story.chain_length > 0 ? story.chain_length : x.sentences.size();
    out.push_back(std::move(x));
  }
  return out;
}

std::string explain_violation(const History& history, const nlohmann::json& verdict) {
  std::string text;
  for (const auto& x : explain_checks(history, verdict)) {
    text += x.check + ":";
    for (const auto& s : x.sentences) text += " " + s;
    text += "\n";
  }
  return text;
}

}  // namespace lockstep::reports
