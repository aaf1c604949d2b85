#include "lockstep/checker/lock_truth.h"

#include <algorithm>
#include <map>
#include <set>

namespace lockstep {

namespace {

std::int64_t int_field(const nlohmann::json& j, const char* field) {
  if (!j.is_object() || !j.contains(field)) return 0;
  const auto& v = j[field];
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_unsigned()) return static_cast<std::int64_t>(v.get<std::uint64_t>());
  return 0;
}

std::string string_field(const nlohmann::json& j, const char* field) {
  if (!j.is_object() || !j.contains(field) || !j[field].is_string()) return "";
  return j[field].get<std::string>();
}

const nlohmann::json& cause_field(const nlohmann::json& args) {
  static const nlohmann::json none;
  if (!args.is_object()) return none;
  const auto it = args.find("cause");
  return it == args.end() ? none : *it;
}

class LeaseBook {
 public:
  explicit LeaseBook(LockTruth& truth) : truth_(truth) {}

  void seen(std::int64_t lease, std::int64_t at_ns, const std::string& owner) {
    if (lease == 0) return;
    LeaseLifetime& l = get(lease, at_ns);
    l.first_seen_ns = std::min(l.first_seen_ns, at_ns);
    l.last_seen_ns = std::max(l.last_seen_ns, at_ns);
    if (l.owner.empty()) l.owner = owner;
  }
  void expired(std::int64_t lease, const HistoryEvent& e) {
    if (lease == 0) return;
    LeaseLifetime& l = get(lease, e.true_ns);
    if (l.expired_ns) return;  // only one revoke can commit; older files may repeat it
    l.expired_ns = e.true_ns;
    l.expired_by = e.process;
    l.expired_event = e.index;
    l.expiry = parse_change_cause(e.args);
    l.expiry.kind = "lease-expiry";
    l.expiry.lease = lease;
    if (l.expiry.leader.empty()) l.expiry.leader = e.process;
    l.last_seen_ns = std::max(l.last_seen_ns, e.true_ns);
  }
  void revoke_attempt(std::int64_t lease, const HistoryEvent& e) {
    if (lease == 0) return;
    get(lease, e.true_ns).revoke_attempts.push_back(e.index);
  }

 private:
  LeaseLifetime& get(std::int64_t lease, std::int64_t at_ns) {
    auto it = truth_.lease_index.find(lease);
    if (it != truth_.lease_index.end()) return truth_.leases[it->second];
    truth_.lease_index[lease] = truth_.leases.size();
    LeaseLifetime l;
    l.lease = lease;
    l.first_seen_ns = at_ns;
    l.last_seen_ns = at_ns;
    truth_.leases.push_back(l);
    return truth_.leases.back();
  }
  LockTruth& truth_;
};

}  // namespace

ChangeCause parse_change_cause(const nlohmann::json& cause) {
  ChangeCause c;
  if (!cause.is_object()) return c;
  c.kind = string_field(cause, "kind");
  c.request = string_field(cause, "request");
  c.client = string_field(cause, "client");
  c.call = int_field(cause, "call");
  c.member = string_field(cause, "member");
  if (cause.contains("sent_ns")) c.sent_ns = int_field(cause, "sent_ns");
  if (cause.contains("abandoned_ns")) c.abandoned_ns = int_field(cause, "abandoned_ns");
  if (cause.contains("for_client")) {
    // Named by the client call it served: the explanations follow that call.
    c.lock_service = c.client;
    c.lock_service_call = c.call;
    c.for_request = string_field(cause, "for_request");
    c.client = string_field(cause, "for_client");
    c.call = int_field(cause, "for_call");
    c.abandoned_ns.reset();
    if (cause.contains("for_call_abandoned_ns"))
      c.abandoned_ns = int_field(cause, "for_call_abandoned_ns");
  }
  c.lease = int_field(cause, "lease");
  c.leader = string_field(cause, "leader");
  c.term = int_field(cause, "term");
  if (cause.contains("found_ns")) c.found_ns = int_field(cause, "found_ns");
  if (cause.contains("renewed_ns")) c.renewed_ns = int_field(cause, "renewed_ns");
  c.renewed_by = string_field(cause, "renewed_by");
  return c;
}

ChangeCause cause_of(const HistoryEvent& event) { return parse_change_cause(cause_field(event.args)); }

const LeaseLifetime* LockTruth::find_lease(std::int64_t lease) const {
  auto it = lease_index.find(lease);
  return it == lease_index.end() ? nullptr : &leases[it->second];
}

const KeyLifetime* LockTruth::key_acquired(const std::string& process, std::int64_t key_revision,
                                           std::int64_t at_ns) const {
  const KeyLifetime* latest = nullptr;
  for (const auto& k : keys) {
    if (k.owner != process) continue;
    if (key_revision != 0 && k.create_revision == key_revision) return &k;
    if (k.start_ns <= at_ns) latest = &k;
  }
  return latest;
}

namespace {

// Whether `process` sent no keep-alive for `lease` and no fault that could stop its keep-alives
// was active between `from_ns` and `to_ns`: a lease its holder never renewed although nothing
// stopped it (an algorithm without renewal, or work longer than its fixed TTL). Only said of
// histories that record the client's KV calls: without them a missing keep-alive proves nothing.
bool never_renewed_unhindered(const History& history, const std::string& process, std::int64_t lease,
                              std::int64_t from_ns, std::int64_t to_ns) {
  bool calls_recorded = false;
  std::map<std::string, std::int64_t> fault_started;  // a fault on `process`: op -> start
  // Whether a side of a link fault (an empty list: every process) holds `who`, or a member.
  auto side_has = [](const nlohmann::json& args, const char* side, const auto& who) {
    if (!args.contains(side) || !args[side].is_array() || args[side].empty()) return true;
    for (const auto& p : args[side])
      if (p.is_string() && who(p.get<std::string>())) return true;
    return false;
  };
  auto is_holder = [&](const std::string& p) { return p == process; };
  auto is_member = [](const std::string& p) { return p.rfind("member-", 0) == 0; };
  // A fault that could stop the holder's keep-alives: one on the holder itself (pause, crash,
  // clock, lease-drop), or on a link between it and a member, either way. A cut between the
  // holder and the protected resource, say, stops none.
  auto hinders = [&](const nlohmann::json& args) {
    if (args.contains("targets") && args["targets"].is_array()) {
      for (const auto& p : args["targets"])
        if (p.is_string() && p.get<std::string>() == process) return true;
      return false;
    }
    if (!args.contains("from") && !args.contains("to")) return false;
    return (side_has(args, "from", is_holder) && side_has(args, "to", is_member)) ||
           (side_has(args, "from", is_member) && side_has(args, "to", is_holder));
  };
  for (const auto& e : history.events) {
    if (e.true_ns > to_ns) break;
    if (e.kind == EventKind::trace && e.op == "kv-send" && e.process == process && e.args.is_object()) {
      calls_recorded = true;
      if (e.args.value("request", "") == "lease_keep_alive" && int_field(e.args, "lease") == lease)
        return false;
    }
    if (e.kind == EventKind::fault && e.args.is_object() && hinders(e.args)) {
      const std::string phase = e.args.value("phase", "start");
      // Active in the window: it ends after from_ns (or never ends in the history).
      if (phase == "start" && e.args.contains("duration_ms") &&
          e.true_ns + int_field(e.args, "duration_ms") * 1'000'000 >= from_ns)
        return false;
      if (phase == "start" && !e.args.contains("duration_ms")) fault_started[e.op] = e.true_ns;
      if (phase == "end" && fault_started.erase(e.op) && e.true_ns >= from_ns) return false;
    }
  }
  return calls_recorded && fault_started.empty();
}

}  // namespace

std::int64_t lease_span_from_renewal_ns(const LockTruth& truth, const LeaseLifetime& lease,
                                        const std::string& renewed_by) {
  if (lease.ttl_seconds <= 0) return 0;
  return lease.ttl_seconds * 1'000'000'000 + (renewed_by == "leader-election" ? truth.election_timeout_ns : 0);
}

std::int64_t nominal_lease_end_ns(const LockTruth& truth, const KeyLifetime& key) {
  const LeaseLifetime* lease = truth.find_lease(key.lease);
  if (key.deleted_by.kind != "lease-expiry" || lease == nullptr || lease->ttl_seconds <= 0 ||
      key.deleted_by.renewed_ns < 0)
    return -1;
  return key.deleted_by.renewed_ns + lease_span_from_renewal_ns(truth, *lease, key.deleted_by.renewed_by);
}

bool lease_expired_under_holder(const History& history, const LockTruth& truth,
                                const nlohmann::json& w) {
  if (!w.is_object() || !w.contains("earlier") || !w.contains("later")) return false;
  const nlohmann::json& earlier = w["earlier"];
  const nlohmann::json& later = w["later"];
  if (!earlier.is_object() || !later.is_object()) return false;
  const std::string process = string_field(earlier, "process");
  const std::int64_t start_event = earlier.contains("start_event") ? int_field(earlier, "start_event") : -1;
  std::int64_t key_revision = 0;
  if (start_event >= 0 && start_event < static_cast<std::int64_t>(history.events.size()))
    key_revision = int_field(history.events[static_cast<std::size_t>(start_event)].result, "key_revision");
  const KeyLifetime* key = truth.key_acquired(process, key_revision, int_field(earlier, "start_ns"));
  // Lost while held: after the earlier holder was told it held the lock (a key gone before
  // that is a wrong grant, not an outlived lease), and before the later grant.
  if (key == nullptr || key->end_ns <= int_field(earlier, "start_ns") ||
      key->end_ns > int_field(later, "start_ns"))
    return false;
  // A holder that had itself sent a revoke of the lease (its release) gave the lease up: the
  // algorithm's own doing, not the limit of leases.
  for (const auto& e : history.events) {
    if (e.true_ns > key->end_ns) break;
    if (e.kind == EventKind::trace && e.op == "kv-send" && e.process == process && e.args.is_object() &&
        e.args.value("request", "") == "lease_revoke" && int_field(e.args, "lease") == key->lease)
      return false;
  }
  if (key->deleted_by.kind == "lease-expiry") {
    // Revoked by a lessor deposed before its revoke committed (etcd 3.4.23, issue 15247): its
    // view of the lease missed the renewals the new leader answered. etcd's bug, not the
    // limit of leases.
    for (const LeaderTerm& t : truth.leaders)
      if (key->deleted_by.term > 0 && t.term > key->deleted_by.term && t.start_ns <= key->end_ns)
        return false;
    const LeaseLifetime* lease = truth.find_lease(key->lease);
    const std::int64_t nominal_end_ns = nominal_lease_end_ns(truth, *key);
    // The lease had run out (its last renewal plus its TTL) before the holder was granted the
    // lock: before its key was made, or while a waiter's key stood only because the revoke had
    // not committed yet. The lock was lost before it was taken, a grant the algorithm should
    // not have made.
    if (nominal_end_ns >= 0 && nominal_end_ns <= int_field(earlier, "start_ns")) return false;
    // Granted to the later holder before the lease would have run out at nominal clock speed:
    // the lessor's clock cut the lease short (the holder did not outlive it).
    if (nominal_end_ns >= 0 && int_field(later, "start_ns") < nominal_end_ns) return false;
    if (never_renewed_unhindered(history, process, key->lease,
                                 lease ? lease->first_seen_ns : key->start_ns, key->end_ns))
      return false;
    return true;
  }
  // Older files: a delete marked lease_expired whose lease's expiry is recorded.
  const LeaseLifetime* lease = truth.find_lease(key->lease);
  return key->deleted_by.kind.empty() && key->deleted_by_lease_expiry && lease && lease->expired_ns;
}

LockTruth extract_lock_truth(const History& history) {
  LockTruth truth;
  // Who was told it holds which key: (key, key_revision) -> client. Acquires complete after
  // the put they report, so this is a pass of its own.
  std::map<std::pair<std::string, std::int64_t>, std::string> acquired_key;
  std::set<std::string> processes;
  for (const auto& e : history.events) {
    processes.insert(e.process);
    if (e.op == "acquire" && e.kind == EventKind::ok && e.result.is_object()) {
      const std::string key = string_field(e.result, "key");
      const std::int64_t rev = int_field(e.result, "key_revision");
      if (!key.empty() && rev != 0) acquired_key[{key, rev}] = e.process;
    }
  }

  LeaseBook leases(truth);
  std::map<std::string, std::size_t> live_key;    // key -> position in truth.keys
  std::map<std::string, std::size_t> open_term;   // member -> position in truth.leaders
  if (const auto it = history.header.meta.find("election_timeout_ms");
      it != history.header.meta.end() && it->is_number_integer() && it->get<std::int64_t>() > 0)
    truth.election_timeout_ns = it->get<std::int64_t>() * 1'000'000;
  for (const auto& e : history.events) {
    if (e.kind == EventKind::ok && e.op == "acquire") {
      leases.seen(int_field(e.result, "lease"), e.true_ns, e.process);
      continue;
    }
    if (e.kind == EventKind::fault && e.op == "crash" && e.args.is_object() &&
        e.args.value("phase", "") == "start" && e.args.contains("targets") && e.args["targets"].is_array()) {
      // A crashed leader leads no more: its term ends with the crash (no step-down is recorded).
      for (const auto& t : e.args["targets"]) {
        if (!t.is_string()) continue;
        auto open = open_term.find(t.get<std::string>());
        if (open == open_term.end()) continue;
        truth.leaders[open->second].end_ns = e.true_ns;
        open_term.erase(open);
      }
      continue;
    }
    if (e.kind != EventKind::truth) continue;
    if (e.op == "key-put") {
      const std::string key = string_field(e.args, "key");
      const std::int64_t rev = int_field(e.args, "revision");
      const std::int64_t create = int_field(e.args, "create_revision");
      const std::int64_t lease = int_field(e.args, "lease");
      auto live = live_key.find(key);
      const bool creates = live == live_key.end() || (create != 0 && create == rev &&
                                                       truth.keys[live->second].create_revision != create);
      if (creates) {
        if (live != live_key.end()) truth.keys[live->second].end_ns = e.true_ns;  // replaced
        KeyLifetime k;
        k.created_by = cause_of(e);
        k.key = key;
        k.create_revision = create != 0 ? create : rev;
        k.lease = lease;
        k.start_ns = e.true_ns;
        k.put_event = e.index;
        auto owner = acquired_key.find({key, k.create_revision});
        if (owner != acquired_key.end()) {
          k.owner = owner->second;
        } else if (!k.created_by.lock_service.empty()) {
          k.owner = k.created_by.client;
        } else {
          const std::string value = string_field(e.args, "value");
          if (value.rfind("client-", 0) == 0 && processes.count(value)) k.owner = value;
        }
        live_key[key] = truth.keys.size();
        truth.keys.push_back(k);
      } else {
        truth.keys[live->second].lease = lease;
        truth.keys[live->second].rewrites.push_back(e.index);
      }
      leases.seen(lease, e.true_ns, truth.keys[live_key[key]].owner);
    } else if (e.op == "key-delete") {
      const std::string key = string_field(e.args, "key");
      auto live = live_key.find(key);
      if (live == live_key.end()) continue;
      KeyLifetime& k = truth.keys[live->second];
      k.end_ns = e.true_ns;
      k.delete_event = e.index;
      k.delete_revision = int_field(e.args, "revision");
      k.deleted_by_lease_expiry = e.args.is_object() && e.args.value("lease_expired", false);
      k.deleted_by = cause_of(e);
      leases.seen(k.lease, e.true_ns, k.owner);
      live_key.erase(live);
    } else if (e.op == "lease-expired") {
      leases.expired(int_field(e.args, "lease"), e);
    } else if (e.op == "lease-revoke-attempt") {
      leases.revoke_attempt(int_field(e.args, "lease"), e);
    } else if (e.op == "lease-granted" || e.op == "lease-revoked") {
      const std::int64_t lease = int_field(e.args, "lease");
      leases.seen(lease, e.true_ns, "");
      if (e.op == "lease-granted" && lease != 0) {
        LeaseLifetime& l = truth.leases[truth.lease_index[lease]];
        l.ttl_seconds = int_field(e.args, "ttl_seconds");
        l.granted_to = cause_of(e).client;
        l.granted_ns = e.true_ns;
      }
    } else if (e.op == "leader-elected") {
      // A leader of a newer term ends every older one (a transfer or a higher term deposes
      // a leader without a recorded step-down), and this member's own earlier term.
      const std::int64_t term = int_field(e.args, "term");
      for (auto it = open_term.begin(); it != open_term.end();) {
        if (it->first == e.process || truth.leaders[it->second].term < term) {
          truth.leaders[it->second].end_ns = e.true_ns;
          it = open_term.erase(it);
        } else {
          ++it;
        }
      }
      open_term[e.process] = truth.leaders.size();
      truth.leaders.push_back({e.process, int_field(e.args, "term"), e.true_ns, kStillOpen});
    } else if (e.op == "leader-stepped-down") {
      auto open = open_term.find(e.process);
      if (open == open_term.end()) continue;
      truth.leaders[open->second].end_ns = e.true_ns;
      truth.leaders[open->second].stepped_down_event = &e - history.events.data();
      open_term.erase(open);
    }
  }
  return truth;
}

}  // namespace lockstep
