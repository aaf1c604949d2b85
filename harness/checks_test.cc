// run_checks: what the checks add to the checkers' own verdicts.
#include "lockstep/harness/checks.h"

#include <catch2/catch.hpp>

#include <algorithm>

namespace lockstep {
namespace {

HistoryEvent event(const std::string& process, EventKind kind, const std::string& op,
                   std::int64_t true_ms, nlohmann::json args = nlohmann::json::object()) {
  HistoryEvent e;
  e.process = process;
  e.kind = kind;
  e.op = op;
  e.true_ns = true_ms * 1'000'000;
  e.args = std::move(args);
  return e;
}

// What overlap() puts around the holding, besides the delete.
struct Around {
  bool pause_holder = true;        // pauses of 8 s hit client-1 at 2 s
  bool calls_recorded = false;     // client-1's KV calls are in the history (its put's send)
  bool keep_alive = false;         // client-1 sent a keep-alive for lease 7 at 1.5 s
  std::int64_t holder_from_ms = 1000;
  std::int64_t key_from_ms = -1;       // when the key was put (-1: just before the grant)
  std::int64_t lease_ttl_seconds = 0;  // >0: the lease's grant at 0 s is recorded with it
};

// client-1 holds from 1 s (or `holder_from_ms`) to 20 s (its key "lock/1", created at
// revision 5 under lease 7); client-0 acquires at 12 s. At 11 s `delete_cause` (if any)
// deletes client-1's key.
History overlap(const nlohmann::json& delete_cause, const Around& around = {}) {
  History h;
  if (around.lease_ttl_seconds > 0)
    h.events.push_back(event("etcd", EventKind::truth, "lease-granted", 0,
                             {{"lease", 7}, {"ttl_seconds", around.lease_ttl_seconds}}));
  const std::int64_t from = around.holder_from_ms;
  h.events.push_back(event("client-1", EventKind::invoke, "acquire", from - 1, {{"mode", "exclusive"}}));
  if (around.calls_recorded)
    h.events.push_back(event("client-1", EventKind::trace, "kv-send", from - 1,
                             {{"call", 1}, {"member", "member-0"}, {"request", "txn"}}));
  h.events.push_back(event("etcd", EventKind::truth, "key-put", around.key_from_ms >= 0 ? around.key_from_ms : from - 1,
                           {{"key", "lock/1"}, {"revision", 5}, {"create_revision", 5}, {"lease", 7}}));
  h.events.push_back(event("client-1", EventKind::ok, "acquire", from));
  h.events.back().result = {{"key", "lock/1"}, {"key_revision", 5}, {"lease", 7}};
  if (around.keep_alive)
    h.events.push_back(event("client-1", EventKind::trace, "kv-send", from + 500,
                             {{"call", 2}, {"member", "member-0"}, {"request", "lease_keep_alive"},
                              {"lease", 7}}));
  if (around.pause_holder)
    h.events.push_back(event("world", EventKind::fault, "pause", 2000,
                             {{"phase", "start"}, {"duration_ms", 8000}, {"targets", {"client-1"}}}));
  if (!delete_cause.is_null()) {
    if (delete_cause.value("kind", "") == "lease-expiry")
      h.events.push_back(event("member-0", EventKind::truth, "lease-expired", 10999,
                               {{"lease", 7}, {"leader", "member-0"}}));
    h.events.push_back(event("etcd", EventKind::truth, "key-delete", 11000,
                             {{"key", "lock/1"}, {"revision", 9}, {"cause", delete_cause}}));
  }
  h.events.push_back(event("client-0", EventKind::invoke, "acquire", 11999, {{"mode", "exclusive"}}));
  h.events.push_back(event("client-0", EventKind::ok, "acquire", 12000));
  h.events.push_back(event("client-1", EventKind::invoke, "release", 20000));
  h.events.push_back(event("client-1", EventKind::ok, "release", 20001));
  h.events.push_back(event("client-0", EventKind::invoke, "release", 20002));
  h.events.push_back(event("client-0", EventKind::ok, "release", 20003));
  for (std::size_t i = 0; i < h.events.size(); ++i) h.events[i].index = static_cast<std::int64_t>(i);
  return h;
}

const CheckResult& mutex_of(const std::vector<CheckResult>& results) {
  for (const auto& r : results)
    if (r.name == "mutex") return r;
  FAIL("no mutex check");
  return results.front();
}

TEST_CASE("a violation is called the inherent limit of leases only when the holder's lease expired") {
  RunConfig config = default_run_config();
  config.algorithm = "etcd-mutex";
  config.algorithm_options = {{"lease_ttl_seconds", 10}};
  config.checks = {"mutex"};
  // The key went with its lease, by a revoke that committed, before client-0's grant.
  const auto expired = run_checks(config, overlap({{"kind", "lease-expiry"}, {"lease", 7}}));
  REQUIRE(mutex_of(expired).status == CheckStatus::violated);
  REQUIRE(mutex_of(expired).figures.value("inherent_lease_limit", false));
  REQUIRE(mutex_of(expired).summary.find("inherent limit of leases") != std::string::npos);
  // The same pause, but a request deleted the key: the algorithm's bug, however long the pause.
  const auto deleted = run_checks(
      config, overlap({{"kind", "request"}, {"request", "delete_range"}, {"client", "client-1"}}));
  REQUIRE(mutex_of(deleted).status == CheckStatus::violated);
  REQUIRE_FALSE(mutex_of(deleted).figures.value("inherent_lease_limit", false));
  REQUIRE(mutex_of(deleted).summary.find("inherent limit") == std::string::npos);
  // The key still there at the grant: nothing expired.
  const auto held = run_checks(config, overlap(nullptr));
  REQUIRE(mutex_of(held).status == CheckStatus::violated);
  REQUIRE_FALSE(mutex_of(held).figures.value("inherent_lease_limit", false));
}

// The mutex check's inherent-limit flag for etcd-mutex when client-1's key went with its lease
// (lease 7, of `around`'s TTL), whose lessor member-0 last renewed it at `renewed_ms` by
// `renewed_by`.
bool inherent_limit_after_renewal(const Around& around, std::int64_t renewed_ms, const char* renewed_by) {
  RunConfig config = default_run_config();
  config.algorithm = "etcd-mutex";
  config.checks = {"mutex"};
  const nlohmann::json expiry = {{"kind", "lease-expiry"}, {"lease", 7}, {"leader", "member-0"},
                                 {"renewed_ns", renewed_ms * 1'000'000}, {"renewed_by", renewed_by}};
  const auto results = run_checks(config, overlap(expiry, around));
  REQUIRE(mutex_of(results).status == CheckStatus::violated);
  return mutex_of(results).figures.value("inherent_lease_limit", false);
}

// A new leader's promotion renews every lease to its TTL plus an election timeout (etcd's lessor
// Promote): a lease so renewed at 0 s with a TTL of 2 s ran until 3 s, so a grant at 2.5 s was
// on a live lease (the limit of leases when it went later); renewed by its grant, it had run
// out at 2 s, before that grant (lost before it was taken).
TEST_CASE("a lease renewed by a leader's promotion lasts an election timeout more") {
  Around around;
  around.lease_ttl_seconds = 2;
  around.holder_from_ms = 2500;
  CHECK(inherent_limit_after_renewal(around, 0, "leader-election"));
  CHECK_FALSE(inherent_limit_after_renewal(around, 0, "grant"));
}

// A lessor counts the TTL on its own clock: a revoke that committed before the lease's last
// renewal plus its TTL (in true time) came from a fast or jumped lessor clock, and a grant in
// that time is no holder outliving its lease.
TEST_CASE("a lease cut short by its lessor's clock is not the inherent limit") {
  Around around;
  around.lease_ttl_seconds = 10;
  CHECK(inherent_limit_after_renewal(around, 1500, "keep-alive"));        // ran until 11.5 s, before client-0's grant at 12 s
  CHECK_FALSE(inherent_limit_after_renewal(around, 2500, "keep-alive"));  // would have run until 12.5 s: cut short at 11 s
}

TEST_CASE("a lease its holder never renewed while nothing stopped it is not the inherent limit") {
  RunConfig config = default_run_config();
  config.algorithm = "fixed-ttl-no-renewal";
  config.checks = {"mutex"};
  const nlohmann::json expiry = {{"kind", "lease-expiry"}, {"lease", 7}, {"leader", "member-0"}};
  auto inherent = [&](const Around& around) {
    const auto results = run_checks(config, overlap(expiry, around));
    REQUIRE(mutex_of(results).status == CheckStatus::violated);
    return mutex_of(results).figures.value("inherent_lease_limit", false);
  };
  Around unhindered;
  unhindered.pause_holder = false;
  unhindered.calls_recorded = true;
  CHECK_FALSE(inherent(unhindered));  // no keep-alive, no fault: it never renewed
  Around renewing = unhindered;
  renewing.keep_alive = true;
  CHECK(inherent(renewing));  // it kept the lease alive until something (unrecorded) stopped it
  Around paused = unhindered;
  paused.pause_holder = true;
  CHECK(inherent(paused));  // a pause stopped its keep-alives before the first was due
  Around unrecorded;
  unrecorded.pause_holder = false;
  CHECK(inherent(unrecorded));  // no KV calls recorded: a missing keep-alive proves nothing
  // A fault on the holder's link to the resource stops no keep-alive; one to a member could.
  auto with_link_fault = [&](nlohmann::json to) {
    History h = overlap(expiry, unhindered);
    HistoryEvent loss = event("world", EventKind::fault, "loss", 2000,
                              {{"phase", "start"}, {"duration_ms", 3000}, {"from", {"client-1"}},
                               {"to", std::move(to)}, {"probability", 0.5}});
    const auto at = std::find_if(h.events.begin(), h.events.end(),
                                 [](const HistoryEvent& e) { return e.true_ns > 2'000'000'000; });
    h.events.insert(at, loss);
    for (std::size_t i = 0; i < h.events.size(); ++i) h.events[i].index = static_cast<std::int64_t>(i);
    return mutex_of(run_checks(config, h)).figures.value("inherent_lease_limit", false);
  };
  CHECK_FALSE(with_link_fault({"resource"}));
  CHECK(with_link_fault({"member-1"}));
}

// The mutex check's inherent-limit flag for `around` (a lease of TTL 2 s), with the lease last
// renewed at 0 s (run out by 2 s, before the holder took the lock at 3 s: lost before it was
// taken, not the limit of leases) and at 1.5 s (alive until 3.5 s: the limit of leases).
void check_lost_before_taken(const std::string& algorithm, const Around& around) {
  RunConfig config = default_run_config();
  config.algorithm = algorithm;
  config.checks = {"mutex"};
  nlohmann::json expiry = {{"kind", "lease-expiry"}, {"lease", 7}, {"leader", "member-0"},
                           {"renewed_ns", 0}};
  auto results = run_checks(config, overlap(expiry, around));
  REQUIRE(mutex_of(results).status == CheckStatus::violated);
  CHECK_FALSE(mutex_of(results).figures.value("inherent_lease_limit", false));
  expiry["renewed_ns"] = 1'500'000'000;
  results = run_checks(config, overlap(expiry, around));
  CHECK(mutex_of(results).figures.value("inherent_lease_limit", false));
}

TEST_CASE("a lease that had run out before the key was made is a lock lost before it was taken") {
  Around late;
  late.holder_from_ms = 3000;  // the key at 2.999 s
  late.lease_ttl_seconds = 2;
  check_lost_before_taken("txn-try-lock", late);
}

// A waiter paused past its TTL: its key stood from before, but its lease had run out when it
// was granted the lock (the revoke had not committed yet). Lost before it was taken, too.
TEST_CASE("a lease that had run out before the grant of a waiting key is a lock lost before it was taken") {
  Around waited;
  waited.key_from_ms = 500;      // the waiter's key, made while the lease was alive
  waited.holder_from_ms = 3000;  // granted at 3 s
  waited.lease_ttl_seconds = 2;
  check_lost_before_taken("etcd-mutex", waited);
}

}  // namespace
}  // namespace lockstep
