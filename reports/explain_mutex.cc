// The mutex check's explanation: who acquired while whom still believed, what etcd really
// held, why the earlier holder lost its key, and what it did next.
#include <algorithm>
#include <string>

#include "lockstep/reports/causes.h"
#include "lockstep/reports/explain_parts.h"
#include "lockstep/reports/report_text.h"

namespace lockstep::reports {

namespace {

struct Holding {
  std::string process;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = kStillOpen;
  std::string ended_by;
  const HistoryEvent* acquired = nullptr;  // the acquire's ok event
};

bool read_holding(const RunFacts& facts, const nlohmann::json& j, Holding& out) {
  if (!j.is_object() || !j.contains("process") || !j["process"].is_string()) return false;
  out.process = j["process"].get<std::string>();
  out.start_ns = int_of(j, "start_ns");
  out.end_ns = int_of(j, "end_ns", kStillOpen);
  out.ended_by = j.value("ended_by", "");
  out.acquired = facts.event(int_of(j, "start_event", -1));
  return true;
}

std::string revision_note(const Holding& h) {
  if (h.acquired == nullptr) return "";
  const std::int64_t rev = int_of(h.acquired->result, "key_revision");
  return rev != 0 ? " (key revision " + std::to_string(rev) + ")" : "";
}

// The acquire's invoke of a holding (the one its ok completes), or nullptr.
const HistoryEvent* invoke_of(const RunFacts& facts, const Holding& h) {
  if (h.acquired == nullptr) return nullptr;
  for (std::int64_t i = h.acquired->index - 1; i >= 0; --i) {
    const HistoryEvent* e = facts.event(i);
    if (e->process == h.process && e->kind == EventKind::invoke) return e->op == "acquire" ? e : nullptr;
  }
  return nullptr;
}

// The mode the holding was asked for ("shared", "exclusive"), or "".
std::string mode_of(const RunFacts& facts, const Holding& h) {
  const HistoryEvent* invoke = invoke_of(facts, h);
  return invoke != nullptr && invoke->args.is_object() ? invoke->args.value("mode", "") : "";
}

// The puts of another client over `key` while it lived, up to `until_ns` (event indices).
const HistoryEvent* takeover(const RunFacts& facts, const KeyLifetime& key,
                             const std::string& holder, std::int64_t until_ns) {
  for (const std::int64_t i : key.rewrites) {
    const HistoryEvent* put = facts.event(i);
    if (put == nullptr || put->true_ns > until_ns) continue;
    const ChangeCause by = cause_of(*put);
    const std::string value = put->args.is_object() ? put->args.value("value", "") : "";
    if ((!by.client.empty() && by.client != holder) || (by.client.empty() && value != holder))
      return put;
  }
  return nullptr;
}

// A holder that outlived its lease may have been kept in its critical section by faults on its
// way to the resource: its calls there that took 100 ms or more while a fault acted on their way
// (faults_on_way) are named, with those faults, in the cause ("slowed_by").
void slowed_critical_section(const RunFacts& facts, const Holding& earlier, const Holding& later,
                             Story& out) {
  std::vector<std::string> calls;
  std::vector<const FaultBand*> slowed_by;
  for (const auto& e : facts.history().events) {
    if (e.true_ns < earlier.start_ns) continue;
    if (e.true_ns > later.start_ns) break;
    if (e.process != earlier.process || e.kind != EventKind::invoke || (e.op != "read" && e.op != "write"))
      continue;
    const HistoryEvent* done = facts.completion_of(e.index);
    const std::int64_t end_ns = done != nullptr ? done->true_ns : facts.end_ns();
    if (end_ns - e.true_ns < 100'000'000) continue;
    // What acted on its way: a pause of the holder (its answer waits for it), faults on its
    // link to the resource, the resource's stops (or, for a call to etcd, the members').
    bool named = false;
    for (const FaultBand* f : faults_on_way(facts, e, end_ns)) {
      if (std::find(slowed_by.begin(), slowed_by.end(), f) == slowed_by.end()) slowed_by.push_back(f);
      named = true;
    }
    // A call that ended without an answer was not slowed but lost: say how it ended.
    const bool answered = done != nullptr && done->kind == EventKind::ok;
    if (named)
      calls.push_back("its " + e.op + " at " + format_seconds(e.true_ns) +
                      (answered ? " took " + format_duration(end_ns - e.true_ns)
                                : " had no answer for " + format_duration(end_ns - e.true_ns) +
                                      (done != nullptr ? ", ending " + std::string(event_kind_name(done->kind)) + ": " +
                                                             done->result.value("error", std::string("?"))
                                                       : std::string())));
  }
  if (slowed_by.empty()) return;
  out.say("While it held the lock, " + earlier.process + "'s calls to the resource were held up (" +
              join_words(calls) + "): " + fault_clauses(slowed_by) + ".",
          TimeSpan{earlier.start_ns, later.start_ns});
  nlohmann::json starts = nlohmann::json::array();
  for (const FaultBand* f : slowed_by) starts.push_back(f->start_event);
  out.cause["slowed_by"] = starts;
}

// `victim`'s lock key was overwritten by `put` (another client's): says so and, for a plain
// put, the check-then-act race behind it. Returns the cause (class key-overwritten).
nlohmann::json overwritten(const RunFacts& facts, const KeyLifetime& key, const std::string& victim,
                           const HistoryEvent& put, Story& out) {
  const ChangeCause by = cause_of(put);
  std::string s = victim + "'s lock key " + key.key + " was overwritten at " + format_seconds(put.true_ns) +
                  " by " +
                  (by.kind == "request" ? request_words(by) : "a put of " + put.args.value("value", std::string("?")));
  s += ": the key stayed, but now named another holder";
  if (by.request == "put") s += ". A plain put does not check that the key is absent";
  // The overwriter's last read before its put: if it came before the key was created, the
  // check and the put were separate requests with the victim's put between them.
  if (by.kind == "request" && by.sent_ns >= 0) {
    const CallRecord* read = nullptr;
    for (const CallRecord* c : facts.calls_of(by.client, 0, by.sent_ns, "range")) read = c;
    if (read != nullptr && read->sent_ns < key.start_ns)
      s += "; " + by.client + " had read the lock at " + format_seconds(read->sent_ns) + " (call " +
           std::to_string(read->call) + "), before " + victim + "'s put created the key at " +
           format_seconds(key.start_ns) + ": its check and its put were separate requests, and " + victim +
           "'s put came between them";
  }
  s += ".";
  out.say(s, TimeSpan{by.sent_ns >= 0 ? by.sent_ns : put.true_ns, put.true_ns});
  nlohmann::json cause = {{"class", "key-overwritten"}, {"process", victim}, {"key", key.key}};
  if (by.kind == "request") cause["request"] = request_json(by);
  return cause;
}

// What `h` did and saw between its key's deletion and its grant: the requests it sent (and
// whether any read its own key, where the history says), and the last other lock key deleted
// before the grant while it waited (what a waiter watching its predecessor wakes on).
// Why a lock key that went with its lease went when it did, as a clause: "; client-2 had
// crashed at 21.000 s, and member-2's lessor had last renewed the lease at 3.002 s (its grant),
// with a TTL of 60 s". The crash is named when the key's holder crashed while the key stood
// (nothing renewed the lease after). "" when the key went otherwise, the history does not
// record the renewal, or the revoking leader had been deposed by then (its lessor's last
// renewal was not the cluster's: a later leader may have renewed the lease since).
std::string expired_lease_words(const RunFacts& facts, const KeyLifetime& key) {
  const ChangeCause& by = key.deleted_by;
  if (by.kind != "lease-expiry" || by.renewed_ns < 0 || by.leader.empty()) return "";
  for (const LeaderTerm& t : facts.truth().leaders)
    if (by.term != 0 && t.term > by.term && t.start_ns <= key.end_ns) return "";
  std::string s = "; ";
  if (const std::string whose = key_made_for(key); !whose.empty())
    for (const FaultBand* f : facts.faults_hitting(whose, key.start_ns, key.end_ns))
      if (f->kind == "crash" && f->start_ns >= key.start_ns) {
        s += whose + " had crashed at " + format_seconds(f->start_ns) + ", and ";
        break;
      }
  const LeaseLifetime* lease = facts.truth().find_lease(key.lease);
  s += by.leader + "'s lessor had last renewed the lease at " + format_seconds(by.renewed_ns) +
       (by.renewed_by == "grant"             ? " (its grant)"
        : by.renewed_by == "keep-alive"      ? " (a keep-alive)"
        : by.renewed_by == "leader-election" ? " (when " + by.leader + " became leader)"
                                             : std::string());
  if (lease != nullptr && lease->ttl_seconds > 0) s += ", with a TTL of " + std::to_string(lease->ttl_seconds) + " s";
  return s;
}

void wait_end(const RunFacts& facts, const Holding& h, const KeyLifetime& key, Story& out) {
  auto calls = facts.calls_of(h.process, key.end_ns, h.start_ns);
  // One sent in the grant's instant but after it belongs to the next operation, not the wait.
  if (h.acquired != nullptr)
    std::erase_if(calls, [&](const CallRecord* c) { return c->invoke > h.acquired->index; });
  const std::string own = unescape_bytes(key.key).value_or(key.key);
  const std::string span = "between its key's deletion at " + format_seconds(key.end_ns) +
                           " and the grant at " + format_seconds(h.start_ns);
  // A grant by a member's lock service (etcd's v3lock): the client's Lock call waited in the
  // server across the deletion, and the server's Mutex answered it.
  const CallRecord* lock_call = nullptr;
  for (const CallRecord* c : facts.calls_of(h.process, 0, h.start_ns, "lock"))
    if (c->outcome == "ok" && c->end_ns <= h.start_ns) lock_call = c;
  if (lock_call != nullptr && lock_call->sent_ns <= key.end_ns) {
    out.say(h.process + "'s lock call " + std::to_string(lock_call->call) + ", sent to " +
                lock_call->member + " at " + format_seconds(lock_call->sent_ns) + ", was waiting in " +
                lock_call->member + "'s lock service when the key was deleted; the service answered it at " +
                format_seconds(lock_call->end_ns) +
                " without reading the key again (etcd 3.4.23's lock service runs the Mutex with no re-check).",
            TimeSpan{lock_call->sent_ns, h.start_ns});
  } else if (calls.empty()) {
    out.say(h.process + " sent no request " + span + ": it did not read its own key again.",
            TimeSpan{key.end_ns, h.start_ns});
  } else {
    std::string list;
    bool all_known = true, read_own = false;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const CallRecord& c = *calls[i];
      const auto touched = c.touches(own);
      all_known = all_known && touched.has_value();
      read_own = read_own || touched.value_or(false);
      if (i < 3) {
        std::string what = c.request.empty() ? "request" : c.request;
        if (c.request == "range" && c.key)
          what += c.range_end.empty() ? " of " + escape_bytes(*c.key)
                                      : " of the keys from " + escape_bytes(*c.key) + " to " + escape_bytes(c.range_end);
        list += std::string(i == 0 ? "" : ", ") + what + " (call " + std::to_string(c.call) + ", at " +
                format_seconds(c.sent_ns) + ")";
      }
    }
    if (calls.size() > 3) list += " and " + std::to_string(calls.size() - 3) + " more";
    std::string s = h.process + " sent " + std::to_string(calls.size()) +
                    (calls.size() == 1 ? " request " : " requests ") + span + ": " + list;
    if (all_known && !read_own) s += "; none of them read its own key";
    out.say(s + ".", TimeSpan{key.end_ns, h.start_ns});
  }
  // The last lock key queued ahead of its own (an older one) deleted while it waited: what a
  // waiter that watches the keys before its own woke on. A newer key's deletion could not
  // wake it.
  const HistoryEvent* invoke = invoke_of(facts, h);
  const std::int64_t waited_from = invoke != nullptr ? invoke->true_ns : key.start_ns;
  const KeyLifetime* last = nullptr;
  for (const KeyLifetime& k : facts.truth().keys) {
    if (&k == &key || k.key == key.key || !facts.is_lock_key(k) || k.create_revision >= key.create_revision)
      continue;
    if (k.end_ns == kStillOpen || k.end_ns < waited_from || k.end_ns > h.start_ns) continue;
    if (last == nullptr || k.end_ns >= last->end_ns) last = &k;
  }
  if (last == nullptr) return;
  const ChangeCause& by = last->deleted_by;
  std::string how = by.kind == "request"  ? "by " + request_words(by)
                    : by.kind == "lease-expiry" || last->deleted_by_lease_expiry ? "with its lease"
                                                                                 : "";
  std::string s = "The last lock key ahead of " + h.process + "'s own (revision " +
                  std::to_string(key.create_revision) + ") deleted while it waited was " +
                  (key_made_for(*last).empty() ? std::string("the key ") : key_made_for(*last) + "'s key ") + last->key +
                  " (revision " + std::to_string(last->create_revision) + "), at " + format_seconds(last->end_ns) +
                  (how.empty() ? "" : " " + how) + ", " + format_duration(h.start_ns - last->end_ns) +
                  " before the grant" +
                  expired_lease_words(facts, *last);
  // A grant long after that deletion: the news of it was held on its way to the waiter (a cut
  // of its links, a delay, a pause of the waiter).
  if (h.start_ns - last->end_ns >= 1'000'000'000) {
    std::vector<const FaultBand*> held;
    for (const FaultBand* f : facts.faults_hitting(h.process, last->end_ns, h.start_ns))
      if (f->kind == "partition" || f->kind == "delay" || f->kind == "loss" || f->kind == "pause")
        held.push_back(f);
    if (!held.empty()) s += "; in between, " + fault_clauses(held, 3);
  }
  out.say(s + ".", TimeSpan{last->end_ns, h.start_ns});
}

// A lock taken on a lease that had already run out by its lessor's last renewal (in true time,
// as the lessor's clock counted the TTL): its key was created on it, or a waiter's key stood
// until the grant only because the revoke had not committed yet (a waiter paused past its
// TTL). Says so and sets cause["lease_run_out_before_grant"] when `cause` (the key's loss) is a
// lease's expiry. Not when a deposed leader revoked it: its lessor's last renewal is not the
// cluster's (the leaders after it renewed the lease, and by them it had not run out).
void lost_before_taken(const RunFacts& facts, const std::string& process, std::int64_t grant_ns,
                       const KeyLifetime& key_lost, nlohmann::json& cause, Story& out) {
  const KeyLifetime* key = &key_lost;
  const LeaseLifetime* lease = cause.value("class", "") == "lease-expired" && key->lease != 0 &&
                                       !cause.value("deposed_leader", false)
                                   ? facts.truth().find_lease(key->lease)
                                   : nullptr;
  // The lessor counts the TTL on its own monotonic clock: a clock fault of its member moves
  // the lease's end in true time.
  const std::int64_t run_out_ns =
      lease != nullptr ? monotonic_deadline_ns(facts.faults(), lease->expired_by, lease->expiry.renewed_ns,
                                               lease_span_from_renewal_ns(facts.truth(), *lease,
                                                                          lease->expiry.renewed_by))
                       : 0;
  // The clock faults that moved that end: a jump between the renewal and the end, a drift
  // active in that time.
  std::vector<const FaultBand*> lessor_clock;
  if (lease != nullptr)
    for (const FaultBand* f : facts.faults_hitting(lease->expired_by, lease->expiry.renewed_ns, run_out_ns)) {
      if (f->kind != "clock" || f->args.value("clock", std::string("monotonic")) == "wall") continue;
      const bool jump_in = f->args.value("amount_ms", std::int64_t{0}) != 0 && f->start_ns > lease->expiry.renewed_ns;
      const bool drift = f->args.value("rate_ppm", std::int64_t{0}) > 0;
      if (jump_in || drift) lessor_clock.push_back(f);
    }
  if (lease != nullptr && lease->ttl_seconds > 0 && lease->expiry.renewed_ns >= 0 &&
      run_out_ns < grant_ns) {
    std::string until = "its lessor had last renewed it at " + format_seconds(lease->expiry.renewed_ns) +
                        ", with a TTL of " + std::to_string(lease->ttl_seconds) + " s" +
                        (lease->expiry.renewed_by == "leader-election"
                             ? " and the election timeout a new leader adds (it renewed the lease by its promotion)"
                             : "") +
                        ", so until " + format_seconds(run_out_ns);
    if (!lessor_clock.empty())
      until += " (in true time, as " + lease->expired_by + "'s faulted clock counted the TTL: " +
               fault_clauses(lessor_clock, 3) + ")";
    if (run_out_ns < key->start_ns)
      out.say(process + " created its lock key at " + format_seconds(key->start_ns) +
                  " on a lease that had already run out: " + until + ". The lock was lost before it was taken.",
              TimeSpan{lease->expiry.renewed_ns, key->start_ns});
    else if (key->end_ns > grant_ns)
      out.say(process + " was granted the lock at " + format_seconds(grant_ns) +
                  " on a lease that had already run out: " + until + "; its key, created at " +
                  format_seconds(key->start_ns) + ", still stood only because the revoke had not committed yet. "
                  "The lock was lost before it was taken.",
              TimeSpan{lease->expiry.renewed_ns, grant_ns});
    else
      return;  // the key was gone at the grant, and had been created in time: said elsewhere
    cause["lease_run_out_before_grant"] = true;
  }
}

// A lease whose revoke committed before `grant_ns` although, at nominal clock speed, its TTL
// from the lessor's last renewal ran past the grant: the lessor, which counts the TTL on its
// own monotonic clock, cut it short (its clock ran fast or jumped). Says so, with the lessor's
// clock faults, and returns true; false (nothing said) otherwise. The holder did not outlive
// its lease then: the limit of leases it shows is their trust in the lessor's clock.
bool lease_cut_short(const RunFacts& facts, const KeyLifetime& key, const std::string& holder,
                     const std::string& grantee, std::int64_t grant_ns, Story& out) {
  const std::int64_t nominal_end_ns = nominal_lease_end_ns(facts.truth(), key);
  const LeaseLifetime* lease = facts.truth().find_lease(key.lease);
  if (nominal_end_ns < 0 || grant_ns >= nominal_end_ns || lease == nullptr) return false;
  const ChangeCause& by = key.deleted_by;
  const std::string& lessor = by.leader;
  const std::int64_t found_ns = by.found_ns >= 0 ? by.found_ns : key.end_ns;
  std::vector<const FaultBand*> clock;
  for (const FaultBand* f : facts.faults_hitting(lessor, by.renewed_ns, found_ns))
    if (f->kind == "clock" && f->args.value("clock", std::string("monotonic")) != "wall") clock.push_back(f);
  out.say("The lease was cut short" +
              (clock.empty() ? std::string() : " by " + lessor + "'s clock (" + fault_clauses(clock, 3) + ")") +
              ": " + lessor + "'s lessor, which counts the TTL on its own monotonic clock, found it expired at " +
              format_seconds(found_ns) + ", " + format_duration(found_ns - by.renewed_ns) + " after renewing it at " +
              format_seconds(by.renewed_ns) + "; at nominal speed its TTL of " + std::to_string(lease->ttl_seconds) +
              (by.renewed_by == "leader-election" ? " s, with the election timeout a new leader adds, runs until "
                                                  : " s runs until ") +
              format_seconds(nominal_end_ns) + ", after " + grantee + "'s grant at " +
              format_seconds(grant_ns) + ". " + holder + " had not outlived its lease; only fencing at the "
              "protected resource makes a lessor's fast clock harmless.",
          TimeSpan{by.renewed_ns, grant_ns});
  return true;
}

// `h` was told it held the lock although its own key was already gone: says so, what it did
// between the deletion and the grant, then why the key went (class grantee-key-gone, the key's
// loss under "lost").
nlohmann::json wrong_grant(const RunFacts& facts, const Holding& h, const KeyLifetime& key, Story& out) {
  out.say(h.process + " was told it held the lock at " + format_seconds(h.start_ns) +
              " although its own lock key " + key.key + " was already gone.",
          TimeSpan{key.end_ns, h.start_ns});
  wait_end(facts, h, key, out);
  nlohmann::json lost = explain_key_loss(facts, key, h.process, out);
  lost_before_taken(facts, h.process, h.start_ns, key, lost, out);
  return {{"class", "grantee-key-gone"}, {"process", h.process}, {"key", key.key}, {"lost", lost}};
}

// Both keys existed when `granted` was granted (at `at_ns`) while `holder`, queued before it,
// held the lock: says so, what `granted` may have taken for its turn (a key queued between
// them that went), and a check-then-act race when its last read came before `holder`'s key.
nlohmann::json granted_while_key_held(const RunFacts& facts, const Holding& holder, const KeyLifetime& held_key,
                                      const Holding& granted, const KeyLifetime* granted_key,
                                      std::int64_t at_ns, Story& out) {
  const std::string modes = mode_of(facts, holder) == mode_of(facts, granted) || mode_of(facts, holder).empty()
                                ? std::string()
                                : " (" + holder.process + " in " + mode_of(facts, holder) + " mode, " +
                                      granted.process + " in " + mode_of(facts, granted) + " mode)";
  const bool queued_before = granted_key != nullptr && held_key.create_revision < granted_key->create_revision;
  out.say(holder.process + "'s lock key " + held_key.key + " (created at " + format_seconds(held_key.start_ns) +
              ", revision " + std::to_string(held_key.create_revision) + ")" +
              (queued_before ? ", older than " + granted.process + "'s" : std::string()) +
              ", still existed in etcd when " + granted.process + " was granted the lock at " +
              format_seconds(at_ns) +
              (granted_key ? ", and so did " + granted.process + "'s own (" + granted_key->key + ", revision " +
                                 std::to_string(granted_key->create_revision) + ")"
                           : std::string()) +
              ": the algorithm let " + granted.process + " in while " + holder.process + "'s key was there" +
              modes + "; no request had deleted " + holder.process + "'s key and its lease had not expired.",
          TimeSpan{held_key.start_ns, at_ns});
  // What the grantee may have taken as its turn: the last lock key to go while it
  // waited, when that key was queued after the holder's (a predecessor that was a waiter,
  // not the holder: its going says nothing about the holder).
  const HistoryEvent* waiting = invoke_of(facts, granted);
  const KeyLifetime* gone = nullptr;
  for (const auto& k : facts.truth().keys)
    if (&k != &held_key && &k != granted_key && waiting != nullptr && k.end_ns >= waiting->true_ns &&
        k.end_ns <= at_ns &&
        (gone == nullptr || k.end_ns > gone->end_ns ||
         (k.end_ns == gone->end_ns && k.delete_revision > gone->delete_revision)))
      gone = &k;
  nlohmann::json woken_by;
  if (gone != nullptr && gone->create_revision > held_key.create_revision) {
    const std::string made_for = key_made_for(*gone);
    const std::string owner = made_for.empty() ? std::string("another client") : made_for;
    out.say("The last lock key to go while " + granted.process + " waited, " +
                format_duration(at_ns - gone->end_ns) + " before its grant, was " + owner +
                "'s (revision " + std::to_string(gone->create_revision) + "), queued after " +
                holder.process + "'s (revision " + std::to_string(held_key.create_revision) +
                "): its going did not mean " + holder.process + " was done.",
            TimeSpan{gone->end_ns, at_ns});
    woken_by = explain_key_loss(facts, *gone, owner, out);
  }
  // A check-then-act race: the grantee's last read before its grant was answered before
  // the holder's key existed.
  const CallRecord* read = nullptr;
  if (waiting != nullptr)
    for (const CallRecord* c : facts.calls_of(granted.process, waiting->true_ns, at_ns, "range"))
      if (c->end_ns < at_ns) read = c;
  if (read != nullptr && read->end_ns < held_key.start_ns)
    out.say(granted.process + "'s last read of the lock before its grant (call " + std::to_string(read->call) +
                ") was answered at " + format_seconds(read->end_ns) + ", before " + holder.process +
                "'s key was created at " + format_seconds(held_key.start_ns) +
                ": a check-then-act race, its check and its taking of the lock being separate requests.",
            TimeSpan{read->sent_ns, held_key.start_ns});
  nlohmann::json cause = {{"class", "granted-while-key-held"}, {"process", granted.process}, {"key", held_key.key}};
  if (!woken_by.is_null()) cause["after_key_gone"] = woken_by;
  return cause;
}

// An acquire that sent no request that writes, yet reported a lock key older than itself, took
// the lock on what an earlier acquire of the same client had left (a re-entrant lock's owner
// record read back): says so, with that client's last release before it when that release
// failed to remove the key.
void acquire_without_write(const RunFacts& facts, const Holding& h, const KeyLifetime& key, Story& out) {
  const HistoryEvent* invoke = invoke_of(facts, h);
  if (invoke == nullptr || key.start_ns >= invoke->true_ns) return;
  std::vector<std::string> sent;
  for (const CallRecord* c : facts.calls_of(h.process, invoke->true_ns, h.start_ns)) {
    if (c->invoke != invoke->index) continue;
    if (c->request != "range") return;  // it wrote, or asked for a lease: not a bare re-entry
    sent.push_back(c->request + " (call " + std::to_string(c->call) + ")");
  }
  std::string s = h.process + "'s acquire at " + format_seconds(invoke->true_ns) + " took the lock without writing (" +
                  (sent.empty() ? std::string("it sent no request") : "it sent only a " + join_words(sent)) +
                  "): it counted on its lock key from " + format_seconds(key.start_ns) + " (revision " +
                  std::to_string(key.create_revision) + ")";
  // The last release between the key's creation and this acquire that sent requests.
  const HistoryEvent* release = nullptr;
  for (const auto& e : facts.history().events) {
    if (e.true_ns < key.start_ns) continue;
    if (e.true_ns >= invoke->true_ns) break;
    if (e.process != h.process || e.kind != EventKind::invoke || e.op != "release") continue;
    for (const CallRecord* c : facts.calls_of(h.process, e.true_ns, invoke->true_ns))
      if (c->invoke == e.index) release = &e;
  }
  const HistoryEvent* done = release != nullptr ? facts.completion_of(release->index) : nullptr;
  if (key.end_ns <= h.start_ns) {
    s += ", although that key was deleted at " + format_seconds(key.end_ns) + ", before the acquire's answer";
  } else if (release != nullptr && done != nullptr && done->kind != EventKind::ok) {
    s += ", which its release at " + format_seconds(release->true_ns) + " had failed to remove (" +
         std::string(done->kind == EventKind::info ? "indeterminate: " : "failed: ") +
         done->result.value("error", std::string("?")) + ")";
  }
  // What the acquire could have read: the keys still under its lease (an owner record, say).
  const std::int64_t lease = h.acquired != nullptr ? int_of(h.acquired->result, "lease") : 0;
  std::vector<std::string> others;
  if (lease != 0)
    for (const std::string& k : keys_of_lease_at(facts, lease, invoke->true_ns))
      if (k != key.key) others.push_back(k);
  if (!others.empty())
    s += "; under its lease " + lease_hex(lease) + " stood " + join_words(others) + " when it asked";
  s += "; it sent nothing that would renew or re-create that key.";
  out.say(s, TimeSpan{invoke->true_ns, h.start_ns});
  out.cause["reentered"] = {{"process", h.process}, {"invoke", invoke->index}};
}

// Walks back from the later grant to what removed the earlier holder's protection, or to the
// later holder's own lost key, and says it. Returns the cause.
nlohmann::json explain_cause(const RunFacts& facts, const Holding& earlier, const Holding& later,
                             Story& out) {
  const std::int64_t grant_ns = later.start_ns;
  if (facts.truth().keys.empty()) {
    // No truth recorded (a real cluster): only what the clients saw, and the faults on them.
    auto own = facts.faults_hitting(earlier.process, earlier.start_ns, grant_ns);
    if (!own.empty()) out.say("Meanwhile " + fault_clauses(own) + ".");
    return {{"class", "unknown"}, {"process", earlier.process}};
  }
  const std::int64_t rev = earlier.acquired ? int_of(earlier.acquired->result, "key_revision") : 0;
  const KeyLifetime* key = facts.key_of(earlier.process, rev, earlier.start_ns);
  const std::int64_t later_rev = later.acquired ? int_of(later.acquired->result, "key_revision") : 0;
  const KeyLifetime* later_key = facts.key_of(later.process, later_rev, grant_ns);
  if (key != nullptr && key->end_ns <= earlier.start_ns) {
    // Gone before the earlier holder was even told it held the lock: that grant was wrong.
    nlohmann::json cause = wrong_grant(facts, earlier, *key, out);
    // The later grant may be just as wrong: say so, so that neither holder looks rightful.
    if (later_key != nullptr && later_key != key && later_key->end_ns <= grant_ns) {
      out.say(later.process + "'s own lock key " + later_key->key + " (revision " +
                  std::to_string(later_key->create_revision) + ") was gone too when it was granted at " +
                  format_seconds(grant_ns) + ": deleted at " + format_seconds(later_key->end_ns) +
                  deletion_words(*later_key) + ". Neither holder's key existed.",
              TimeSpan{later_key->end_ns, grant_ns});
      cause["later_key_gone"] = later_key->key;
    }
    return cause;
  }
  if (key != nullptr && key->end_ns <= grant_ns) {
    nlohmann::json cause = explain_key_loss(facts, *key, earlier.process, out);
    // Taken on a lease that had already run out: lost before it was taken.
    lost_before_taken(facts, earlier.process, earlier.start_ns, *key, cause, out);
    // Not the limit of leases when the holder gave its lease up itself, when a deposed
    // leader revoked a lease the new leader kept alive (etcd's bug), or when the lease had run
    // out before the lock was taken.
    const bool no_fault = !cause.contains("faults") || cause["faults"].empty();
    if (cause.value("class", "") == "lease-expired" && cause.value("no_keep_alive_in_run", false) &&
        no_fault && !cause.value("deposed_leader", false)) {
      // No fault kept the holder from renewing, and it never did: its holding had to fit in the
      // TTL (a lock with a fixed expiry), and did not.
      cause["never_renewed"] = true;
      const LeaseLifetime* fixed = facts.truth().find_lease(key->lease);
      out.say(earlier.process +
              (cause.value("no_keep_alive_by_anyone", false) ? std::string(" held the lock ")
                                                             : " renewed no lease in this run although no fault stopped it, "
                                                               "and held the lock ") +
              "past the lease's TTL" +
              (fixed != nullptr && fixed->ttl_seconds > 0 ? " of " + std::to_string(fixed->ttl_seconds) + " s"
                                                          : std::string()) +
              ": etcd gave the lock to " + later.process + " while " + earlier.process +
              " still believed it held it.");
    } else if (cause.value("class", "") == "lease-expired" && !cause.value("holder_revoked", false) &&
               !cause.value("deposed_leader", false) && !cause.value("lease_run_out_before_grant", false) &&
               lease_cut_short(facts, *key, earlier.process, later.process, grant_ns, out)) {
      cause["lease_cut_short"] = true;
    } else if (cause.value("class", "") == "lease-expired" && !cause.value("holder_revoked", false) &&
        !cause.value("deposed_leader", false) && !cause.value("lease_run_out_before_grant", false)) {
      out.say("This is the inherent limit of leases: " + earlier.process +
              " still believed it held the lock after etcd had expired its lease and given "
              "the lock to " + later.process + "; only fencing at the protected resource makes "
              "that harmless.");
      cause["inherent_lease_limit"] = true;
    }
    return cause;
  }
  if (key != nullptr) {
    if (const HistoryEvent* put = takeover(facts, *key, earlier.process, grant_ns))
      return overwritten(facts, *key, earlier.process, *put, out);
  }
  // The earlier holder's key stood: was the later one's own key gone?
  if (later_key != nullptr && later_key->end_ns <= grant_ns) return wrong_grant(facts, later, *later_key, out);
  if (key != nullptr) {
    // Both keys stood at the grant. The wrong grant is the one made while a key queued before
    // the grantee's own was there: usually the later one, but when the later holder's key is
    // the older (it was next in line), the earlier holder jumped the queue.
    if (later_key != nullptr && later_key->create_revision < key->create_revision &&
        later_key->start_ns <= earlier.start_ns && later_key->end_ns > earlier.start_ns)
      return granted_while_key_held(facts, later, *later_key, earlier, key, earlier.start_ns, out);
    return granted_while_key_held(facts, earlier, *key, later, later_key, grant_ns, out);
  }
  // The earlier holder took the lock by overwriting the later one's key (a plain put): the
  // later one's key had been taken over before it was told it held the lock.
  if (later_key != nullptr)
    if (const HistoryEvent* put = takeover(facts, *later_key, later.process, grant_ns))
      return overwritten(facts, *later_key, later.process, *put, out);
  out.say("The history records no lock key for " + earlier.process + "'s acquire at " +
          format_seconds(earlier.start_ns) + ".");
  return {{"class", "unknown"}, {"process", earlier.process}};
}

// What a client did from `from_ns` until its belief ended.
std::vector<std::string> actions(const RunFacts& facts, const std::string& process,
                                 std::int64_t from_ns, std::int64_t to_ns, std::size_t max_count,
                                 const std::string& only_op = "") {
  std::vector<std::string> out;
  std::size_t more = 0;
  for (const auto& e : facts.history().events) {
    if (e.true_ns < from_ns) continue;
    if (e.true_ns > to_ns) break;
    if (e.process != process || e.kind != EventKind::invoke) continue;
    if (!only_op.empty() && e.op != only_op) continue;
    if (out.size() < max_count)
      out.push_back(operation_phrase(facts, e));
    else
      ++more;
  }
  if (more > 0) out.push_back("did " + std::to_string(more) + " more operations");
  return out;
}

// Releases from `from_ns` on whose request deleted a lock key another client owned: each
// removed a holder's key and could let a waiter in beside it (how one overlap breeds more).
void foreign_releases(const RunFacts& facts, std::int64_t from_ns, Story& out) {
  const KeyLifetime* first = nullptr;
  std::string first_owner;
  std::int64_t first_revision = 0;
  std::size_t count = 0;
  for (const auto& key : facts.truth().keys) {
    const ChangeCause& by = key.deleted_by;
    if (key.end_ns < from_ns || by.kind != "request" || key.owner.empty() || !facts.is_lock_key(key)) continue;
    // Whose it was when deleted: a put over it (a plain put taking the lock) made it the
    // writer's, so the key its creator held is another's by then, and an owner record the
    // deleter wrote itself made it the deleter's own.
    std::int64_t revision = 0;
    const std::string owner = key_owner_at(facts, key, key.end_ns, revision);
    if (owner.empty() || owner == by.client) continue;
    const CallRecord* call = facts.find_call(by.client, by.call);
    const HistoryEvent* op = call != nullptr ? facts.event(call->invoke) : nullptr;
    if (op == nullptr || op->op != "release") continue;
    ++count;
    if (first == nullptr || key.end_ns < first->end_ns) {
      first = &key;
      first_owner = owner;
      first_revision = revision;
    }
  }
  if (first == nullptr) return;
  const ChangeCause& by = first->deleted_by;
  const HistoryEvent* op = facts.event(facts.find_call(by.client, by.call)->invoke);
  out.say("From then on, releases deleted lock keys of other clients " +
              (count == 1 ? std::string("once") : std::to_string(count) + " times") + ": first " + by.client +
              "'s release at " + format_seconds(op->true_ns) + " deleted " + first_owner + "'s key " + first->key +
              " (revision " + std::to_string(first_revision) + ") at " + format_seconds(first->end_ns) +
              ", by " + request_words(by) + ". A release that deletes the lock key without checking whose it is "
              "removes the current holder's key and can let the next waiter in beside it.",
          TimeSpan{op->true_ns, first->end_ns});
}

}  // namespace

Story explain_mutex(const RunFacts& facts, const nlohmann::json& check) {
  const nlohmann::json w = check.value("witness", nlohmann::json::object());
  Holding earlier, later;
  if (!w.is_object() || !read_holding(facts, w.value("earlier", nlohmann::json()), earlier) ||
      !read_holding(facts, w.value("later", nlohmann::json()), later))
    return {};
  Story out;
  out.say(later.process + " acquired the lock at " + format_seconds(later.start_ns) +
              revision_note(later) + " while " + earlier.process +
              " still believed it held the lock since " + format_seconds(earlier.start_ns) +
              revision_note(earlier) + ".",
          TimeSpan{later.start_ns, later.start_ns});
  out.cause = explain_cause(facts, earlier, later, out);
  for (const Holding* h : {&earlier, &later}) {
    const std::int64_t rev = h->acquired ? int_of(h->acquired->result, "key_revision") : 0;
    if (const KeyLifetime* key = facts.key_of(h->process, rev, h->start_ns); key != nullptr && out.cause.is_object())
      acquire_without_write(facts, *h, *key, out);
  }
  if (out.cause.value("class", "") == "lease-expired") {
    slowed_critical_section(facts, earlier, later, out);
    // The holder's own pauses and crashes while it held the lock that the lease's story left
    // out (over before a keep-alive was due, they stopped none, but kept it in its critical
    // section: one ending just before another made the whole stop longer than the TTL).
    std::vector<const FaultBand*> also;
    const nlohmann::json named = out.cause.value("faults", nlohmann::json::array());
    for (const FaultBand* f : facts.faults_hitting(earlier.process, earlier.start_ns, later.start_ns))
      if ((f->kind == "pause" || f->kind == "crash") &&
          std::find(named.begin(), named.end(), nlohmann::json(f->start_event)) == named.end())
        also.push_back(f);
    if (!also.empty()) {
      out.say("While it held the lock, " + fault_clauses(also) + ".", TimeSpan{earlier.start_ns, later.start_ns});
      for (const FaultBand* f : also) out.cause["faults"].push_back(f->start_event);
    }
  }
  if (facts.faults().empty() && !facts.truth().keys.empty())
    out.say("No fault was injected in this run: the requests' ordinary interleaving was enough.");
  out.end_chain();

  // What the earlier holder did while the later one held: this is where damage is done.
  const std::int64_t earlier_end = earlier.end_ns == kStillOpen ? facts.end_ns() : earlier.end_ns;
  auto did = actions(facts, earlier.process, later.start_ns, earlier_end, 3);
  std::string resumed;
  for (const FaultBand* f : facts.faults_hitting(earlier.process, later.start_ns, later.start_ns))
    if (f->kind == "pause" && !f->open_end) resumed = " resumed at " + format_seconds(f->end_ns) + " and";
  if (!did.empty()) {
    // Steps that read alike (a re-entrant holder's releases, one per acquire) are said once.
    std::string steps;
    for (std::size_t i = 0; i < did.size();) {
      std::size_t same = 1;
      while (i + same < did.size() && did[i + same] == did[i]) ++same;
      steps += (i == 0 ? "" : "; then ") + did[i] +
               (same == 1 ? std::string() : same == 2 ? " (twice)" : " (" + std::to_string(same) + " times)");
      i += same;
    }
    out.say(earlier.process + (resumed.empty() ? " then" : resumed) + " " + steps + ".");
  } else if (earlier.ended_by == "crash") {
    out.say(earlier.process + " crashed at " + format_seconds(earlier.end_ns) + ".");
  } else if (earlier.end_ns == kStillOpen) {
    out.say(earlier.process + " still believed it held the lock when the history ended.");
  }

  const std::int64_t overlap_start = int_of(w, "overlap_start_ns", later.start_ns);
  const std::int64_t overlap_end = int_of(w, "overlap_end_ns", facts.end_ns());
  auto writes = actions(facts, later.process, overlap_start, overlap_end, 1, "write");
  if (!writes.empty() && writes.front().find("more operations") == std::string::npos)
    out.say("Meanwhile " + later.process + " " + writes.front() + ".");
  std::string overlap = "The two beliefs overlapped for " +
                        format_duration(overlap_end - overlap_start) + ", from " +
                        format_seconds(overlap_start) + " to " + format_seconds(overlap_end);
  const std::int64_t pairs = int_of(check.value("figures", nlohmann::json::object()), "overlaps");
  if (pairs > 1) overlap += "; the check found " + std::to_string(pairs) + " overlapping pairs in all";
  out.say(overlap + ".", TimeSpan{overlap_start, overlap_end});
  if (pairs > 1) foreign_releases(facts, later.start_ns, out);
  return out;
}

}  // namespace lockstep::reports
