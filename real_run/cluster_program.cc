#include "lockstep/real_run/cluster_program.h"

#include <algorithm>
#include <set>

namespace lockstep::difftest {

namespace {

const char* const kKeyNames[] = {"a", "b", "c"};

std::string own_key(Rng& rng, int client) {
  return "c" + std::to_string(client) + "/" + kKeyNames[rng.below(3)];
}

std::string own_prefix(int client) { return "c" + std::to_string(client) + "/"; }

struct ClientState {
  std::vector<int> leases;  // grant indices this client obtained (maybe failed)
  int values = 0;
};

LeaseId own_lease(Rng& rng, const ClientState& c) {
  if (c.leases.empty()) return 0;
  return kLeaseRefBase + c.leases[rng.below(c.leases.size())];
}

std::string next_value(int client, ClientState& c) {
  return "c" + std::to_string(client) + "#" + std::to_string(c.values++);
}

PutRequest own_put(Rng& rng, int client, ClientState& c) {
  PutRequest p;
  p.key = own_key(rng, client);
  p.value = next_value(client, c);
  if (rng.chance(0.5)) p.lease = own_lease(rng, c);
  p.prev_kv = rng.chance(0.3);
  return p;
}

RangeRequest own_range(Rng& rng, int client) {
  RangeRequest r;
  if (rng.chance(0.5)) {
    r.key = own_key(rng, client);
  } else {
    r.key = own_prefix(client);
    r.range_end = prefix_range_end(r.key);
  }
  return r;
}

DeleteRangeRequest own_delete(Rng& rng, int client) {
  DeleteRangeRequest d;
  if (rng.chance(0.8)) {
    d.key = own_key(rng, client);
  } else {
    d.key = own_prefix(client);
    d.range_end = prefix_range_end(d.key);
  }
  d.prev_kv = rng.chance(0.5);
  return d;
}

// The lock primitive and its relatives: compare one own key, write or read.
TxnRequest own_txn(Rng& rng, int client, ClientState& c) {
  TxnRequest t;
  Compare cmp;
  cmp.key = own_key(rng, client);
  switch (rng.below(3)) {
    case 0:  // create-if-absent
      cmp.target = CompareTarget::create;
      cmp.result = CompareResult::equal;
      cmp.create_revision = 0;
      break;
    case 1:
      cmp.target = CompareTarget::version;
      cmp.result = static_cast<CompareResult>(rng.below(4));
      cmp.version = rng.between(0, 2);
      break;
    default:
      cmp.target = CompareTarget::value;
      cmp.result = CompareResult::equal;
      cmp.value = "c" + std::to_string(client) + "#" + std::to_string(rng.below(std::max(1, c.values)));
      break;
  }
  t.compare.push_back(cmp);
  PutRequest p;
  p.key = cmp.key;
  p.value = next_value(client, c);
  p.lease = rng.chance(0.6) ? own_lease(rng, c) : 0;
  t.success.push_back(RequestOp{p});
  if (rng.chance(0.3)) t.success.push_back(RequestOp{own_delete(rng, client)});
  RangeRequest r;
  r.key = cmp.key;
  t.failure.push_back(RequestOp{r});
  return t;
}

Op random_request(Rng& rng, int client, ClientState& c, ClusterProgram& program, int* grant_index) {
  const auto u = rng.below(100);
  const bool has_lease = !c.leases.empty();
  if (u < 14 || (!has_lease && u < 24)) {
    *grant_index = program.grants++;
    c.leases.push_back(*grant_index);
    LeaseGrantRequest g;
    g.ttl_seconds = rng.between(2, 4);
    return g;
  }
  if (has_lease && u < 30) return LeaseKeepAliveRequest{own_lease(rng, c)};
  if (has_lease && u < 34) return LeaseRevokeRequest{own_lease(rng, c)};
  if (has_lease && u < 37) {
    LeaseTimeToLiveRequest t;
    t.id = own_lease(rng, c);
    t.keys = true;
    return t;
  }
  if (u < 62) return own_put(rng, client, c);
  if (u < 76) return own_range(rng, client);
  if (u < 84) return own_delete(rng, client);
  return own_txn(rng, client, c);
}

// A leader paused at most this long is never deposed; one paused at least this long always
// is (on both sides).
constexpr std::int64_t kNoElectionPause_ms = 700;
constexpr std::int64_t kSureElectionPause_ms = 2500;

}  // namespace

ClusterProgram generate_cluster_program(std::uint64_t seed, bool concurrent, bool with_faults) {
  Rng rng(seed);
  ClusterProgram program;
  program.seed = seed;
  std::vector<ClientState> clients(kClusterClients);
  const auto n_requests = rng.between(6, 14);
  Duration t = milliseconds(rng.between(0, 200));
  Duration last_fault_end{0};
  for (std::int64_t i = 0; i < n_requests; ++i) {
    ClusterStep s;
    s.kind = ClusterStep::Kind::request;
    s.client = static_cast<int>(rng.below(kClusterClients));
    s.at = t;
    s.request = random_request(rng, s.client, clients[static_cast<std::size_t>(s.client)], program,
                               &s.grant_index);
    program.steps.push_back(s);
    // Time passes: mostly a little, sometimes enough for a lease to run out.
    const auto gap_ms = rng.chance(0.15) ? rng.between(1500, 3500)
                                         : (concurrent ? rng.between(0, 150) : rng.between(60, 400));
    t += milliseconds(gap_ms);
  }
  if (with_faults) {
    const auto n_faults = rng.between(1, 2);
    for (std::int64_t i = 0; i < n_faults; ++i) {
      ClusterStep f;
      f.at = milliseconds(rng.between(0, std::max<std::int64_t>(1, t.count() / 1'000'000)));
      switch (rng.below(3)) {
        case 0:
          f.kind = ClusterStep::Kind::move_leader;
          f.role = static_cast<int>(rng.between(1, 2));
          break;
        case 1:
          f.kind = ClusterStep::Kind::pause_member;
          f.role = static_cast<int>(rng.below(kClusterMembers));
          // Too short for any election, or long enough for one always to happen, whichever
          // member leads by then: a follower campaigns 1 to 2 s after the last heartbeat it
          // heard (which came up to 100 ms before the pause). In between, whether the
          // followers elect a new leader before the old one resumes is a draw of their
          // randomised election timeouts, which the two sides make independently (a range
          // through a follower was answered on one side, failed with "leader changed" on the
          // other).
          f.duration = rng.chance(0.3) ? milliseconds(rng.between(500, kNoElectionPause_ms))
                                       : milliseconds(rng.between(kSureElectionPause_ms, 3500));
          break;
        default:
          f.kind = ClusterStep::Kind::cut_client;
          f.client = static_cast<int>(rng.below(kClusterClients));
          f.duration = milliseconds(rng.between(300, 3000));
          break;
      }
      // Pauses never overlap: two members paused at once leave the leader without a quorum,
      // and whether it steps down first then hangs on the phase of its check-quorum ticks,
      // which no program sets (a difference that says nothing about fidelity).
      for (const auto& other : program.steps)
        if (f.kind == ClusterStep::Kind::pause_member && other.kind == ClusterStep::Kind::pause_member &&
            f.at < other.at + other.duration + milliseconds(200) && other.at < f.at + f.duration)
          f.at = other.at + other.duration + milliseconds(200);
      // Nor do two cuts of one client: the first one's heal would end the second early.
      for (const auto& other : program.steps)
        if (f.kind == ClusterStep::Kind::cut_client && other.kind == ClusterStep::Kind::cut_client &&
            f.client == other.client && f.at < other.at + other.duration + milliseconds(200) &&
            other.at < f.at + f.duration)
          f.at = other.at + other.duration + milliseconds(200);
      last_fault_end = std::max(last_fault_end, f.at + f.duration);
      program.steps.push_back(f);
    }
    // A hand-over starts a few milliseconds later on the real cluster (the harness finds the
    // leader and the successor's id first) than in the simulator: a request sent just before
    // or after it reaches the leader before the hand-over on one side and during it (dropped)
    // on the other. No request comes within 60 ms before or 150 ms after one.
    for (auto& m : program.steps) {
      if (m.kind != ClusterStep::Kind::move_leader) continue;
      for (bool moved = true; moved;) {
        moved = false;
        for (const auto& r : program.steps)
          if (r.kind == ClusterStep::Kind::request && r.at + milliseconds(60) > m.at &&
              r.at < m.at + milliseconds(150)) {
            m.at = r.at + milliseconds(60);
            moved = true;
          }
      }
    }
    // Leadership is never handed to a paused member: etcd's MoveLeader waits for it to catch
    // up until the call's own deadline, a wait the simulated fault does not have (it starts
    // the transfer and returns); the program hands it to the other follower instead.
    for (auto& m : program.steps) {
      if (m.kind != ClusterStep::Kind::move_leader) continue;
      for (const auto& p : program.steps)
        if (p.kind == ClusterStep::Kind::pause_member && p.role == m.role && p.at <= m.at + seconds(1) &&
            m.at <= p.at + p.duration)
          m.role = 3 - m.role;
    }
    // Nor is it handed over while the leader is paused or just after: etcd's MoveLeader goes
    // to the leader, which cannot answer, while the followers elect another (the real call
    // then finds the successor already leading), and the simulated transfer would start on
    // the paused member.
    std::erase_if(program.steps, [&program](const ClusterStep& m) {
      if (m.kind != ClusterStep::Kind::move_leader) return false;
      for (const auto& p : program.steps)
        if (p.kind == ClusterStep::Kind::pause_member && p.role == 0 &&
            p.at <= m.at + milliseconds(500) && m.at <= p.at + p.duration + milliseconds(2500))
          return true;
      return false;
    });
    // One move_leader per program: the second one would name roles of a changed cluster.
    bool moved = false;
    std::erase_if(program.steps, [&moved](const ClusterStep& s) {
      if (s.kind != ClusterStep::Kind::move_leader) return false;
      if (moved) return true;
      moved = true;
      return false;
    });
  }
  std::stable_sort(program.steps.begin(), program.steps.end(),
                   [](const ClusterStep& a, const ClusterStep& b) { return a.at < b.at; });
  program.end = std::max(t, last_fault_end) + kClusterCallDeadline + milliseconds(500);
  return program;
}

void delay_steps(ClusterProgram& program, std::size_t from, Duration by) {
  for (std::size_t i = from; i < program.steps.size(); ++i) program.steps[i].at += by;
  program.end += by;
}

Duration expiry_tolerance(const ClusterProgram& program, Duration at) {
  Duration tolerance = milliseconds(700);
  for (const auto& s : program.steps) {
    const bool leader_may_change =
        s.kind == ClusterStep::Kind::move_leader ||
        (s.kind == ClusterStep::Kind::pause_member && s.role == 0 && s.duration >= milliseconds(900));
    if (leader_may_change && s.at < at) return tolerance + seconds(1);
  }
  return tolerance;
}

namespace {

// The client that owns a key ("c1/a" -> 1), or -1.
int key_owner(const std::string& event) {
  const auto space = event.find(' ');
  if (space == std::string::npos || event.size() < space + 3 || event[space + 1] != 'c') return -1;
  return event[space + 2] - '0';
}

// A failed call's outcome (normalise_error); a lease grant's answer has an "error" field of
// its own, empty when it succeeded.
bool failed(const nlohmann::json& outcome) {
  return outcome.is_object() && outcome.contains("error") && outcome["error"].is_string() &&
         !outcome["error"].get<std::string>().empty();
}

bool writes_something(const nlohmann::json& outcome, const std::string& op) {
  if (failed(outcome)) return false;
  if (op == "put") return true;
  if (op == "delete_range") return outcome.value("deleted", 0) > 0;
  if (op == "lease_revoke") return true;  // checked against the write itself (claims)
  if (op == "txn") {
    for (const auto& r : outcome["responses"]) {
      if (r.contains("put")) return true;
      if (r.contains("delete_range") && r["delete_range"].value("deleted", 0) > 0) return true;
      if (r.contains("txn") && r["txn"].is_object() && writes_something(r["txn"], "txn")) return true;
    }
  }
  return false;
}

// Which revision each write-type request made (its header revision, when a write was seen
// there that came no earlier than the request was issued).
std::map<Revision, std::size_t> claims(const ClusterProgram& program, const ClusterRun& run) {
  std::map<Revision, const CommittedWrite*> by_revision;
  for (const auto& w : run.writes) by_revision[w.revision] = &w;
  std::map<Revision, std::size_t> claimed;
  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    const auto& req = run.requests[i];
    if (program.steps[i].kind != ClusterStep::Kind::request || !req.outcome) continue;
    const std::string op = describe(program.steps[i].request)["op"];
    if (!writes_something(*req.outcome, op)) continue;
    const Revision r = (*req.outcome)["header"]["revision"].get<Revision>();
    auto it = by_revision.find(r);
    if (it == by_revision.end()) continue;
    if (op == "lease_revoke") {
      // A revoke writes when its lease had keys: every event deletes a key of this client.
      bool own_deletes = true;
      for (const auto& e : it->second->events)
        own_deletes = own_deletes && e.rfind("delete ", 0) == 0 && key_owner(e) == program.steps[i].client;
      if (!own_deletes) continue;
    }
    claimed.emplace(r, i);
  }
  return claimed;
}

// Names each revision by its events (see the header), numbering repeats.
std::map<Revision, std::string> revision_names(const ClusterRun& run) {
  std::map<Revision, std::string> names;
  std::map<std::string, int> seen;
  for (const auto& w : run.writes) {
    std::string name;
    for (const auto& e : w.events) name += (name.empty() ? "" : "; ") + e;
    const int n = seen[name]++;
    if (n > 0) name += " (#" + std::to_string(n + 1) + ")";
    names[w.revision] = name;
  }
  return names;
}

// Names each revision as revision_names does, except lease expiries that commit together:
// etcd's lessor finds the leases expired in one check (every 500 ms) and revokes each on a
// goroutine of its own, so their revokes commit in either order. Unclaimed writes that only
// delete, each within 100 ms of the one before, are one batch, named by all their events and
// numbered by position ("lease expiries {delete a; delete b} #2 of 2").
// `claimed`: the run's claims (claims()).
std::map<Revision, std::string> comparable_names(const ClusterRun& run, const std::map<Revision, std::size_t>& claimed) {
  std::map<Revision, std::string> names = revision_names(run);
  std::vector<std::vector<const CommittedWrite*>> batches;
  const CommittedWrite* previous = nullptr;
  for (const auto& w : run.writes) {
    const bool expiry = !claimed.contains(w.revision) && !w.events.empty() &&
                        std::all_of(w.events.begin(), w.events.end(),
                                    [](const std::string& e) { return e.rfind("delete ", 0) == 0; });
    if (!expiry) {
      previous = nullptr;
      continue;
    }
    if (previous != nullptr && w.seen_at - previous->seen_at <= milliseconds(100))
      batches.back().push_back(&w);
    else
      batches.push_back({&w});
    previous = &w;
  }
  for (const auto& batch : batches) {
    if (batch.size() < 2) continue;
    std::vector<std::string> events;
    for (const CommittedWrite* w : batch)
      for (const auto& e : w->events) events.push_back(e);
    std::sort(events.begin(), events.end());
    std::string all;
    for (const auto& e : events) all += (all.empty() ? "" : "; ") + e;
    for (std::size_t i = 0; i < batch.size(); ++i)
      names[batch[i]->revision] = "lease expiries {" + all + "} #" + std::to_string(i + 1) + " of " +
                                  std::to_string(batch.size());
  }
  return names;
}

// Replaces the revision fields of a normalised outcome by the names of the writes.
void name_revisions(nlohmann::json& j, const std::map<Revision, std::string>& names, Revision base) {
  if (j.is_array()) {
    for (auto& x : j) name_revisions(x, names, base);
    return;
  }
  if (!j.is_object()) return;
  for (auto& [field, value] : j.items()) {
    if ((field == "revision" || field == "create" || field == "mod") && value.is_number_integer()) {
      const Revision r = value.get<Revision>();
      if (r == 0) continue;
      if (r <= base) {
        value = "before the program";
      } else {
        auto it = names.find(r);
        value = it == names.end() ? "unseen revision" : it->second;
      }
    } else {
      name_revisions(value, names, base);
    }
  }
}

// Every header revision in an answer (a txn's nested answers carry their own) becomes
// "concurrent".
void mark_concurrent(nlohmann::json& j) {
  if (j.is_array()) {
    for (auto& x : j) mark_concurrent(x);
    return;
  }
  if (!j.is_object()) return;
  for (auto& [field, value] : j.items()) {
    if (field == "header" && value.is_object() && value.contains("revision")) {
      value["revision"] = "concurrent";
    } else {
      mark_concurrent(value);
    }
  }
}

struct Window {
  Duration from, to;
  int client;
};

}  // namespace

std::vector<UnclaimedWrite> unclaimed_writes(const ClusterProgram& program, const ClusterRun& run) {
  const auto claimed = claims(program, run);
  const auto names = comparable_names(run, claimed);
  std::vector<UnclaimedWrite> out;
  for (const auto& w : run.writes)
    if (!claimed.contains(w.revision)) out.push_back({names.at(w.revision), w.seen_at, w.revision});
  return out;
}

namespace {

// The lease grant indices a request names (keep-alive, revoke, time-to-live, a put under it).
std::vector<int> leases_named(const Op& op) {
  std::vector<int> out;
  const auto note = [&out](LeaseId id) {
    if (id >= kLeaseRefBase && id < kLeaseRefBase + kMaxLeaseRefs) out.push_back(static_cast<int>(id - kLeaseRefBase));
  };
  if (auto* k = std::get_if<LeaseKeepAliveRequest>(&op)) note(k->id);
  if (auto* r = std::get_if<LeaseRevokeRequest>(&op)) note(r->id);
  if (auto* t = std::get_if<LeaseTimeToLiveRequest>(&op)) note(t->id);
  if (auto* p = std::get_if<PutRequest>(&op)) note(p->lease);
  if (auto* t = std::get_if<TxnRequest>(&op))
    for (const auto* branch : {&t->success, &t->failure})
      for (const auto& r : *branch)
        if (auto* p = std::get_if<PutRequest>(&r.request)) note(p->lease);
  return out;
}

// When each lease may expire, by the simulated run: its last renewal (grant or answered
// keep-alive) plus its TTL, unless renewed again before; and, after a leader change, the new
// leader's promotion (an election timeout of 1 to 2 s after a leader's pause, at once after a
// hand-over) plus an election timeout plus the TTL. A lease with no keys shows no delete, so
// its expiry is only known this way.
std::map<int, std::vector<Duration>> lease_expiry_candidates(const ClusterProgram& program, const ClusterRun& sim) {
  std::map<int, std::int64_t> ttl_s;
  std::map<int, std::vector<Duration>> renewals;
  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    const auto& step = program.steps[i];
    const auto& req = sim.requests[i];
    if (step.kind != ClusterStep::Kind::request || !req.outcome || failed(*req.outcome)) continue;
    if (auto* g = std::get_if<LeaseGrantRequest>(&step.request); g && step.grant_index >= 0) {
      ttl_s[step.grant_index] = g->ttl_seconds;
      renewals[step.grant_index].push_back(req.completed);
    }
    if (auto* k = std::get_if<LeaseKeepAliveRequest>(&step.request)) {
      const int ref = static_cast<int>(k->id - kLeaseRefBase);
      if (req.outcome->value("ttl", 0) > 0) renewals[ref].push_back(req.completed);
    }
  }
  std::map<int, std::vector<Duration>> out;
  for (const auto& [lease, times] : renewals) {
    const Duration ttl = seconds(ttl_s[lease]);
    for (std::size_t j = 0; j < times.size(); ++j)
      if (j + 1 == times.size() || times[j + 1] > times[j] + ttl - milliseconds(700))
        out[lease].push_back(times[j] + ttl);
    for (const auto& s : program.steps) {
      Duration promoted{-1};
      if (s.kind == ClusterStep::Kind::move_leader) promoted = s.at;
      if (s.kind == ClusterStep::Kind::pause_member && s.role == 0 && s.duration >= milliseconds(900))
        promoted = s.at + milliseconds(1500);
      if (promoted.count() >= 0 && times.front() < promoted) out[lease].push_back(promoted + seconds(1) + ttl);
    }
  }
  return out;
}

}  // namespace

std::optional<RetimeAt> request_near_expiry(const ClusterProgram& program, const ClusterRun& sim) {
  const auto unclaimed = unclaimed_writes(program, sim);
  const auto expiries = lease_expiry_candidates(program, sim);
  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    const auto& step = program.steps[i];
    const auto& req = sim.requests[i];
    if (step.kind == ClusterStep::Kind::move_leader || step.kind == ClusterStep::Kind::pause_member) {
      // A hand-over or a pause that starts near an expiry races the lessor's scan: which
      // comes first decides whether the old leader revokes the lease or a new leader extends
      // it by its TTL (seed 4, program 286: a hand-over 80 ms after the real expiry).
      const auto near = [&](Duration at) {
        const Duration tol = expiry_tolerance(program, at);
        return step.at + tol >= at && step.at <= at + tol ? std::optional(at + tol + milliseconds(100) - step.at)
                                                          : std::nullopt;
      };
      for (const auto& u : unclaimed)
        if (auto by = near(u.seen_at)) return RetimeAt{i, *by};
      for (const auto& [lease, times] : expiries)
        for (const Duration at : times)
          if (auto by = near(at)) return RetimeAt{i, *by};
      continue;
    }
    if (step.kind != ClusterStep::Kind::request || req.issued.count() < 0) continue;
    const Duration done = req.completed.count() >= 0 ? req.completed : program.end;
    for (const auto& u : unclaimed) {
      if (key_owner(u.name) != step.client) continue;
      const Duration tol = expiry_tolerance(program, u.seen_at);
      if (done + tol >= u.seen_at && req.issued <= u.seen_at + tol)
        return RetimeAt{i, u.seen_at + tol + milliseconds(100) - req.issued};
    }
    for (const int lease : leases_named(step.request)) {
      auto it = expiries.find(lease);
      if (it == expiries.end()) continue;
      for (const Duration at : it->second) {
        const Duration tol = expiry_tolerance(program, at);
        if (done + tol >= at && req.issued <= at + tol)
          return RetimeAt{i, at + tol + milliseconds(100) - req.issued};
      }
    }
  }
  // The final range must not race an expiry either.
  for (const auto& u : unclaimed) {
    const Duration tol = expiry_tolerance(program, u.seen_at);
    if (sim.final_at < u.seen_at + tol && u.seen_at < sim.final_at + tol)
      return RetimeAt{program.steps.size(), u.seen_at + tol + milliseconds(100) - sim.final_at};
  }
  return std::nullopt;
}

bool deposed_leader_revoked(const ClusterProgram& program, const ClusterRun& sim) {
  for (const auto& s : program.steps) {
    if (s.kind != ClusterStep::Kind::pause_member || s.role != 0 || s.duration < seconds(1)) continue;
    const Duration resumed = s.at + s.duration;
    for (const auto& u : unclaimed_writes(program, sim))
      if (u.seen_at >= resumed && u.seen_at <= resumed + milliseconds(700)) return true;
  }
  return false;
}

bool held_request_race_possible(const ClusterProgram& program, const ClusterRun& sim, const ClusterRun& real) {
  const auto timed_out = [](const ClusterRun::Request& r) {
    return r.outcome && failed(*r.outcome) && r.outcome->value("error", "") == "timeout";
  };
  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    const auto& step = program.steps[i];
    if (step.kind != ClusterStep::Kind::request) continue;
    const std::string op = describe(step.request)["op"];
    if (op == "range" || op == "lease_keep_alive" || op == "lease_time_to_live") continue;
    const bool both_timed_out = timed_out(sim.requests[i]) && timed_out(real.requests[i]);
    // Taken on one side only, or failed differently (a deposed leader's lost proposal times
    // out where the forwarded one is refused, say for a lease gone meanwhile).
    const auto error_of = [](const ClusterRun::Request& r) {
      return r.outcome && failed(*r.outcome) ? r.outcome->value("error", "") : std::string();
    };
    const bool outcomes_differ = sim.requests[i].outcome.has_value() != real.requests[i].outcome.has_value() ||
                                 error_of(sim.requests[i]) != error_of(real.requests[i]);
    if (!both_timed_out && !outcomes_differ) continue;
    const Duration sent = sim.requests[i].issued;
    for (const auto& f : program.steps) {
      const bool holds = (f.kind == ClusterStep::Kind::cut_client && f.client == step.client) ||
                         (f.kind == ClusterStep::Kind::pause_member && f.role == step.client);
      if (holds && f.at <= sent && sent < f.at + f.duration) return true;
    }
  }
  return false;
}

std::vector<ClusterDifference> compare_runs(const ClusterProgram& program, const ClusterRun& sim,
                                            const ClusterRun& real) {
  std::vector<ClusterDifference> out;
  const auto sim_names = comparable_names(sim, claims(program, sim));
  const auto real_names = comparable_names(real, claims(program, real));
  const auto sim_unclaimed = unclaimed_writes(program, sim);
  const auto real_unclaimed = unclaimed_writes(program, real);

  // Windows in which some client's write may have committed, on either side.
  std::vector<Window> write_windows;
  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    const auto& step = program.steps[i];
    if (step.kind != ClusterStep::Kind::request) continue;
    const std::string op = describe(step.request)["op"];
    if (op != "put" && op != "delete_range" && op != "txn" && op != "lease_revoke") continue;
    for (const ClusterRun* run : {&sim, &real}) {
      const auto& r = run->requests[i];
      if (r.issued.count() < 0) continue;
      write_windows.push_back({r.issued, r.completed.count() >= 0 ? r.completed : program.end, step.client});
    }
  }
  for (const auto* list : {&sim_unclaimed, &real_unclaimed})
    for (const auto& u : *list) {
      const Duration tol = expiry_tolerance(program, u.seen_at);
      write_windows.push_back({u.seen_at - tol, u.seen_at + tol, -1});
    }

  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    const auto& step = program.steps[i];
    if (step.kind != ClusterStep::Kind::request) continue;
    const auto& s = sim.requests[i];
    const auto& r = real.requests[i];
    nlohmann::json sj = s.outcome ? *s.outcome : nlohmann::json("never completed");
    nlohmann::json rj = r.outcome ? *r.outcome : nlohmann::json("never completed");
    name_revisions(sj, sim_names, sim.base);
    name_revisions(rj, real_names, real.base);
    // The header revision says where the request stands among all writes: comparable only
    // when no other client's write and no unclaimed write could fall inside its window.
    const Duration from = std::min(s.issued, r.issued);
    const Duration to = std::max(s.completed.count() >= 0 ? s.completed : program.end,
                                 r.completed.count() >= 0 ? r.completed : program.end);
    // Within 100 ms counts as overlapping: the two sides' latencies differ by milliseconds
    // (a loopback gRPC call through a proxy and a raft round), so two clients' requests sent
    // that close together may commit in either order.
    const Duration margin = milliseconds(100);
    bool concurrent = false;
    for (const auto& w : write_windows)
      concurrent = concurrent || (w.client != step.client && w.from <= to + margin && from <= w.to + margin);
    // A keep-alive or time-to-live answer carries the header of the member called, as of
    // when it answered: one a paused member held answers on resume while it catches up on
    // the log, and in etcd the two run on goroutines of their own, so its revision is a race.
    const std::string op = describe(step.request)["op"];
    if (op == "lease_keep_alive" || op == "lease_time_to_live")
      for (const auto& p : program.steps)
        if (p.kind == ClusterStep::Kind::pause_member && p.at <= to && from <= p.at + p.duration)
          concurrent = true;
    if (concurrent) {
      for (nlohmann::json* j : {&sj, &rj}) mark_concurrent(*j);
    }
    if (sj != rj) out.push_back({op, i, sj, rj});
  }

  // The same writes committed (by name), and the unclaimed ones at about the same time.
  std::multiset<std::string> sim_writes, real_writes;
  for (const auto& [rev, name] : sim_names)
    if (rev <= sim.final_revision) sim_writes.insert(name);
  for (const auto& [rev, name] : real_names)
    if (rev <= real.final_revision) real_writes.insert(name);
  if (sim_writes != real_writes) {
    nlohmann::json sj = nlohmann::json::array(), rj = nlohmann::json::array();
    for (const auto& w : sim_writes) sj.push_back(w);
    for (const auto& w : real_writes) rj.push_back(w);
    out.push_back({"writes", program.steps.size(), sj, rj});
  }
  for (const auto& su : sim_unclaimed) {
    for (const auto& ru : real_unclaimed) {
      if (ru.name != su.name || su.revision > sim.final_revision || ru.revision > real.final_revision) continue;
      const Duration tol = expiry_tolerance(program, std::min(su.seen_at, ru.seen_at));
      const Duration gap = su.seen_at > ru.seen_at ? su.seen_at - ru.seen_at : ru.seen_at - su.seen_at;
      if (gap > tol)
        out.push_back({"expiry", program.steps.size(),
                       {{"write", su.name}, {"seen_at_ms", su.seen_at.count() / 1'000'000}},
                       {{"write", ru.name}, {"seen_at_ms", ru.seen_at.count() / 1'000'000}}});
    }
  }

  nlohmann::json sf = sim.final_range, rf = real.final_range;
  name_revisions(sf, sim_names, sim.base);
  name_revisions(rf, real_names, real.base);
  if (sf.is_object()) sf.erase("header");
  if (rf.is_object()) rf.erase("header");
  if (sf != rf) out.push_back({"final-range", program.steps.size(), sf, rf});
  return out;
}

nlohmann::json describe_step(const ClusterStep& step) {
  const auto at_ms = step.at.count() / 1'000'000;
  switch (step.kind) {
    case ClusterStep::Kind::request:
      return {{"at_ms", at_ms}, {"client", step.client}, {"request", describe(step.request)}};
    case ClusterStep::Kind::move_leader:
      return {{"at_ms", at_ms}, {"fault", "move-leader"}, {"to_role", step.role}};
    case ClusterStep::Kind::pause_member:
      return {{"at_ms", at_ms}, {"fault", "pause"}, {"role", step.role},
              {"duration_ms", step.duration.count() / 1'000'000}};
    case ClusterStep::Kind::cut_client:
      return {{"at_ms", at_ms}, {"fault", "cut"}, {"client", step.client},
              {"duration_ms", step.duration.count() / 1'000'000}};
  }
  return nullptr;
}

}  // namespace lockstep::difftest
