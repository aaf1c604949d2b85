// The resource check's explanation: which acknowledged update was lost (or which stale token
// got through), who believed it held the lock then, what etcd held, and the faults in play.
#include "lockstep/reports/explain_parts.h"
#include "lockstep/reports/report_text.h"

namespace lockstep::reports {

namespace {

std::string write_words(const nlohmann::json& w) {
  std::string s = w.value("client", std::string("a client")) + "'s write of " +
                  (w.contains("value") ? w["value"].dump() : std::string("?"));
  if (w.contains("base")) s += " computed from " + w["base"].dump();
  if (int_of(w, "token") > 0) s += " (token " + w["token"].dump() + ")";  // 0: the lock has none
  return s;
}

// Who believed it held the lock, and whose key etcd held, at `at_ns`.
std::string holders_at(const RunFacts& facts, std::int64_t at_ns) {
  std::vector<std::string> believers;
  for (const auto& h : facts.holdings())
    if (h.start_ns <= at_ns && at_ns <= h.end_ns) believers.push_back(h.process);
  std::string s = "At " + format_seconds(at_ns) + " ";
  s += believers.empty() ? "no client believed it held the lock"
                         : join_words(believers) + (believers.size() == 1 ? " believed it held" : " believed they held") +
                               " the lock";
  if (!facts.truth().keys.empty()) {
    std::vector<std::string> owners;
    for (const KeyLifetime* k : facts.keys_at(at_ns)) {
      std::int64_t revision = 0;
      const std::string owner = key_owner_at(facts, *k, at_ns, revision);
      owners.push_back((owner.empty() ? std::string("nobody known") : owner) + " (" + k->key + ", revision " + std::to_string(revision) + ")");
    }
    s += owners.empty() ? "; no lock key existed in etcd" : (owners.size() == 1 ? "; etcd held one lock key, owned by " : "; etcd held lock keys owned by ") +
                                 join_words(owners);
  }
  return s + ".";
}

// Two clients believed they held the lock at `at_ns`: why, as the mutual-exclusion check's
// explanation of the first two of them tells it (its chain, appended to `out`; its cause under
// "overlap").
void overlap_at(const RunFacts& facts, std::int64_t at_ns, Story& out) {
  std::vector<const HoldingInterval*> believers;
  for (const auto& h : facts.holdings())
    if (h.start_ns <= at_ns && at_ns <= h.end_ns) believers.push_back(&h);
  std::stable_sort(believers.begin(), believers.end(),
                   [](const HoldingInterval* a, const HoldingInterval* b) { return a->start_ns < b->start_ns; });
  // The first pair that excludes each other (two readers may share the lock).
  const HoldingInterval* first = nullptr;
  const HoldingInterval* second = nullptr;
  for (std::size_t i = 0; i < believers.size() && second == nullptr; ++i)
    for (std::size_t j = i + 1; j < believers.size() && second == nullptr; ++j)
      if (believers[i]->process != believers[j]->process && !(believers[i]->shared && believers[j]->shared)) {
        first = believers[i];
        second = believers[j];
      }
  if (second == nullptr) return;
  const auto holding_json = [](const HoldingInterval& h) {
    return nlohmann::json{{"process", h.process}, {"start_ns", h.start_ns}, {"end_ns", h.end_ns},
                          {"ended_by", h.ended_by}, {"start_event", h.start_event}};
  };
  const Story overlap = explain_mutex(
      facts, {{"witness", {{"earlier", holding_json(*first)}, {"later", holding_json(*second)}}}});
  if (overlap.empty()) return;
  for (std::size_t i = 0; i < overlap.chain_length && i < overlap.sentences.size(); ++i)
    out.say(overlap.sentences[i], overlap.spans[i]);
  out.cause["overlap"] = overlap.cause;
}

// A duplicate fault on the writer's link to the resource when its write landed: what can make
// one write land twice. Other faults active then are not named: they did nothing to this write
// (transit and stale_read say what held its messages).
void duplicates_near(const RunFacts& facts, const std::string& client, std::int64_t at_ns, Story& out) {
  std::vector<const FaultBand*> copies;
  for (const FaultBand* f : facts.faults_hitting(client, at_ns, at_ns))
    if (f->kind == "duplicate" && (f->on_link(client, "resource") || f->on_link("resource", client)))
      copies.push_back(f);
  if (!copies.empty()) out.say("Then " + fault_clauses(copies) + ".");
}

// The client operation whose effect at the resource is `effect` (a resource-write or -read
// truth event): the latest invoke of that client before it that the effect belongs to. Not
// always the client's latest invoke: a write given up on may arrive during a later operation.
const HistoryEvent* call_of_effect(const RunFacts& facts, const HistoryEvent& effect) {
  const std::string client = effect.args.is_object() ? effect.args.value("client", "") : "";
  const std::string op = effect.op == "resource-write" ? "write" : "read";
  for (std::int64_t i = effect.index - 1; i >= 0; --i) {
    const HistoryEvent* e = facts.event(i);
    if (e->kind != EventKind::invoke || e->process != client || e->op != op) continue;
    if (facts.resource_effect(e->index) == &effect) return e;
  }
  return nullptr;
}

// How long the call behind `effect` travelled, and the faults on its way (the writer's own
// messages, a pause of the writer before it sent them, the resource). Says nothing when the
// call arrived promptly (within 100 ms, well above the simulated network's latency).
void transit(const RunFacts& facts, const HistoryEvent& effect, Story& out, nlohmann::json& cause) {
  const HistoryEvent* call = call_of_effect(facts, effect);
  if (call == nullptr) return;
  const std::int64_t took_ns = effect.true_ns - call->true_ns;
  if (took_ns < 100'000'000) return;
  const std::string client = call->process;
  std::vector<const FaultBand*> held;
  for (const FaultBand* f : facts.faults_hitting(client, call->true_ns, effect.true_ns))
    if (f->kind != "duplicate" && f->kind != "reorder" && f->kind != "lease-drop" &&
        (f->hits("resource") || f->kind == "pause" || f->kind == "crash" || f->kind == "clock"))
      held.push_back(f);
  for (const FaultBand* f : facts.faults_hitting("resource", call->true_ns, effect.true_ns))
    if (!f->hits(client) && (f->kind == "pause" || f->processes.size() == 1)) held.push_back(f);
  std::string s = client + " sent its " + call->op + " at " + format_seconds(call->true_ns) +
                  " and it reached the resource at " + format_seconds(effect.true_ns) + ", " +
                  format_duration(took_ns) + " later";
  s += held.empty() ? "; none of the faults was active on its way" : ": " + fault_clauses(held, 6);
  for (const FaultBand* f : held) {
    if (f->kind != "loss" || !f->on_link(client, "resource")) continue;
    if (const std::string tcp = loss_retransmission_words(*f, call->true_ns, effect.true_ns, 50'000'000); !tcp.empty()) {
      s += tcp;
      break;
    }
  }
  out.say(s + ".", TimeSpan{call->true_ns, effect.true_ns});
  // A write that arrived after its client had given up on it, or in a later holding: the
  // holder the report names at its arrival is not the holding that sent it.
  std::vector<std::string> late;
  const HistoryEvent* done = facts.completion_of(call->index);
  if (done != nullptr && done->true_ns < effect.true_ns && done->kind != EventKind::ok)
    late.push_back(client + " had given up on it at " + format_seconds(done->true_ns) + " (" +
                   done->result.value("error", std::string(event_kind_name(done->kind))) + ")");
  const HoldingInterval* sent_in = nullptr;
  const HoldingInterval* arrived_in = nullptr;
  for (const auto& h : facts.holdings()) {
    if (h.process != client) continue;
    if (h.start_ns <= call->true_ns && call->true_ns <= h.end_ns) sent_in = &h;
    if (h.start_ns <= effect.true_ns && effect.true_ns <= h.end_ns) arrived_in = &h;
  }
  if (sent_in != nullptr && sent_in != arrived_in)
    late.push_back(client + " had sent it while holding the lock from " + format_seconds(sent_in->start_ns) +
                   " to " + format_seconds(sent_in->end_ns) +
                   (arrived_in ? ", an earlier holding than the one it arrived in" : ", and it arrived after that holding"));
  if (!late.empty()) {
    std::string t;
    for (const auto& part : late) t += (t.empty() ? "" : "; ") + part;
    out.say(t + ".", TimeSpan{call->true_ns, effect.true_ns});
  }
  nlohmann::json starts = nlohmann::json::array();
  for (const FaultBand* f : held) starts.push_back(f->start_event);
  cause["transit"] = {{"client", client}, {"op", call->op}, {"sent_ns", call->true_ns},
                      {"arrived_ns", effect.true_ns}, {"faults", starts},
                      {"given_up", done != nullptr && done->kind != EventKind::ok && done->true_ns < effect.true_ns}};
}

// The read the overwriting write was computed from, when it took 100 ms or more: "client-2's
// read of 29, invoked at 34.989 s, reached the resource at 35.400 s and its answer came at
// 35.810 s, 821 ms after it was sent: messages between client-2 and the resource were delayed
// by 410 ms ...". A slow read is how a write comes to be computed from a stale value.
void stale_read(const RunFacts& facts, const HistoryEvent& write_effect, Story& out) {
  const HistoryEvent* write = call_of_effect(facts, write_effect);
  if (write == nullptr || !write->args.is_object() || !write->args.contains("base")) return;
  const nlohmann::json base = write->args["base"];
  const HistoryEvent* read = nullptr;
  const HistoryEvent* answer = nullptr;
  for (std::int64_t i = write->index - 1; i >= 0 && read == nullptr; --i) {
    const HistoryEvent* e = facts.event(i);
    if (e == nullptr || e->process != write->process || e->kind != EventKind::invoke || e->op != "read") continue;
    const HistoryEvent* done = facts.completion_of(e->index);
    if (done == nullptr || done->kind != EventKind::ok || done->index > write->index ||
        !done->result.is_object() || done->result.value("value", nlohmann::json()) != base)
      return;  // the latest read before the write is not the one its base came from
    read = e;
    answer = done;
  }
  if (read == nullptr || answer->true_ns - read->true_ns < 100'000'000) return;
  std::string s = read->process + "'s read of " + base.dump() + ", invoked at " + format_seconds(read->true_ns);
  if (const HistoryEvent* at = facts.resource_effect(read->index); at != nullptr)
    s += ", reached the resource at " + format_seconds(at->true_ns) + " and its answer came at " +
         format_seconds(answer->true_ns);
  else
    s += ", was answered at " + format_seconds(answer->true_ns);
  s += ", " + format_duration(answer->true_ns - read->true_ns) + " after it was sent";
  const std::vector<const FaultBand*> held = faults_on_way(facts, *read, answer->true_ns);
  s += held.empty() ? "; none of the faults was active on its way" : ": " + fault_clauses(held, 6);
  out.say(s + ".", TimeSpan{read->true_ns, answer->true_ns});
}

// What the overwriting write had not read, from the resource's applied writes before it: "its
// writer had read 81, the value of update 81, so it overwrote updates 82 to 84, which it never
// read". Falls back to "... before update <lost_order>" when the history does not show them.
std::string unread_updates(const RunFacts& facts, const nlohmann::json& by, const HistoryEvent* by_at,
                           const std::string& lost_order) {
  const std::string fallback = "its writer had read the resource before update " + lost_order;
  if (by_at == nullptr || !by.contains("base")) return fallback;
  const nlohmann::json base = by["base"];
  std::int64_t read_order = -1, first_unread = -1, last_unread = -1, unread = 0;
  for (const auto& e : facts.history().events) {
    if (e.index >= by_at->index) break;
    if (e.kind != EventKind::truth || e.op != "resource-write" || !e.args.value("accepted", false)) continue;
    const std::int64_t order = int_of(e.args, "order", -1);
    if (e.args.value("value", nlohmann::json()) == base) {
      read_order = order;
      first_unread = last_unread = -1;
      unread = 0;
    } else if (read_order >= 0) {
      if (first_unread < 0) first_unread = order;
      last_unread = order;
      ++unread;
    }
  }
  if (read_order < 0 || unread == 0) return fallback;
  return "its writer had read " + base.dump() + ", the value of update " + std::to_string(read_order) +
         ", so it overwrote " +
         (unread == 1 ? "update " + std::to_string(first_unread) + ", which it never read"
                      : std::to_string(unread) + " updates it never read (" + std::to_string(first_unread) + " to " +
                            std::to_string(last_unread) + ")");
}

}  // namespace

Story explain_resource(const RunFacts& facts, const nlohmann::json& check) {
  const nlohmann::json w = check.value("witness", nlohmann::json::object());
  if (!w.is_object()) return {};
  Story out;
  if (w.contains("lost") && w.contains("overwritten_by") && w["lost"].is_object() &&
      w["overwritten_by"].is_object()) {
    const auto& lost = w["lost"];
    const auto& by = w["overwritten_by"];
    const HistoryEvent* lost_at = facts.event(int_of(lost, "event", -1));
    const HistoryEvent* by_at = facts.event(int_of(by, "event", -1));
    std::string s = write_words(lost) + " was applied";
    if (lost_at) s += " at " + format_seconds(lost_at->true_ns);
    if (lost.contains("order")) s += " as update " + lost["order"].dump();
    s += " and acknowledged to " + w.value("lost_acknowledged_by", lost.value("client", std::string("its client"))) + ".";
    out.say(s, lost_at ? std::optional<TimeSpan>(TimeSpan{lost_at->true_ns, lost_at->true_ns}) : std::nullopt);
    s = "Then the resource applied " + write_words(by);
    if (by_at) s += " at " + format_seconds(by_at->true_ns);
    if (by.contains("order")) s += " as update " + by["order"].dump();
    s += ", overwriting it";
    if (by.value("client", "") == lost.value("client", "") && by.value("base", nlohmann::json()) == lost.value("base", nlohmann::json()) &&
        by.value("value", nlohmann::json()) == lost.value("value", nlohmann::json()))
      s += ": the same write was applied a second time";
    else
      s += ": " + unread_updates(facts, by, by_at, lost.value("order", nlohmann::json()).dump());
    out.say(s + ".", by_at ? std::optional<TimeSpan>(TimeSpan{by_at->true_ns, by_at->true_ns}) : std::nullopt);
    out.cause = {{"class", "lost-update"}, {"process", by.value("client", "")}};
    if (by_at) {
      out.say(holders_at(facts, by_at->true_ns));
      overlap_at(facts, by_at->true_ns, out);
      transit(facts, *by_at, out, out.cause);
      stale_read(facts, *by_at, out);
      out.end_chain();
      duplicates_near(facts, by.value("client", ""), by_at->true_ns, out);
    }
    return out;
  }
  if (w.contains("write") && w["write"].is_object()) {
    const auto& write = w["write"];
    const HistoryEvent* at = facts.event(int_of(write, "event", -1));
    std::string s = "The resource accepted " + write_words(write);
    if (at) s += " at " + format_seconds(at->true_ns);
    if (w.contains("highest_token_before"))
      s += " although it had already accepted token " + w["highest_token_before"].dump() +
           ": tokens went backwards";
    out.say(s + ".", at ? std::optional<TimeSpan>(TimeSpan{at->true_ns, at->true_ns}) : std::nullopt);
    out.cause = {{"class", "stale-token-accepted"}, {"process", write.value("client", "")}};
    if (at) {
      out.say(holders_at(facts, at->true_ns));
      transit(facts, *at, out, out.cause);
      out.end_chain();
      duplicates_near(facts, write.value("client", ""), at->true_ns, out);
    }
    return out;
  }
  return {};
}

}  // namespace lockstep::reports
