// The liveness check's explanation: its finding, when the faults healed, and what still held
// the lock (in the clients' beliefs and in etcd) when the history ended.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "lockstep/kv/tcp_retransmission.h"
#include "lockstep/reports/causes.h"
#include "lockstep/reports/elections.h"
#include "lockstep/reports/explain_parts.h"
#include "lockstep/reports/report_text.h"
#include "lockstep/reports/request_way.h"

namespace lockstep::reports {

namespace {

// A call that did not succeed, as a clause: "its delete_range (call 65) to member-0 reached its
// deadline at 25.594 s", and with `with_send`, when it was sent.
std::string unsuccessful_call_words(const CallRecord& c, bool with_send) {
  return "its " + c.request + " (call " + std::to_string(c.call) + ") to " + c.member +
         (with_send ? " sent at " + format_seconds(c.sent_ns) : std::string()) +
         (c.outcome.empty() ? std::string(" was never answered")
          : c.outcome == "deadline" ? " reached its deadline at " + format_seconds(c.end_ns)
                                    : " ended " + c.outcome + " at " + format_seconds(c.end_ns));
}

// ", having last renewed it at T" for `lease` (which expired), with the keep-alive that made
// that renewal when it explains why the lease outlived its client's last send: one its client
// had given up (held by a fault and let through late), or ones answered more than a second
// after they were sent (several held together arrive together). "" when the renewal is not
// recorded.
std::string last_renewal_words(const RunFacts& facts, const std::string& client, const LeaseLifetime& lease) {
  const std::int64_t renewed_ns = lease.expiry.renewed_ns;
  if (renewed_ns < 0) return "";
  std::string s = ", having last renewed it at " + format_seconds(renewed_ns);
  // The keep-alive named is the one that made that renewal (not a new leader's extension).
  std::int64_t unseen_ns = -1;
  if (const std::string unseen = unseen_renewal_words(facts, lease.lease, *lease.expired_ns, &unseen_ns);
      !unseen.empty() && unseen_ns == renewed_ns)
    return s + ", " + unseen;
  if (const std::string late = late_renewal_words(facts, client, lease.lease, renewed_ns); !late.empty())
    return s + ", " + late;
  return s;
}

// The news of a deletion at `news_ns` on its way to `client`, from the history's records of
// cut links: a link from a member (`watch_member`, the one the waiter's watch was on, when the
// history records it; any member otherwise), cut by one of `held`, to the client that held
// everything that member sent it from before the wait ended at `wait_end_ns` until after it. "; the link
// from member-0 to client-0 held all that member-0 sent it from 2.001 s until TCP's
// retransmission got it through at 9.401 s, after the wait had ended at 7.000 s (a later cut of
// that link from 3.300 s to 9.000 s)". Whether the member had the news to send is not claimed:
// a member cut off from the leader may not have applied the deletion. "" when no record shows
// such a hold.
std::string news_hold_words(const RunFacts& facts, const std::vector<const FaultBand*>& held,
                            const std::string& client, const std::string& watch_member, std::int64_t news_ns,
                            std::int64_t wait_end_ns) {
  for (const LinkEvent& l : facts.link_events()) {
    if (l.to != client || l.held_since_ns > wait_end_ns || l.at_ns < wait_end_ns || l.at_ns < news_ns) continue;
    // The news comes from the member the watch is on, when the history says which.
    if (!watch_member.empty() && l.from != watch_member) continue;
    const FaultBand* first_cut = nullptr;
    for (const FaultBand* f : held)
      if (f->kind == "partition" && f->on_link(l.from, client) && f->start_ns <= l.held_since_ns + 1'000'000'000 &&
          (f->open_end || f->end_ns >= l.held_since_ns))
        first_cut = first_cut != nullptr ? first_cut : f;
    if (first_cut == nullptr) continue;
    std::string s = "; the link from " + l.from + " to " + client + " held all that " + l.from + " sent it from " +
                    format_seconds(l.held_since_ns) + " until " +
                    (l.dead ? "the connection was declared dead at " + format_seconds(l.at_ns) + ", losing it"
                            : "TCP's retransmission got it through at " + format_seconds(l.at_ns)) +
                    ", after the wait had ended at " + format_seconds(wait_end_ns);
    // A later cut of the same link that the retransmissions fell into.
    for (const auto& g : facts.faults())
      if (&g != first_cut && g.kind == "partition" && g.on_link(l.from, client) && !first_cut->open_end &&
          g.start_ns >= first_cut->end_ns && g.start_ns < l.at_ns) {
        s += " (its retransmissions fell into a later cut of that link, " + fault_span(g) + ")";
        break;
      }
    return s;
  }
  return "";
}

// Why the member a waiter watched on could not learn of a deletion the leader committed at
// `news_ns`, from the history's records of cut links: the leader's link to that member held
// everything from before the deletion until after the wait ended at `wait_end_ns` (or lost it
// with its connection), so neither the entry nor its commit reached that member from the
// leader. With the spans with no leader from then to the wait's end (no leader, no one to bring
// the member up to date). "; member-1, where client-1 watched, could not learn of it from the
// leader member-2: member-2's messages to member-1, held since 18.248 s, were lost when the
// connection was declared dead at 23.248 s; no member led the cluster from 26.249 s to 34.439 s".
// "" when the waiter's watch or the leader is not recorded, or no such hold is.
// The waiter's last watch of operation `invoke` sent by `news_ns`, or nullptr (not recorded).
const CallRecord* watch_of(const RunFacts& facts, const std::string& client, std::int64_t invoke, std::int64_t news_ns) {
  const CallRecord* watch = nullptr;
  for (const CallRecord* c : facts.calls_of(client, 0, news_ns, "watch_create"))
    if (c->invoke == invoke) watch = c;
  return watch;
}

std::string watch_member(const RunFacts& facts, const std::string& client, std::int64_t invoke, std::int64_t news_ns) {
  const CallRecord* watch = watch_of(facts, client, invoke, news_ns);
  return watch != nullptr ? watch->member : std::string();
}

std::string news_at_member_words(const RunFacts& facts, const std::string& client, std::int64_t invoke,
                                 std::int64_t news_ns, std::int64_t wait_end_ns) {
  const CallRecord* watch = watch_of(facts, client, invoke, news_ns);
  const LeaderTerm* leader = nullptr;
  for (const auto& t : facts.truth().leaders)
    if (t.start_ns <= news_ns && t.end_ns >= news_ns) leader = &t;
  if (watch == nullptr || leader == nullptr || watch->member.empty() || watch->member == leader->member) return "";
  const std::string& member = watch->member;
  for (const LinkEvent& l : facts.link_events()) {
    if (l.from != leader->member || l.to != member || l.held_since_ns > news_ns || l.at_ns < news_ns) continue;
    if (!l.dead && l.at_ns <= wait_end_ns) return "";  // got through in time: not why
    // Lost with the connection: a new one could have caught the member up, unless a cut of
    // that link or a span with no leader covered all the time from then to the wait's end
    // (within half a second: a healed link's first exchange can depose the leader).
    if (l.dead) {
      std::int64_t t = l.at_ns;
      for (bool moved = true; moved && t < wait_end_ns;) {
        moved = false;
        for (const auto& f : facts.faults())
          if (f.kind == "partition" && f.on_link(l.from, l.to) && f.start_ns <= t && (f.open_end || f.end_ns > t)) {
            t = f.open_end ? facts.end_ns() : f.end_ns;
            moved = true;
          }
        for (const auto& [a, b] : facts.leaderless(0, facts.end_ns(), 0))
          if (a <= t + 500'000'000 && b > t) {
            t = b;
            moved = true;
          }
      }
      if (t < wait_end_ns) return "";
    }
    std::string s = "; " + member + ", where " + client + " watched, could not learn of that deletion from the leader " +
                    leader->member + " before the wait ended at " + format_seconds(wait_end_ns) + ": " +
                    held_messages_words(l);
    // Lost: a new connection could have caught the member up, had a leader lasted; say why none did.
    if (l.dead)
      for (const auto& [a, b] : whole_leaderless_spans(facts, l.at_ns, wait_end_ns, 1)) {
        std::string down;
        for (const auto& t : facts.truth().leaders)
          if (t.end_ns == a && t.stepped_down_event >= 0) down = step_down_words(facts, t);
        s += "; " + (down.empty() ? std::string() : "then " + down + ", and ") + "no member led the cluster from " +
             format_seconds(a) + " to " + format_seconds(b);
      }
    return s;
  }
  return "";
}

// Why a waiter's acquire ran out while `ahead` (the nearest lock key before its own) still
// stood: "client-3's acquire waited behind client-2's key /l/x (revision 106), which stood until
// 35.229 s, after its wait had ended at 24.057 s; it was deleted by a delete_range that client-2
// sent ..., 20.639 s after it was sent: when it was sent, member-0 was paused ..."; and, while
// its owner believed it held the lock, "client-0 held the lock from 17.9 s to 23.1 s, while the
// resource crashed ...".
std::string standing_ahead_words(const RunFacts& facts, const KeyLifetime& ahead, const std::string& waiter,
                                 std::int64_t key_start_ns, std::int64_t wait_end_ns) {
  const bool stayed = ahead.end_ns == kStillOpen || ahead.end_ns > facts.end_ns();
  const std::string whose = key_made_for(ahead);
  std::string s = waiter + "'s acquire waited behind " + (whose.empty() ? std::string("the") : whose + "'s") +
                  " key " + ahead.key + " (revision " + std::to_string(ahead.create_revision) + "), which " +
                  (stayed ? std::string("still stood when the history ended")
                          : "stood until " + format_seconds(ahead.end_ns)) +
                  ", after its wait had ended at " + format_seconds(wait_end_ns);
  s += holds_in_wait_words(facts, ahead, waiter, key_start_ns, wait_end_ns);
  std::string held_words;  // what held the deleting request, as a sentence of its own
  if (!stayed) {
    s += "; the key was deleted" + deletion_words(ahead);
    const ChangeCause& by = ahead.deleted_by;
    if (by.kind == "request" && !request_legs(facts, by, ahead.end_ns).empty()) {
      // Its way recorded: what held it on that way.
      std::vector<const FaultBand*> held;
      held_words = request_delay_words(facts, by, ahead.end_ns, held);
    } else if (by.kind == "request" && by.sent_ns >= 0 && ahead.end_ns - by.sent_ns >= 1'000'000'000) {
      // Else what first held it: a pause or crash, when it was sent, of the member it went to
      // or of the leader then (a member passes a write on to the leader). Where it went after
      // is not known, so nothing later is blamed.
      std::set<std::string> first_stops = {by.member};
      std::string leader_then;
      for (const auto& t : facts.truth().leaders)
        if (t.start_ns <= by.sent_ns && t.end_ns >= by.sent_ns) {
          first_stops.insert(t.member);
          leader_then = t.member;
        }
      std::vector<const FaultBand*> stopped;
      for (const auto& f : facts.faults())
        if ((f.kind == "pause" || f.kind == "crash") && f.start_ns <= by.sent_ns &&
            (f.open_end || f.end_ns > by.sent_ns) &&
            std::any_of(first_stops.begin(), first_stops.end(), [&](const std::string& m) { return f.hits(m); }))
          stopped.push_back(&f);
      s += ", " + format_duration(ahead.end_ns - by.sent_ns) + " after it was sent";
      if (!stopped.empty())
        s += ": when it was sent, " + fault_clauses(stopped, 3) +
             (leader_then.empty() || leader_then == by.member
                  ? std::string()
                  : " (" + leader_then + " led the cluster, and " + by.member + " passes writes on to the leader)");
    }
  }
  return s + "." + (held_words.empty() ? "" : " " + held_words);
}

// Whether any acquire of the history asked for the shared mode (a reader's).
bool any_shared_acquire(const RunFacts& facts) {
  return std::any_of(facts.history().events.begin(), facts.history().events.end(), [](const HistoryEvent& e) {
    return e.kind == EventKind::invoke && e.op == "acquire" && e.args.is_object() &&
           e.args.value("mode", std::string()) == "shared";
  });
}

// What kept the answer to `call`, applied at `applied_ns`, from its client until the call ended:
// "Its answer did not reach client-3 before the call ended at 28.441 s: the link from member-0
// to client-3 was cut from 23.400 s to 26.500 s; TCP resends what a cut link holds at its next
// retransmission after the heal, about 29.641 s here, after the call's end." "" when no fault
// was on its way back (the member's link to the client, a pause or crash of either).
std::string answer_held_words(const RunFacts& facts, const CallRecord& call, std::int64_t applied_ns) {
  std::vector<const FaultBand*> held;
  for (const FaultBand* f : faults_on_call(facts, call, call.end_ns)) {
    const bool link = f->args.contains("from") || f->args.contains("to");
    const bool on_way_back = link ? f->on_link(call.member, call.process)
                                  : (f->kind == "pause" || f->kind == "crash") &&
                                        (f->hits(call.member) || f->hits(call.process));
    if (on_way_back && (f->open_end || f->end_ns >= applied_ns)) held.push_back(f);
  }
  if (held.empty()) return "";
  std::string s = "Its answer did not reach " + call.process + " before the call ended at " +
                  format_seconds(call.end_ns) + ": " + fault_clauses(held, 4);
  // A cut of the way back that healed before the call's end held the answer until TCP's next
  // retransmission after the heal; the answer was first sent when the request was applied.
  for (const FaultBand* f : held) {
    if (f->kind != "partition" || f->open_end || !f->on_link(call.member, call.process) ||
        f->start_ns > applied_ns || f->end_ns >= call.end_ns)
      continue;
    const std::int64_t retransmit_ns = next_tcp_retransmission_ns(applied_ns, f->end_ns);
    if (retransmit_ns > call.end_ns)
      s += "; TCP resends what a cut link holds at its next retransmission after the heal, about " +
           format_seconds(retransmit_ns) + " here, after the call's end";
    break;
  }
  return s + ".";
}

}  // namespace

Story explain_liveness(const RunFacts& facts, const nlohmann::json& check) {
  Story out;
  std::string summary = check.value("summary", "");
  if (summary.empty()) return {};
  // A process name keeps its lower case ("client-1 waited ..."), as everywhere else.
  if (summary.rfind("client-", 0) != 0 && summary.rfind("member-", 0) != 0)
    summary[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(summary[0])));
  out.say(summary + (summary.back() == '.' ? "" : "."));

  const FaultBand* last = nullptr;
  for (const auto& f : facts.faults())
    if (last == nullptr || (f.open_end ? facts.end_ns() : f.end_ns) >= (last->open_end ? facts.end_ns() : last->end_ns))
      last = &f;
  if (last != nullptr)
    out.say("The last fault to heal: " + describe_fault(*last) + " " + fault_span(*last) + ".");

  // How the acquires after healing ended says what kept the lock from being granted.
  std::int64_t healed_ns = int_of(check.value("witness", nlohmann::json::object()), "heal_ns", -1);
  if (healed_ns < 0) healed_ns = int_of(check.value("figures", nlohmann::json::object()), "healed_at_ns", -1);
  if (healed_ns >= 0) {
    std::map<std::string, std::int64_t> outcomes;
    std::int64_t tried = 0;
    for (const auto& e : facts.history().events) {
      if (e.true_ns < healed_ns || e.kind != EventKind::invoke || e.op != "acquire") continue;
      ++tried;
      const HistoryEvent* done = facts.completion_of(e.index);
      outcomes[done == nullptr ? "never answered"
               : done->kind == EventKind::ok ? "ok"
                                             : done->result.value("error", std::string(event_kind_name(done->kind)))]++;
    }
    std::vector<std::pair<std::int64_t, std::string>> ranked;
    for (const auto& [name, n] : outcomes) ranked.push_back({-n, name});
    std::sort(ranked.begin(), ranked.end());
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < ranked.size() && i < 4; ++i)
      parts.push_back(std::to_string(-ranked[i].first) + " " + ranked[i].second);
    if (tried > 0)
      out.say("After " + format_seconds(healed_ns) + ", " +
                    (tried == 1 ? std::string("1 acquire was") : std::to_string(tried) + " acquires were") +
                    " invoked; they ended: " + join_words(parts) + ".");
  }

  const LeaderTerm* last_term = nullptr;
  for (const auto& t : facts.truth().leaders)
    if (t.end_ns == kStillOpen) last_term = &t;
  if (!facts.truth().leaders.empty())
    out.say(last_term ? "When the history ended " + last_term->member + " led the cluster (term " +
                                  std::to_string(last_term->term) + ")."
                            : std::string("When the history ended no member was leader."));

  // The waiter's own acquire: a call of it that a member which no longer led dropped, so it
  // could not go on whatever the lock's state.
  {
    const nlohmann::json witness = check.value("witness", nlohmann::json::object());
    const std::int64_t invoke = int_of(witness, "invoke_event", -1);
    const std::string waiter = witness.value("process", std::string());
    if (invoke >= 0 && !waiter.empty())
      for (const CallRecord& c : facts.calls())
        if (c.process == waiter && c.invoke == invoke && c.outcome == "deadline")
          if (const std::string dropped = dropped_words(facts, c); !dropped.empty())
            out.say(waiter + "'s acquire sent a " + c.request + " (call " + std::to_string(c.call) + ") to " +
                        c.member + " at " + format_seconds(c.sent_ns) + ", which reached its deadline at " +
                        format_seconds(c.end_ns) + ": " + dropped + ".",
                    TimeSpan{c.sent_ns, c.end_ns});
  }

  for (const auto& h : facts.holdings())
    if (h.end_ns == kStillOpen)
      out.say(h.process + " still believed it held the lock when the history ended (since " +
                    format_seconds(h.start_ns) + ").");
  // What kept the lock taken: a key still there at the end, and who made it.
  nlohmann::json cause = {{"class", "stalled"}};
  // The keys that held the lock up: those still there at the end, and those there when the
  // witness's waiter found nobody holding the lock (a missed wake-up), gone before the end.
  const nlohmann::json witness = check.value("witness", nlohmann::json::object());
  const std::int64_t idle_from_ns = int_of(witness, "idle_from_ns", -1);
  const std::string waiter = witness.value("process", std::string());
  std::vector<const KeyLifetime*> blocking;
  for (const auto& k : facts.truth().keys)
    if (k.end_ns == kStillOpen && facts.is_lock_key(k)) blocking.push_back(&k);
  // With no waiter's wait in the witness (no acquire after healing succeeded), the keys that
  // stood when the last fault healed.
  const std::int64_t blocked_at_ns = idle_from_ns >= 0 ? idle_from_ns : healed_ns;
  // The witness's idle_from_ns is when nobody believed it held the lock any more while the
  // waiter waited (its wait may have begun earlier).
  const std::string blocked_when = idle_from_ns >= 0 ? "nobody believed it held the lock while " + waiter + " waited, from"
                                                     : "the last fault healed at";
  // After a heal, only keys that outlived the first acquire tried after it held it up (a
  // waiter's own key, gone with its clean-up, did not).
  std::int64_t outlived_ns = blocked_at_ns;
  if (idle_from_ns < 0 && healed_ns >= 0) {
    outlived_ns = facts.end_ns();
    for (const auto& e : facts.history().events)
      if (e.true_ns >= healed_ns && e.kind == EventKind::invoke && e.op == "acquire")
        if (const HistoryEvent* done = facts.completion_of(e.index); done != nullptr)
          outlived_ns = std::min(outlived_ns, done->true_ns);
  }
  if (blocked_at_ns >= 0)
    for (const KeyLifetime* k : facts.keys_at(blocked_at_ns))
      if (k->end_ns != kStillOpen && k->end_ns > outlived_ns) blocking.push_back(k);
  const bool shared_mode_in_run = any_shared_acquire(facts);
  for (const KeyLifetime* key : blocking) {
    const KeyLifetime& k = *key;
    const bool at_end = k.end_ns == kStillOpen;
    const std::int64_t until_ns = at_end ? facts.end_ns() : k.end_ns;
    // Whom it was made for: the client an acquire returned it to, else (no acquire returned it,
    // its creator crashed or gave up) the client whose request created it.
    const std::string made_for = key_made_for(k);
    std::string s = "The lock key " + k.key + " (revision " + std::to_string(k.create_revision) +
                    ") created at " + format_seconds(k.start_ns) +
                    (made_for.empty() ? "" : " for " + (made_for == waiter ? made_for + " itself" : made_for));
    if (at_end) {
      s += " still existed when the history ended";
    } else {
      s += " stood when " + blocked_when + " " + format_seconds(blocked_at_ns) + ", until it was deleted at " +
           format_seconds(k.end_ns) + deletion_words(k);
      // A lease that lived past its TTL because leaders renewed it: a new leader extends every
      // lease when it takes over, so elections kept an abandoned lease alive.
      const LeaseLifetime* l = facts.truth().find_lease(k.lease);
      if (k.deleted_by.kind == "lease-expiry" && k.deleted_by.renewed_by == "leader-election" && l != nullptr &&
          l->ttl_seconds > 0 && k.deleted_by.renewed_ns > k.start_ns) {
        std::vector<std::string> elected;
        std::vector<const LeaderTerm*> elections;
        for (const auto& t : facts.truth().leaders)
          if (t.start_ns > k.start_ns && t.start_ns <= k.deleted_by.renewed_ns) {
            elected.push_back(t.member + " at " + format_seconds(t.start_ns));
            elections.push_back(&t);
          }
        const std::string why = new_leader_causes_words(facts, elections);
        s += " (a lease of TTL " + std::to_string(l->ttl_seconds) + " s, last renewed at " +
             format_seconds(k.deleted_by.renewed_ns) + " by " + k.deleted_by.leader +
             "'s promotion to leader, not by a keep-alive: each new leader extends every lease" +
             (elected.size() > 1 ? "; leaders elected since the key was created: " + join_words(elected)
                                 : std::string()) +
             (why.empty() ? std::string() : "; " + why) + ")";
      }
    }
    const ChangeCause& by = k.created_by;
    bool crashed = false;
    if (!k.owner.empty())
      for (const FaultBand* f : facts.faults_hitting(k.owner, k.start_ns, until_ns))
        if (f->kind == "crash") {
          s += "; " + k.owner + " had crashed at " + format_seconds(f->start_ns);
          crashed = true;
        }
    // Did its creator learn of it? The call's own record says how it ended for the client.
    const CallRecord* call = by.kind == "request" ? facts.find_call(by.client, by.call) : nullptr;
    // A call that never ended because its client crashed while it was out: the answer went
    // with the crash.
    const FaultBand* crashed_on_call = nullptr;
    if (call != nullptr && call->outcome.empty())
      for (const FaultBand* f : facts.faults_hitting(by.client, call->sent_ns, until_ns))
        if (f->kind == "crash" && f->start_ns >= call->sent_ns) {
          crashed_on_call = f;
          break;
        }
    const bool unanswered = by.kind == "request" &&
                            (by.abandoned_ns || crashed_on_call != nullptr ||
                             (call != nullptr && call->outcome != "ok" && !call->outcome.empty()));
    // Or it had the answer, but the acquire that sent it did not end with the lock.
    const HistoryEvent* failed_acquire = nullptr;
    if (by.kind == "request" && !unanswered) {
      for (const auto& e : facts.history().events) {
        if (e.true_ns > k.start_ns) break;
        if (e.process != by.client || e.kind != EventKind::invoke) continue;
        const HistoryEvent* done = facts.completion_of(e.index);
        const bool open_then = done == nullptr || done->true_ns >= k.start_ns;
        failed_acquire = open_then && e.op == "acquire" && (done == nullptr || done->kind != EventKind::ok)
                             ? &e
                             : (open_then ? nullptr : failed_acquire);
      }
    }
    std::string created_late;  // what held the creating request, said after the key's sentence
    std::string ahead_words;   // why the key its acquire waited behind stood past the wait
    if (unanswered) {
      s += "; " + request_words(by) + " created it, but " + by.client + " never had its answer";
      if (call != nullptr && call->end_ns != kStillOpen)
        s += " (the call ended at " + format_seconds(call->end_ns) + ": " +
             (call->outcome == "deadline" ? std::string("its deadline passed") : call->outcome) + ")";
      else if (crashed_on_call != nullptr)
        s += " (" + by.client + " crashed at " + format_seconds(crashed_on_call->start_ns) +
             " with the call still out)";
      s += ", so it did not know it held the lock";
      // What held the creating request past its client's deadline.
      std::vector<const FaultBand*> held;
      created_late = request_delay_words(facts, by, k.start_ns, held);
      if (created_late.empty() && call != nullptr && call->end_ns != kStillOpen)
        created_late = answer_held_words(facts, *call, k.start_ns);
    } else if (failed_acquire != nullptr) {
      const HistoryEvent* done = facts.completion_of(failed_acquire->index);
      s += "; " + request_words(by) + " created it, during " + by.client + "'s acquire invoked at " +
           format_seconds(failed_acquire->true_ns) + ", which " +
           (done == nullptr ? std::string("was never answered")
                            : "ended " + std::string(event_kind_name(done->kind)) + " (" +
                                  done->result.value("error", std::string("?")) + ") at " +
                                  format_seconds(done->true_ns)) +
           "";
      // The creating call was answered, yet the acquire tried again: the answer it had was a
      // refusal. A duplicated request does that: its second copy, applied after the first,
      // finds the key there, and its answer can reach the client first (replies reordered).
      if (call != nullptr && call->outcome == "ok" && call->end_ns != kStillOpen) {
        const std::int64_t acquire_end_ns = done != nullptr ? done->true_ns : facts.end_ns();
        std::size_t retries = 0;
        for (const CallRecord* c : facts.calls_of(by.client, call->end_ns, acquire_end_ns, call->request))
          if (c->invoke == failed_acquire->index && c->call != call->call) ++retries;
        if (retries > 0) {
          s += ", although that call was answered at " + format_seconds(call->end_ns) + ": the acquire went on as if " +
               "refused (" + std::to_string(retries) + " more " + call->request + (retries == 1 ? "" : "s") +
               " sent after it)";
          std::vector<const FaultBand*> duplicated, reordered;
          for (const auto& f : facts.faults()) {
            const std::int64_t end = f.open_end ? facts.end_ns() : f.end_ns;
            if (f.kind == "duplicate" && f.start_ns <= call->sent_ns && end >= call->sent_ns &&
                f.on_link(by.client, call->member))
              duplicated.push_back(&f);
            if (f.kind == "reorder" && f.start_ns <= call->end_ns && end >= call->sent_ns &&
                f.on_link(call->member, by.client))
              reordered.push_back(&f);
          }
          if (!duplicated.empty()) {
            s += "; it was sent while " + fault_clauses(duplicated) +
                 ", and a second copy, applied after the first, finds the key there and is refused";
            if (!reordered.empty())
              s += ", an answer that can overtake the first one's: " + fault_clauses(reordered);
          }
          s += ";";
        }
      }
      // A waiter's key that came first in line before the acquire gave up: the news (its
      // predecessor's deletion) did not reach it. Said for exclusive locks whose keys share a
      // prefix (a shared mode waits on writers only).
      if (done != nullptr && done->kind != EventKind::ok && !shared_mode_in_run) {
        // The wait ends where the acquire starts cleaning up (its first delete or revoke), or
        // with the acquire.
        std::int64_t wait_end_ns = done->true_ns;
        for (const CallRecord* c : facts.calls_of(by.client, k.start_ns, done->true_ns))
          if (c->invoke == failed_acquire->index && (c->request == "delete_range" || c->request == "lease_revoke")) {
            wait_end_ns = c->sent_ns;
            break;
          }
        const KeyLifetime* last_ahead = nullptr;
        const KeyLifetime* standing_ahead = nullptr;  // the nearest key ahead still there when the wait ended
        bool still_ahead = false;
        for (const KeyLifetime* other : lock_keys_ahead(facts, k.key, k.create_revision)) {
          if (other->end_ns <= k.start_ns) continue;
          if (other->end_ns >= wait_end_ns) {
            still_ahead = true;
            if (standing_ahead == nullptr || other->create_revision > standing_ahead->create_revision) standing_ahead = other;
          } else if (last_ahead == nullptr || other->end_ns > last_ahead->end_ns) {
            last_ahead = other;
          }
        }
        if (standing_ahead != nullptr)
          ahead_words = standing_ahead_words(facts, *standing_ahead, by.client, k.start_ns, wait_end_ns);
        if (!still_ahead && last_ahead != nullptr) {
          std::vector<const FaultBand*> held;
          for (const FaultBand* f : facts.faults_hitting(by.client, last_ahead->end_ns, wait_end_ns)) {
            // The waiter's own stops, and cuts, delays and losses of its links with the members
            // both ways (the news comes in; a waiter may have to read again before it takes the
            // lock).
            const bool link = f->args.contains("from") || f->args.contains("to");
            bool on_way = !link && (f->kind == "pause" || f->kind == "crash");
            for (const auto& p : link ? f->processes : std::vector<std::string>{})
              on_way = on_way || (p.rfind("member-", 0) == 0 && (f->on_link(p, by.client) || f->on_link(by.client, p)));
            if (on_way && f->kind != "duplicate" && f->kind != "reorder") held.push_back(f);
          }
          s += ", although its key had been first in line since " + format_seconds(last_ahead->end_ns) + " (when " +
               (key_made_for(*last_ahead).empty() ? std::string("the") : key_made_for(*last_ahead) + "'s") + " key of revision " +
               std::to_string(last_ahead->create_revision) + " was deleted)" +
               ", and the acquire did not take the lock before it ended" +
               (held.empty() ? std::string() : ": meanwhile " + fault_clauses(held, 3)) +
               news_at_member_words(facts, by.client, failed_acquire->index, last_ahead->end_ns, wait_end_ns) +
               news_hold_words(facts, held, by.client, watch_member(facts, by.client, failed_acquire->index, last_ahead->end_ns),
                               last_ahead->end_ns, wait_end_ns) + ";";
        }
      }
      s += (s.back() == ';' ? " so no release of " : ": no release of ") + by.client + "'s would delete it";
      // The acquire's own clean-up of its key (a delete, a revoke of its lease) that failed.
      std::vector<const CallRecord*> failed;
      for (const CallRecord* c : facts.calls_of(by.client, k.start_ns, facts.end_ns()))
        if (c->invoke == failed_acquire->index && (c->request == "delete_range" || c->request == "lease_revoke") &&
            c->outcome != "ok")
          failed.push_back(c);
      std::vector<std::string> cleanup;
      if (failed.size() <= 2) {
        for (const CallRecord* c : failed)
          cleanup.push_back(unsuccessful_call_words(*c, /*with_send=*/false));
      } else {
        // Retries: said as one, with the members they went to.
        std::vector<std::string> members;
        for (const CallRecord* c : failed)
          if (std::find(members.begin(), members.end(), c->member) == members.end()) members.push_back(c->member);
        bool deletes = false, revokes = false;
        for (const CallRecord* c : failed) (c->request == "delete_range" ? deletes : revokes) = true;
        cleanup.push_back(std::to_string(failed.size()) + " tries (" +
                          (deletes && revokes ? "deletes and revokes" : deletes ? "deletes" : "revokes") +
                          ") sent from " + format_seconds(failed.front()->sent_ns) + " to " +
                          format_seconds(failed.back()->sent_ns) + " to " + join_words(members) + ", none succeeding");
      }
      if (!cleanup.empty()) {
        s += ", and the acquire's clean-up failed: " + join_words(cleanup);
        // What held those calls: the faults on their way, and the spans with no leader while
        // one was out.
        // Those their own link held until they ended reached no member: who led, and what the
        // members knew, did not matter to them. Grouped by hold: retries to one member queue
        // on one link.
        std::vector<const CallRecord*> reached;
        std::vector<std::pair<const LinkEvent*, std::vector<const CallRecord*>>> holds;
        for (const CallRecord* c : failed) {
          if (!held_whole_way(facts, *c)) {
            reached.push_back(c);
            continue;
          }
          const LinkEvent* hold = link_hold_of(facts, c->process, c->member, c->sent_ns);
          auto it = std::find_if(holds.begin(), holds.end(), [&](const auto& h) { return h.first == hold; });
          if (it == holds.end()) holds.push_back({hold, {c}});
          else it->second.push_back(c);
        }
        std::vector<const FaultBand*> held;
        std::vector<std::pair<std::int64_t, std::int64_t>> gaps;
        for (const CallRecord* c : failed) {
          const std::int64_t end_ns = c->end_ns == kStillOpen ? facts.end_ns() : c->end_ns;
          // One its link held to the end met nothing beyond that link.
          const bool link_held = std::find(reached.begin(), reached.end(), c) == reached.end();
          for (const FaultBand* f : faults_on_call(facts, *c, end_ns))
            if ((!link_held || f->on_link(c->process, c->member)) && std::find(held.begin(), held.end(), f) == held.end())
              held.push_back(f);
        }
        for (const CallRecord* c : reached) {
          const std::int64_t end_ns = c->end_ns == kStillOpen ? facts.end_ns() : c->end_ns;
          for (const auto& gap : whole_leaderless_spans(facts, c->sent_ns, end_ns, 100'000'000))
            if (std::find(gaps.begin(), gaps.end(), gap) == gaps.end()) gaps.push_back(gap);
        }
        std::vector<std::string> why;
        if (!held.empty()) why.push_back("on their way " + fault_clauses(held, 4));
        for (const CallRecord* c : failed)
          if (const std::string dropped = dropped_words(facts, *c, "call " + std::to_string(c->call));
              !dropped.empty())
            why.push_back(dropped);
        // A call its link still held when it ended (TCP's retransmission after the heal came
        // later), or lost with the connection.
        for (const auto& [hold, calls] : holds) why.push_back(held_calls_words(facts, *hold, calls));
        // The members those that got through went to, while they knew no leader to pass them on to.
        std::vector<std::string> members_called;
        for (const CallRecord* c : reached)
          if (!c->member.empty() && std::find(members_called.begin(), members_called.end(), c->member) == members_called.end())
            members_called.push_back(c->member);
        std::vector<std::string> alone_words;
        for (const std::string& m : members_called) {
          std::int64_t first_ns = facts.end_ns(), last_ns = 0;
          for (const CallRecord* c : reached)
            if (c->member == m) {
              first_ns = std::min(first_ns, c->sent_ns);
              last_ns = std::max(last_ns, c->end_ns == kStillOpen ? facts.end_ns() : c->end_ns);
            }
          if (std::string alone = member_without_leader_words(facts, m, first_ns, last_ns, 1'000'000'000); !alone.empty())
            alone_words.push_back(std::move(alone));
        }
        if (!alone_words.empty()) alone_words.back() += kHeldWithoutLeader;
        for (std::string& w : alone_words) why.push_back(std::move(w));
        std::sort(gaps.begin(), gaps.end());
        if (const std::string words = leaderless_span_words(facts, gaps); !words.empty()) why.push_back(words);
        if (!why.empty()) {
          s += " (" + why.front();
          for (std::size_t i = 1; i < why.size(); ++i) s += "; " + why[i];
          s += ")";
        }
      }
    }
    // Who kept its lease alive meanwhile.
    if (k.lease != 0) {
      std::size_t renewed = 0;
      std::string renewer;
      std::int64_t last_sent_ns = -1, last_answer_ns = -1;
      for (const auto& c : facts.calls_of(by.client.empty() ? k.owner : by.client, k.start_ns, until_ns,
                                          "lease_keep_alive"))
        if (c->lease == k.lease && c->outcome == "ok") {
          ++renewed;
          renewer = c->process;
          last_sent_ns = std::max(last_sent_ns, c->sent_ns);
          last_answer_ns = std::max(last_answer_ns, c->end_ns);
        }
      if (renewed > 0) {
        s += "; " + renewer + " kept the key's lease alive (" + std::to_string(renewed) +
             (renewed == 1 ? " keep-alive" : " keep-alives") + " answered after the key was created, the last sent at " +
             format_seconds(last_sent_ns) + " and answered at " + format_seconds(last_answer_ns) + ")";
        // A new lease taken after that: the client moved on to a new session and left this key
        // behind, renewed by nothing but what was still in flight.
        std::int64_t any_sent_ns = -1;  // its last keep-alive for this lease, however it ended
        for (const auto& c : facts.calls_of(renewer, k.start_ns, until_ns, "lease_keep_alive"))
          if (c->lease == k.lease) any_sent_ns = std::max(any_sent_ns, c->sent_ns);
        for (const auto& c : facts.calls_of(renewer, any_sent_ns, until_ns, "lease_grant"))
          if (c->outcome == "ok" && c->sent_ns > any_sent_ns) {
            s += ", and took a new lease at " + format_seconds(c->end_ns) + ", sending no keep-alive for this one after";
            break;
          }
      }
    }
    // The owner's release that should have deleted it.
    const HistoryEvent* lost_release = nullptr;
    for (const auto& e : facts.history().events) {
      if (e.true_ns > until_ns) break;
      if (e.true_ns < k.start_ns || e.process != k.owner || e.kind != EventKind::invoke) continue;
      if (e.op == "release") {
        const HistoryEvent* done = facts.completion_of(e.index);
        if (done == nullptr || done->kind != EventKind::ok) lost_release = &e;
        break;
      }
    }
    nlohmann::json release_faults = nlohmann::json::array();
    if (lost_release != nullptr && !unanswered) {
      const HistoryEvent* done = facts.completion_of(lost_release->index);
      s += "; " + k.owner + " " + operation_phrase(facts, *lost_release) + ", and the key stayed";
      const std::int64_t until = done ? done->true_ns : facts.end_ns();
      auto faults = facts.faults_hitting(k.owner, lost_release->true_ns, until);
      // And the members its calls went to: a paused or cut-off member holds them.
      std::vector<std::string> members;
      for (const CallRecord* c : facts.calls_of(k.owner, lost_release->true_ns, until))
        if (std::find(members.begin(), members.end(), c->member) == members.end())
          members.push_back(c->member);
      // Faults on those members: a pause or crash, or a cut, delay or loss between members
      // (the way a follower's proposal takes to the leader).
      auto between_members = [](const FaultBand* f) {
        if (f->processes.empty()) return false;
        for (const auto& p : f->processes)
          if (p.rfind("member-", 0) != 0) return false;
        return f->kind == "partition" || f->kind == "delay" || f->kind == "loss";
      };
      for (const auto& m : members)
        for (const FaultBand* f : facts.faults_hitting(m, lost_release->true_ns, until))
          if ((f->kind == "pause" || f->kind == "crash" || between_members(f)) &&
              std::find(faults.begin(), faults.end(), f) == faults.end())
            faults.push_back(f);
      // The leaders while it was pending: the members it called pass writes on to them, so
      // their pauses and crashes held it too.
      for (const auto& t : facts.truth().leaders) {
        const std::int64_t from_ns = std::max(t.start_ns, lost_release->true_ns), to_ns = std::min(t.end_ns, until);
        if (from_ns > to_ns) continue;
        for (const FaultBand* f : facts.faults_hitting(t.member, from_ns, to_ns))
          if ((f->kind == "pause" || f->kind == "crash") && std::find(faults.begin(), faults.end(), f) == faults.end())
            faults.push_back(f);
      }
      // A leadership transfer begun shortly before or while the release was pending: the
      // leader handing over drops every proposal until its successor is elected, and one that
      // a follower passed on to it is lost with no answer (etcd leaves it to the deadline).
      bool forwarded_into_transfer = false;
      for (const auto& f : facts.faults()) {
        if (f.kind != "leader-change" || !f.args.contains("from_member") ||
            f.start_ns < lost_release->true_ns - 1'000'000'000 || f.start_ns > until)
          continue;
        if (std::find(faults.begin(), faults.end(), &f) == faults.end()) faults.push_back(&f);
        const std::string handing_over = "member-" + std::to_string(f.args.value("from_member", -1));
        if (std::find(members.begin(), members.end(), handing_over) == members.end())
          forwarded_into_transfer = true;
      }
      std::stable_sort(faults.begin(), faults.end(),
                       [](const FaultBand* a, const FaultBand* b) { return a->start_ns < b->start_ns; });
      if (!members.empty()) {
        s += " (its calls went to " + join_words(members);
        for (const auto& t : facts.truth().leaders)
          if (t.start_ns <= lost_release->true_ns && lost_release->true_ns < t.end_ns &&
              std::find(members.begin(), members.end(), t.member) == members.end())
            s += "; " + t.member + " led the cluster then";
        s += ")";
      }
      // A call of the release that a member which no longer led dropped.
      for (const CallRecord* c : facts.calls_of(k.owner, lost_release->true_ns, until))
        if (const std::string dropped =
                dropped_words(facts, *c, "its " + c->request + " (call " + std::to_string(c->call) + ")");
            !dropped.empty())
          s += "; " + dropped;
      if (!faults.empty()) s += "; meanwhile " + fault_clauses(faults);
      const std::string gaps =
          leaderless_span_words(facts, whole_leaderless_spans(facts, lost_release->true_ns, until, 100'000'000));
      if (!gaps.empty()) s += "; " + gaps;
      // A leader elected while the release was pending: a request forwarded to the old leader
      // and not yet in its log is not carried over (etcd forwards a proposal once and leaves a
      // lost one to the client's deadline). Said as the fact it is; the key's staying says the
      // rest.
      std::vector<std::string> elected;
      for (const auto& t : facts.truth().leaders)
        if (t.start_ns > lost_release->true_ns && t.start_ns < until)
          elected.push_back(t.member + " at " + format_seconds(t.start_ns) + " (term " + std::to_string(t.term) + ")");
      if (!elected.empty() && gaps.empty())  // a leaderless span said it already
        s += "; the leader changed while it was pending (elected: " + join_words(elected) + ")";
      if (forwarded_into_transfer)
        s += "; a leader handing over drops the proposals it receives, and a request a follower "
             "passed on to it is lost with no answer";
      for (const FaultBand* f : faults) release_faults.push_back(f->start_event);
    }
    if (k.lease == 0 && at_end) {
      // The owner's writes between creating the key and releasing it that did not succeed: a
      // lock that creates first and attaches its expiry next (SETNX, then EXPIRE) lost the
      // second step here. Said as calls, with the faults on their members.
      const std::int64_t writes_until = lost_release != nullptr ? lost_release->true_ns : until_ns;
      std::vector<std::string> lost_writes;
      std::vector<const FaultBand*> write_faults;
      for (const CallRecord* c : facts.calls_of(k.owner, k.start_ns, writes_until)) {
        if ((c->request != "txn" && c->request != "put") || c->outcome == "ok" ||
            c->sent_ns < k.start_ns || c->sent_ns >= writes_until)
          continue;
        lost_writes.push_back(unsuccessful_call_words(*c, /*with_send=*/true));
        const std::int64_t call_end = c->outcome.empty() ? facts.end_ns() : c->end_ns;
        for (const FaultBand* f : facts.faults_hitting(c->member, c->sent_ns, call_end))
          if ((f->kind == "pause" || f->kind == "crash") &&
              std::find(write_faults.begin(), write_faults.end(), f) == write_faults.end())
            write_faults.push_back(f);
      }
      if (!lost_writes.empty()) {
        s += "; after creating it, " + k.owner + "'s next writes did not succeed: " + join_words(lost_writes);
        if (!write_faults.empty()) s += " (" + fault_clauses(write_faults) + ")";
        for (const FaultBand* f : write_faults)
          if (std::find(release_faults.begin(), release_faults.end(), f->start_event) == release_faults.end())
            release_faults.push_back(f->start_event);
      }
      s += "; it had no lease, so nothing would ever delete it";
    } else if (const LeaseLifetime* l = facts.truth().find_lease(k.lease); at_end && l != nullptr && !l->expired_ns) {
      // Not stuck for ever: the key goes when its lease runs out, unless something renews it.
      s += "; its lease " + lease_hex(k.lease) +
           (l->ttl_seconds > 0 ? " (TTL " + std::to_string(l->ttl_seconds) + " s)" : std::string()) +
           " had not expired when the history ended";
      std::int64_t renewed_ns = -1;
      if (const std::string unseen = unseen_renewal_words(facts, k.lease, facts.end_ns(), &renewed_ns); !unseen.empty()) {
        s += " (last renewed at " + format_seconds(renewed_ns) + ", " + unseen;
        // It would have run out before that late renewal but for new leaders: a leader taking
        // over extends every lease by its TTL.
        std::int64_t kept_ns = l->granted_ns >= 0 ? l->granted_ns : l->first_seen_ns;
        for (const CallRecord* c : facts.calls_of(made_for, 0, renewed_ns, "lease_keep_alive"))
          if (c->lease == k.lease && c->outcome == "ok" && c->end_ns < renewed_ns) kept_ns = std::max(kept_ns, c->end_ns);
        std::vector<std::string> elected;
        std::vector<const LeaderTerm*> elections;
        for (const auto& t : facts.truth().leaders)
          if (t.start_ns > kept_ns && t.start_ns < renewed_ns) {
            elected.push_back(t.member + " at " + format_seconds(t.start_ns));
            elections.push_back(&t);
          }
        // And keep-alives its client had given up, let through late, before the last of them.
        std::vector<std::string> late;
        for (const auto& e : facts.history().events) {
          if (e.true_ns >= renewed_ns) break;
          // (Several held keep-alives arrive together: those of the last renewal's moment are it.)
          if (e.kind != EventKind::truth || e.op != "lease-renewed" || e.true_ns <= kept_ns ||
              renewed_ns - e.true_ns < 1'000'000 || int_of(e.args, "lease") != k.lease ||
              !unseen_renewal(facts, e))
            continue;
          const std::string at = format_seconds(e.true_ns);
          if (std::find(late.begin(), late.end(), at) == late.end()) late.push_back(at);
        }
        std::vector<std::string> kept_by;
        if (!elected.empty()) {
          // What made those leaders: the step-downs before them, with the faults behind each.
          const std::string why = new_leader_causes_words(facts, elections);
          kept_by.push_back("each new leader extends every lease (elected since then: " + join_words(elected) + ")" +
                            (why.empty() ? std::string() : ", and " + why));
        }
        if (!late.empty())
          kept_by.push_back("keep-alives whose answers its client never had renewed it " +
                            (late.size() <= 4 ? "at " + join_words(late)
                                              : std::to_string(late.size()) + " times from " + late.front() + " to " + late.back()) +
                            " too");
        if (l->ttl_seconds > 0 && kept_ns + l->ttl_seconds * 1'000'000'000 < renewed_ns && !kept_by.empty())
          s += "; no keep-alive of it was answered from " + format_seconds(kept_ns) + " to " +
               format_seconds(renewed_ns) + ", yet it lived: " +
               kept_by.front() + (kept_by.size() > 1 ? ", and " + kept_by.back() : std::string());
        s += ")";
      }
      s += ", and the key would stay until it did";
    }
    out.say(s + ".", TimeSpan{k.start_ns, until_ns});
    if (!created_late.empty()) out.say(created_late, TimeSpan{by.sent_ns, k.start_ns});
    if (!ahead_words.empty()) out.say(ahead_words, TimeSpan{k.start_ns, until_ns});
    if (cause.value("class", "") != "stalled") continue;  // the first such key is the cause
    if (unanswered || failed_acquire != nullptr) {
      cause = {{"class", "unknown-holder-key"}, {"key", k.key}, {"process", by.client},
               {"request", request_json(by)}};
    } else if (lost_release != nullptr) {
      cause = {{"class", "release-lost"}, {"key", k.key}, {"process", k.owner}, {"faults", release_faults}};
    } else if (k.lease == 0 && crashed) {
      cause = {{"class", "key-without-lease"}, {"key", k.key}, {"process", k.owner}};
    } else {
      cause = {{"class", "key-left"}, {"key", k.key}, {"process", k.owner}};
    }
  }
  if (healed_ns >= 0) {
    // Acquires refused for a lease that is gone: say whose lease expired, and when.
    std::vector<std::string> gone;
    for (const auto& e : facts.history().events) {
      if (e.true_ns < healed_ns || e.kind != EventKind::fail || e.op != "acquire") continue;
      if (e.result.value("error", std::string()) != "lease-not-found") continue;
      if (std::find(gone.begin(), gone.end(), e.process) == gone.end()) gone.push_back(e.process);
    }
    for (const auto& client : gone) {
      // The lease the client's failing acquires used: the last one granted to it before its
      // first lease-not-found (as the history records grants: by the client whose call did).
      std::int64_t first_refused_ns = facts.end_ns();
      for (const auto& e : facts.history().events)
        if (e.process == client && e.kind == EventKind::fail && e.op == "acquire" &&
            e.result.value("error", std::string()) == "lease-not-found") {
          first_refused_ns = e.true_ns;
          break;
        }
      const LeaseLifetime* used = nullptr;
      for (const auto& l : facts.truth().leases)
        if (l.granted_to == client && l.granted_ns <= first_refused_ns &&
            (used == nullptr || l.granted_ns > used->granted_ns))
          used = &l;
      if (used == nullptr || !used->expired_ns) continue;
      bool granted_again = false;
      for (const auto& l : facts.truth().leases)
        if (l.granted_to == client && l.granted_ns > *used->expired_ns) granted_again = true;
      // Said from the first refusal on: acquires between the expiry and that refusal may
      // have ended otherwise (timed out, found the lock busy).
      std::size_t refused = 0;
      for (const auto& e : facts.history().events)
        if (e.process == client && e.kind == EventKind::fail && e.op == "acquire" &&
            e.result.value("error", std::string()) == "lease-not-found")
          ++refused;
      const std::string renewal = last_renewal_words(facts, client, *used);
      out.say(std::to_string(refused) + " of " + client + "'s acquires failed with lease-not-found, the first "
                  "ending at " + format_seconds(first_refused_ns) + ": its lease " +
                  lease_hex(used->lease) + ", granted at " + format_seconds(used->granted_ns) +
                  ", had expired at " + format_seconds(*used->expired_ns) + " (" + used->expired_by +
                  "'s lessor revoked it" + renewal + ")" +
                  (granted_again ? "" : ", and it took no new lease") + ".",
              TimeSpan{*used->expired_ns, first_refused_ns});
      // Why each such lease expired: its renewals, and what stopped them. Each client's own:
      // leases lost at different moments were lost for different reasons (a member cut off
      // stops the renewals of the clients that called it, not of the others).
      Story why;
      const nlohmann::json expiry = explain_lease_expiry(facts, *used, client, why);
      for (std::size_t i = 1; i < why.sentences.size(); ++i) out.say(why.sentences[i], why.spans[i]);
      if (cause.value("class", "") == "stalled") {
        cause = {{"class", "lease-gone"}, {"process", client}, {"lease", used->lease}};
        cause["expiry"] = expiry;
      }
    }
  }
  out.cause = std::move(cause);
  return out;
}

}  // namespace lockstep::reports
