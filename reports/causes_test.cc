// The causal chain behind a lost key or lease, on small hand-built histories whose story is
// known: each sentence must name what the history shows, and nothing it does not.
#include <catch2/catch.hpp>

#include <array>
#include <functional>

#include "lockstep/checker/mutex_checker.h"
#include "lockstep/reports/causes.h"
#include "lockstep/reports/elections.h"
#include "lockstep/reports/explain.h"
#include "lockstep/reports/explain_parts.h"
#include "lockstep/reports/fault_bands.h"
#include "lockstep/reports/report_test_support.h"
#include "lockstep/reports/request_way.h"
#include "lockstep/reports/run_facts.h"

namespace lockstep::reports {
namespace {

using reports_test::HistoryBuilder;
using reports_test::ms_to_ns;

using reports_test::contains;
using reports_test::request_cause;

void call(HistoryBuilder& b, const std::string& client, std::int64_t id, const std::string& request,
          std::int64_t sent_ns, std::int64_t end_ns, const std::string& outcome = "ok",
          const std::string& error = "", std::int64_t lease = 0) {
  nlohmann::json send = {{"call", id}, {"request", request}, {"member", "member-2"}};
  if (lease != 0) send["lease"] = lease;
  b.add(client, EventKind::trace, "kv-send", sent_ns, send);
  nlohmann::json end = {{"call", id}, {"outcome", outcome}};
  if (!error.empty()) end["error"] = error;
  b.add(client, EventKind::trace, "kv-end", end_ns, end);
}

// client-0's acquire invoked at 1.000 s, whose txn (call 1, to member-0) created `key` (revision
// `revision`, no lease) at 1.002 s and was answered at 1.003 s.
void key_created_by_acquire(HistoryBuilder& b, const std::string& key, std::int64_t revision) {
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(1000), {{"call", 1}, {"request", "txn"}, {"member", "member-0"}});
  b.truth("etcd", "key-put", ms_to_ns(1002), {{"key", key}, {"revision", revision}, {"create_revision", revision},
                                        {"lease", 0}, {"value", ""}, {"cause", request_cause("client-0", 1, "txn", ms_to_ns(1000))}});
  b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(1003), {{"call", 1}, {"outcome", "ok"}});
}

// The cause of a lease renewal by client-0's keep-alive call 2, sent to member-1 at 2.000 s and
// given up at 7.000 s.
nlohmann::json renewal_by_call_2() {
  return {{"kind", "request"}, {"request", "lease_keep_alive"}, {"client", "client-0"}, {"call", 2},
          {"member", "member-1"}, {"sent_ns", ms_to_ns(2000)}, {"abandoned_ns", ms_to_ns(7000)}};
}

// The words for every leaderless span of `b`'s history (leaderless_span_words).
std::string whole_leaderless_words(const HistoryBuilder& b) {
  const RunFacts facts(b.history);
  return leaderless_span_words(facts, facts.leaderless(0, facts.end_ns(), 1));
}

// The liveness check's explanation of `b`'s history (client-1 waited), one sentence a line.
std::string liveness_sentences(const HistoryBuilder& b) {
  const reports::RunFacts facts(b.history);
  const reports::Story story = reports::explain_liveness(facts, {{"summary", "client-1 waited"}});
  std::string text;
  for (const auto& sentence : story.sentences) text += sentence + "\n";
  return text;
}

TEST_CASE("a key its holder's own release deleted is said to be that release's, with the revoke it lost") {
  // A re-entrant lock: client-2's release deletes the lock key, but its revoke is dropped by a
  // leader hand-over, so the lease and the owner key stay; the next acquire finds the owner
  // key and counts itself as still holding, while client-0 takes the free lock.
  HistoryBuilder b;
  b.truth("member-2", "leader-elected", ms_to_ns(100), {{"member", 2}, {"term", 1}});
  b.add("client-2", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(1050), {{"key", "/lock"}, {"revision", 5}, {"create_revision", 5}, {"lease", 77},
                                        {"value", "client-2"}, {"cause", request_cause("client-2", 1, "txn", ms_to_ns(1040))}});
  b.truth("etcd", "key-put", ms_to_ns(1060), {{"key", "/lock/owner"}, {"revision", 6}, {"create_revision", 6}, {"lease", 77},
                                        {"value", "client-2"}, {"cause", request_cause("client-2", 2, "put", ms_to_ns(1055))}});
  b.add("client-2", EventKind::ok, "acquire", ms_to_ns(1100), {}, {{"key", "/lock"}, {"key_revision", 5}, {"lease", 77}});
  b.add("client-2", EventKind::invoke, "release", ms_to_ns(2000));
  b.add("client-2", EventKind::trace, "kv-send", ms_to_ns(2000), {{"call", 5}, {"request", "delete_range"}, {"member", "member-2"}});
  b.truth("etcd", "key-delete", ms_to_ns(2002), {{"key", "/lock"}, {"revision", 7},
                                           {"cause", request_cause("client-2", 5, "delete_range", ms_to_ns(2000))}});
  b.add("client-2", EventKind::trace, "kv-end", ms_to_ns(2003), {{"call", 5}, {"outcome", "ok"}});
  b.fault("leader-change", "start", ms_to_ns(2003), {{"from_member", 2}, {"to_member", 1}, {"duration_ms", 0}, {"start_ms", 2003}});
  b.fault("pause", "start", ms_to_ns(2003), {{"targets", {"client-0"}}, {"duration_ms", 10}, {"start_ms", 2003}});
  b.truth("member-1", "leader-elected", ms_to_ns(2003), {{"member", 1}, {"term", 2}});  // the hand-over took
  b.add("client-2", EventKind::trace, "kv-send", ms_to_ns(2004), {{"call", 6}, {"request", "lease_revoke"}, {"member", "member-2"}, {"lease", 77}});
  b.add("client-2", EventKind::trace, "kv-end", ms_to_ns(2006), {{"call", 6}, {"outcome", "error"}, {"error", "raft proposal dropped"}});
  b.add("client-2", EventKind::ok, "release", ms_to_ns(2006));
  b.fault("pause", "end", ms_to_ns(2013), {{"targets", {"client-0"}}, {"duration_ms", 10}, {"start_ms", 2003}});
  b.add("client-2", EventKind::invoke, "acquire", ms_to_ns(2100), {{"mode", "exclusive"}});
  b.add("client-2", EventKind::ok, "acquire", ms_to_ns(2110), {}, {{"key", "/lock"}, {"key_revision", 5}, {"lease", 77}});
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(2150), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(2200), {{"key", "/lock"}, {"revision", 8}, {"create_revision", 8}, {"lease", 88},
                                        {"value", "client-0"}, {"cause", request_cause("client-0", 3, "txn", ms_to_ns(2190))}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(2210), {}, {{"key", "/lock"}, {"key_revision", 8}, {"lease", 88}});
  b.add("client-2", EventKind::invoke, "release", ms_to_ns(2300));
  b.add("client-2", EventKind::ok, "release", ms_to_ns(2300));
  b.add("client-2", EventKind::invoke, "release", ms_to_ns(2300));
  b.add("client-2", EventKind::ok, "release", ms_to_ns(2300));

  const CheckResult mutex = check_mutual_exclusion(b.history);
  REQUIRE(mutex.status == CheckStatus::violated);
  const auto explanations = explain_checks(b.history, reports_test::verdict_of({mutex}, b.history));
  REQUIRE(explanations.size() == 1);
  std::string text;
  for (const auto& s : explanations[0].sentences) text += s + "\n";
  INFO(text);
  CHECK(contains(text, "client-2's lock key /lock (created at 1.050 s, revision 5) was deleted at 2.002 s (revision 7) "
                       "by a delete_range that client-2 sent to member-2 at 2.000 s (call 5) during its own release "
                       "(started at 2.000 s)."));
  // The hand-over is named; the pause of client-0 at the same instant is not (it drops no
  // proposal).
  CHECK(contains(text, "That release's lease_revoke (call 6) failed at 2.006 s (raft proposal dropped), after the "
                       "leader was moved from member-2 to member-1 at 2.003 s: lease 4d and its key /lock/owner "
                       "outlived the release."));
  CHECK_FALSE(contains(text, "client-0 was paused"));
  CHECK(contains(text, "released the lock at 2.300 s (twice)"));
  CHECK(explanations[0].cause["lost"].value("in_operation", "") == "release");
}

TEST_CASE("a lease left to expire by an acquire its client gave up names the fault that ended the acquire") {
  // client-2's acquire loses its member to a crash and gives up; nothing keeps its lease alive
  // after that. The crash is over long before a keep-alive would have been due, so the window
  // of missed renewals does not contain it: the abandoned acquire must name it.
  HistoryBuilder b;
  b.truth("member-1", "leader-elected", ms_to_ns(100), {{"member", 1}, {"term", 1}});
  b.add("client-2", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  call(b, "client-2", 1, "lease_grant", ms_to_ns(1000), ms_to_ns(1003));
  b.truth("etcd", "lease-granted", ms_to_ns(1002), {{"lease", 55}, {"ttl_seconds", 2},
                                              {"cause", request_cause("client-2", 1, "lease_grant", ms_to_ns(1000))}});
  b.truth("etcd", "key-put", ms_to_ns(1005), {{"key", "/lock/a"}, {"revision", 5}, {"create_revision", 5}, {"lease", 55},
                                        {"value", "client-2"}, {"cause", request_cause("client-2", 2, "put", ms_to_ns(1004))}});
  call(b, "client-2", 3, "lease_keep_alive", ms_to_ns(1600), ms_to_ns(1602), "ok", "", 55);
  b.fault("crash", "start", ms_to_ns(1800), {{"targets", {"member-2"}}, {"duration_ms", 100}, {"start_ms", 1800}});
  b.add("client-2", EventKind::info, "acquire", ms_to_ns(1801), {},
        {{"error", "connection-lost"}, {"message", "watch stream's member went away"}});
  b.fault("crash", "end", ms_to_ns(1900), {{"targets", {"member-2"}}, {"duration_ms", 100}, {"start_ms", 1800}});
  const nlohmann::json expiry = {{"lease", 55}, {"leader", "member-1"}, {"term", 1}, {"found_ns", ms_to_ns(3600)},
                                 {"renewed_ns", ms_to_ns(1600)}, {"renewed_by", "keep-alive"}};
  b.truth("member-1", "lease-revoke-attempt", ms_to_ns(3600), expiry);
  b.truth("member-1", "lease-expired", ms_to_ns(3602), expiry);

  const reports::RunFacts facts(b.history);
  const LeaseLifetime* lease = facts.truth().find_lease(55);
  REQUIRE(lease != nullptr);
  REQUIRE(lease->expired_ns);
  reports::Story story;
  const nlohmann::json cause = reports::explain_lease_expiry(facts, *lease, "client-2", story);
  std::string text;
  for (const auto& s : story.sentences) text += s + "\n";
  INFO(text);
  CHECK(contains(text, "client-2 had given up the acquire that took this lease (started at 1.000 s) at 1.801 s "
                       "(connection-lost: watch stream's member went away) and kept the lease alive no more: "
                       "member-2 crashed from 1.800 s to 1.900 s."));
  CHECK(cause["gave_up"].value("operation", "") == "acquire");
  CHECK(cause["faults"].size() == 1);
}

TEST_CASE("keep-alives that went unanswered and stopped before the last renewal are said, with what kept them unanswered") {
  // The session sends keep-alives through a member whose cluster lost its quorum; none is
  // answered, it gives the lease up, and a new leader's election extends the lease once more
  // before it expires. An acquire the client gave up meanwhile is not why: its keep-alives
  // had already gone unanswered, and its next acquire used the lease again.
  HistoryBuilder b;
  b.truth("member-2", "leader-elected", ms_to_ns(100), {{"member", 2}, {"term", 1}});
  b.add("client-2", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  call(b, "client-2", 1, "lease_grant", ms_to_ns(1000), ms_to_ns(1003));
  b.truth("etcd", "lease-granted", ms_to_ns(1002), {{"lease", 66}, {"ttl_seconds", 5},
                                              {"cause", request_cause("client-2", 1, "lease_grant", ms_to_ns(1000))}});
  b.fault("crash", "start", ms_to_ns(1500), {{"targets", {"member-0", "member-1"}}, {"duration_ms", 5000}, {"start_ms", 1500}});
  b.truth("member-2", "leader-stepped-down", ms_to_ns(2500), {{"member", 2}, {"term", 1}});
  // A keep-alive every 500 ms from 2.6 s, each reaching its deadline after 1 s, unanswered,
  // until a whole TTL (5 s) has passed since the grant: the session gives the lease up.
  for (int i = 0; i < 7; ++i) {
    b.add("client-2", EventKind::trace, "kv-send", ms_to_ns(2600 + 500 * i),
          {{"call", 10 + i}, {"request", "lease_keep_alive"}, {"member", "member-2"}, {"lease", 66}});
    if (i >= 2) b.add("client-2", EventKind::trace, "kv-end", ms_to_ns(2600 + 500 * i), {{"call", 8 + i}, {"outcome", "deadline"}});
    if (i == 2) b.add("client-2", EventKind::fail, "acquire", ms_to_ns(3700), {}, {{"error", "timeout"}});
  }
  b.add("client-2", EventKind::trace, "kv-end", ms_to_ns(6100), {{"call", 15}, {"outcome", "deadline"}});
  b.add("client-2", EventKind::trace, "kv-end", ms_to_ns(6450), {{"call", 16}, {"outcome", "deadline"}});
  b.add("client-2", EventKind::invoke, "acquire", ms_to_ns(3800), {{"mode", "exclusive"}});
  b.fault("crash", "end", ms_to_ns(6500), {{"targets", {"member-0", "member-1"}}, {"duration_ms", 5000}, {"start_ms", 1500}});
  b.truth("member-0", "leader-elected", ms_to_ns(7000), {{"member", 0}, {"term", 2}});
  b.truth("etcd", "key-put", ms_to_ns(7010), {{"key", "/lock"}, {"revision", 5}, {"create_revision", 5}, {"lease", 66},
                                        {"value", "client-2"}, {"cause", request_cause("client-2", 20, "txn", ms_to_ns(3800))}});
  const nlohmann::json expiry = {{"lease", 66}, {"leader", "member-0"}, {"term", 2}, {"found_ns", ms_to_ns(12000)},
                                 {"renewed_ns", ms_to_ns(7000)}, {"renewed_by", "leader-election"}};
  b.truth("member-0", "lease-revoke-attempt", ms_to_ns(12000), expiry);
  b.truth("member-0", "lease-expired", ms_to_ns(12002), expiry);

  const reports::RunFacts facts(b.history);
  const LeaseLifetime* lease = facts.truth().find_lease(66);
  REQUIRE(lease != nullptr);
  reports::Story story;
  const nlohmann::json cause = reports::explain_lease_expiry(facts, *lease, "client-2", story);
  std::string text;
  for (const auto& s : story.sentences) text += s + "\n";
  INFO(text);
  CHECK_FALSE(contains(text, "had given up the acquire"));
  CHECK(cause.find("gave_up") == cause.end());
  CHECK(contains(text, "client-2's keep-alives for it had stopped: the last was sent at 5.600 s (call 16), and none of the 7 it sent "
                       "from 2.600 s had been answered by then; a session gives its lease up once a whole TTL (5 s) "
                       "has passed since it sent the last keep-alive that was answered, or since the lease's grant "
                       "at 1.002 s when none was, and it gave this one up at its next check, about 6.100 s; meanwhile member-0 and member-1 crashed from 1.500 s to 6.500 s"));
  CHECK(contains(text, "no member led the cluster from 2.600 s to 5.600 s"));
  CHECK(cause.value("keep_alives_stopped_ns", std::int64_t{0}) == ms_to_ns(5600));
}

// Two clients granted at 9.000 s and 9.001 s after both their keys went with their leases
// (3.006 s and 3.009 s).
History two_grants_without_keys(bool client4_reads_another_key) {
  HistoryBuilder b;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  for (int c : {1, 4}) {
    const std::string client = "client-" + std::to_string(c);
    b.add(client, EventKind::invoke, "acquire", ms_to_ns(1000 + c), {{"mode", "exclusive"}});
    b.truth("etcd", "key-put", ms_to_ns(1010 + c), {{"key", "/l/" + client}, {"revision", c + 1}, {"create_revision", c + 1},
                                             {"lease", 10 + c}, {"value", client},
                                             {"cause", request_cause(client, 1, "put", ms_to_ns(1005 + c))}});
  }
  for (int c : {1, 4}) {
    const nlohmann::json expiry = {{"lease", 10 + c}, {"leader", "member-0"}, {"term", 1}, {"found_ns", ms_to_ns(3000)},
                                   {"renewed_ns", ms_to_ns(1000)}, {"renewed_by", "grant"}};
    b.truth("member-0", "lease-expired", ms_to_ns(3000 + c), expiry);
    nlohmann::json cause = expiry;
    cause["kind"] = "lease-expiry";
    b.truth("etcd", "key-delete", ms_to_ns(3005 + c), {{"key", "/l/client-" + std::to_string(c)}, {"revision", 10 + c},
                                                 {"lease_expired", true}, {"cause", cause}});
  }
  // client-4 may read another key while it waits, never its own; client-1 sends nothing.
  if (client4_reads_another_key) {
    b.add("client-4", EventKind::trace, "kv-send", ms_to_ns(5000),
          {{"call", 2}, {"request", "range"}, {"key", "/l/client-1"}, {"member", "member-0"}});
    b.add("client-4", EventKind::trace, "kv-end", ms_to_ns(5010), {{"call", 2}, {"outcome", "ok"}});
  }
  b.add("client-4", EventKind::ok, "acquire", ms_to_ns(9000), {}, {{"key", "/l/client-4"}, {"key_revision", 5}, {"lease", 14}});
  // In the grant's instant, after it: client-4's next operation's first call, no part of its wait.
  b.add("client-4", EventKind::invoke, "read", ms_to_ns(9000), {{"token", 5}});
  b.add("client-4", EventKind::trace, "kv-send", ms_to_ns(9000),
        {{"call", 3}, {"request", "range"}, {"key", "/l/client-4"}, {"member", "member-0"}});
  b.add("client-1", EventKind::ok, "acquire", ms_to_ns(9001), {}, {{"key", "/l/client-1"}, {"key_revision", 2}, {"lease", 11}});
  return b.history;
}

// The explanation of the mutex violation in `h`, one sentence per line.
std::string mutex_story(const History& h, nlohmann::json* cause = nullptr) {
  const CheckResult mutex = check_mutual_exclusion(h);
  REQUIRE(mutex.status == CheckStatus::violated);
  const auto x = explain_checks(h, reports_test::verdict_of({mutex}, h));
  REQUIRE(x.size() == 1);
  if (cause != nullptr) *cause = x[0].cause;
  std::string text;
  for (const auto& sentence : x[0].sentences) text += sentence + "\n";
  return text;
}

TEST_CASE("when both grants had no key behind them, both are said") {
  nlohmann::json cause;
  const std::string text = mutex_story(two_grants_without_keys(true), &cause);
  INFO(text);
  CHECK(contains(text, "client-4 was told it held the lock at 9.000 s although its own lock key /l/client-4 was already gone."));
  CHECK(contains(text, "client-4 sent 1 request between its key's deletion at 3.009 s and the grant at 9.000 s: "
                       "range of /l/client-1 (call 2, at 5.000 s); none of them read its own key."));
  CHECK(contains(text, "The last lock key ahead of client-4's own (revision 5) deleted while it waited was "
                       "client-1's key /l/client-1 (revision 2), at 3.006 s with its lease, 5.994 s before the grant; "
                       "member-0's lessor had last renewed the lease at 1.000 s (its grant)."));
  CHECK(contains(text, "client-1's own lock key /l/client-1 (revision 2) was gone too when it was granted at 9.001 s: "
                       "deleted at 3.006 s with its lease. Neither holder's key existed."));
  CHECK(cause.value("later_key_gone", "") == "/l/client-1");
}

// Why the key ahead went when it did: its holder crashed while it stood, and the lease lived
// out its TTL from its last renewal. Not said when a newer leader was elected before the
// revoke committed: the revoking lessor's last renewal was then not the cluster's.
TEST_CASE("the key ahead that went with its lease says its holder's crash and the lease's last renewal") {
  HistoryBuilder crashed;
  crashed.history = two_grants_without_keys(true);
  crashed.truth("member-0", "lease-granted", ms_to_ns(1000), {{"lease", 11}, {"ttl_seconds", 2}});
  crashed.fault("crash", "start", ms_to_ns(2000), {{"targets", {"client-1"}}, {"duration_ms", 100}, {"start_ms", 2000}});
  crashed.sort_by_time();
  const std::string text = mutex_story(crashed.history);
  INFO(text);
  CHECK(contains(text, "at 3.006 s with its lease, 5.994 s before the grant; client-1 had crashed at 2.000 s, and "
                       "member-0's lessor had last renewed the lease at 1.000 s (its grant), with a TTL of 2 s."));

  HistoryBuilder deposed;
  deposed.history = two_grants_without_keys(true);
  deposed.truth("member-1", "leader-elected", ms_to_ns(2500), {{"member", 1}, {"term", 2}});
  deposed.sort_by_time();
  const std::string after_election = mutex_story(deposed.history);
  INFO(after_election);
  CHECK(contains(after_election, "at 3.006 s with its lease, 5.994 s before the grant."));
  CHECK(!contains(after_election, "lessor had last renewed the lease"));
}

// A fault on the holder that was over before its lease was granted did nothing to that lease:
// it is neither named nor denied; the client's faults are looked for over the lease's life.
TEST_CASE("a fault over before the lease's grant is not named among what could have stopped its renewal") {
  HistoryBuilder b;
  b.history = two_grants_without_keys(false);
  b.fault("pause", "start", ms_to_ns(200), {{"targets", {"client-4"}}, {"duration_ms", 300}, {"start_ms", 200}});
  b.fault("pause", "end", ms_to_ns(500), {{"targets", {"client-4"}}, {"duration_ms", 300}, {"start_ms", 200}});
  b.truth("member-0", "lease-granted", ms_to_ns(1004), {{"lease", 14}, {"ttl_seconds", 2}});
  b.sort_by_time();
  const std::string text = mutex_story(b.history);
  INFO(text);
  CHECK(contains(text, "No fault hit client-4 between the lease's grant at 1.004 s and 3.000 s;"));
  CHECK_FALSE(contains(text, "paused"));
}

// The leader's clock ran at 3 times nominal speed from 2 s to 6 s, so its lessor counted the
// 10 s TTL of client-1's lease (granted at 1 s) out by 5 s; client-2 was granted the lock at
// 6.7 s, long before 11 s. The holder did not outlive its lease: the lessor's clock cut it short.
TEST_CASE("a lease cut short by the lessor's fast clock is named as such and not as the limit of leases") {
  HistoryBuilder b;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  b.truth("etcd", "lease-granted", ms_to_ns(1000), {{"lease", 11}, {"ttl_seconds", 10}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(1001), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(1010), {{"key", "/l/a"}, {"revision", 2}, {"create_revision", 2}, {"lease", 11},
                                        {"value", "client-1"}, {"cause", request_cause("client-1", 2, "txn", ms_to_ns(1005))}});
  b.add("client-1", EventKind::ok, "acquire", ms_to_ns(1020), {}, {{"key", "/l/a"}, {"key_revision", 2}, {"lease", 11}});
  const nlohmann::json clock = {{"targets", {"member-0"}}, {"clock", "monotonic"}, {"rate_ppm", 3'000'000},
                                {"duration_ms", 4000}, {"start_ms", 2000}};
  b.fault("clock", "start", ms_to_ns(2000), clock);
  const nlohmann::json expiry = {{"lease", 11}, {"leader", "member-0"}, {"term", 1}, {"found_ns", ms_to_ns(5000)},
                                 {"renewed_ns", ms_to_ns(1000)}, {"renewed_by", "grant"}};
  b.truth("member-0", "lease-expired", ms_to_ns(5001), expiry);
  nlohmann::json cause = expiry;
  cause["kind"] = "lease-expiry";
  b.truth("etcd", "key-delete", ms_to_ns(5002), {{"key", "/l/a"}, {"revision", 3}, {"lease_expired", true}, {"cause", cause}});
  b.fault("clock", "end", ms_to_ns(6000), clock);
  b.add("client-2", EventKind::invoke, "acquire", ms_to_ns(6500), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(6600), {{"key", "/l/b"}, {"revision", 4}, {"create_revision", 4}, {"lease", 12},
                                        {"value", "client-2"}, {"cause", request_cause("client-2", 1, "txn", ms_to_ns(6590))}});
  b.add("client-2", EventKind::ok, "acquire", ms_to_ns(6700), {}, {{"key", "/l/b"}, {"key_revision", 4}, {"lease", 12}});
  b.add("client-1", EventKind::invoke, "release", ms_to_ns(8000));
  b.add("client-1", EventKind::ok, "release", ms_to_ns(8001));
  nlohmann::json why;
  const std::string text = mutex_story(b.history, &why);
  INFO(text);
  CHECK(contains(text, "The lease was cut short by member-0's clock (member-0's monotonic clock ran fast, at 3 times "
                       "nominal speed from 2.000 s to 6.000 s): member-0's lessor, which counts the TTL on its own "
                       "monotonic clock, found it expired at 5.000 s, 4.000 s after renewing it at 1.000 s; at nominal "
                       "speed its TTL of 10 s runs until 11.000 s, after client-2's grant at 6.700 s. client-1 had not "
                       "outlived its lease"));
  CHECK_FALSE(contains(text, "inherent limit"));
  CHECK(why.value("lease_cut_short", false));
  CHECK_FALSE(why.value("inherent_lease_limit", false));
}

TEST_CASE("a waiter granted after its key went without any request says it read nothing") {
  const std::string text = mutex_story(two_grants_without_keys(false));
  INFO(text);
  CHECK(contains(text, "client-4 sent no request between its key's deletion at 3.009 s and the grant at 9.000 s: "
                       "it did not read its own key again."));
}

TEST_CASE("a pause of the holder that stopped no keep-alive but kept it holding is still named") {
  // The story of the paused holder, with one more pause of client-0 (1.150 s to 1.200 s),
  // over before its first keep-alive was due: not why the lease expired, but time it held.
  const History base = reports_test::paused_holder_history();
  HistoryBuilder b;
  bool added = false;
  for (const auto& e : base.events) {
    if (!added && e.true_ns > ms_to_ns(1150)) {
      b.fault("pause", "start", ms_to_ns(1150), {{"targets", {"client-0"}}, {"duration_ms", 50}, {"start_ms", 1150}});
      b.fault("pause", "end", ms_to_ns(1200), {{"targets", {"client-0"}}, {"duration_ms", 50}, {"start_ms", 1150}});
      added = true;
    }
    b.add(e.process, e.kind, e.op, e.true_ns, e.args, e.result);
  }
  b.history.header = base.header;
  const CheckResult mutex = check_mutual_exclusion(b.history);
  REQUIRE(mutex.status == CheckStatus::violated);
  const auto x = explain_checks(b.history, reports_test::verdict_of({mutex}, b.history));
  REQUIRE(x.size() == 1);
  std::string text;
  for (const auto& sentence : x[0].sentences) text += sentence + "\n";
  INFO(text);
  CHECK(contains(text, "In that time client-0 was paused from 1.500 s to 4.200 s."));
  CHECK(contains(text, "While it held the lock, client-0 was paused from 1.150 s to 1.200 s."));
}

TEST_CASE("liveness: a key left by a failed acquire names the acquire's clean-up that failed") {
  HistoryBuilder b;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  key_created_by_acquire(b, "/l/a", 5);
  b.truth("member-0", "leader-stepped-down", ms_to_ns(1500), {{"member", 0}, {"term", 1}});
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(2000), {{"call", 2}, {"request", "delete_range"}, {"member", "member-0"}});
  b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(7000), {{"call", 2}, {"outcome", "deadline"}});
  b.add("client-0", EventKind::fail, "acquire", ms_to_ns(7000), {}, {{"error", "deadline-exceeded"}});
  b.truth("member-1", "leader-elected", ms_to_ns(9000), {{"member", 1}, {"term", 2}});
  const std::string text = liveness_sentences(b);
  INFO(text);
  CHECK(contains(text, "during client-0's acquire invoked at 1.000 s, which ended fail (deadline-exceeded) at 7.000 s: "
                       "no release of client-0's would delete it, and the acquire's clean-up failed: its delete_range "
                       "(call 2) to member-0 reached its deadline at 7.000 s (no member led the cluster from 1.500 s "
                       "to 9.000 s); it had no lease, so nothing would ever delete it."));
}

TEST_CASE("liveness: a failed clean-up names the faults on its calls' way, not a leaderless span after them") {
  HistoryBuilder b;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  key_created_by_acquire(b, "/l/a", 5);
  b.fault("partition", "start", ms_to_ns(1500), {{"from", {"client-0"}}, {"to", {"member-0"}}, {"symmetric", true}, {"duration_ms", 7000}});
  // A cut elsewhere (client-1's link) held none of client-0's calls.
  b.fault("partition", "start", ms_to_ns(1600), {{"from", {"client-1"}}, {"to", {"member-0"}}, {"symmetric", true}, {"duration_ms", 7000}});
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(2000), {{"call", 2}, {"request", "delete_range"}, {"member", "member-0"}});
  b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(7000), {{"call", 2}, {"outcome", "deadline"}});
  b.add("client-0", EventKind::fail, "acquire", ms_to_ns(7000), {}, {{"error", "deadline-exceeded"}});
  // No leader after the clean-up had ended: not what held it.
  b.truth("member-0", "leader-stepped-down", ms_to_ns(7500), {{"member", 0}, {"term", 1}});
  b.fault("partition", "end", ms_to_ns(8500), {{"from", {"client-0"}}, {"to", {"member-0"}}, {"symmetric", true}, {"duration_ms", 7000}});
  b.fault("partition", "end", ms_to_ns(8600), {{"from", {"client-1"}}, {"to", {"member-0"}}, {"symmetric", true}, {"duration_ms", 7000}});
  b.truth("member-1", "leader-elected", ms_to_ns(9000), {{"member", 1}, {"term", 2}});
  const std::string text = liveness_sentences(b);
  INFO(text);
  CHECK(contains(text, "its delete_range (call 2) to member-0 reached its deadline at 7.000 s (on their way the links "
                       "between client-0 and member-0 were cut (their messages held) from 1.500 s to 8.500 s); it had "
                       "no lease"));
}

// The opening shared by the waiter histories: member-0 leads; client-1 holds /l/a (revision 4)
// from 0.502 s; client-0's acquire (from 1.000 s) creates /l/b (revision 5) through `member`.
void holder_and_waiter(HistoryBuilder& b, const std::string& member) {
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(500), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(501), {{"key", "/l/a"}, {"revision", 4}, {"create_revision", 4}, {"lease", 0},
                                       {"value", ""}, {"cause", request_cause("client-1", 1, "txn", ms_to_ns(500))}});
  b.add("client-1", EventKind::ok, "acquire", ms_to_ns(502), {}, {{"key", "/l/a"}, {"key_revision", 4}});
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(1000), {{"call", 1}, {"request", "txn"}, {"member", member}});
  b.truth("etcd", "key-put", ms_to_ns(1002), {{"key", "/l/b"}, {"revision", 5}, {"create_revision", 5}, {"lease", 0},
                                        {"value", ""}, {"cause", request_cause("client-0", 1, "txn", ms_to_ns(1000))}});
  b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(1003), {{"call", 1}, {"outcome", "ok"}});
}

// client-1 held /l/a (revision 4) from 0.502 s and released it at 2.001 s; client-0's acquire
// (from 1.000 s, key /l/b, revision 5) waited behind it and failed at 7.000 s, while the links
// from member-0 to client-0 were cut over `cuts_ms`; with `cleanup_ms`, the acquire stopped
// waiting then and sent its clean-up (a delete, call 2, to its deadline); `releases_ns` are the
// link-released records (held since, released at) of the link from member-0 to client-0. The
// liveness explanation.
std::string waiter_behind_released_key(const std::vector<std::pair<int, int>>& cuts_ms, int cleanup_ms = 0,
                                       const std::vector<std::pair<std::int64_t, std::int64_t>>& releases_ns = {}) {
  HistoryBuilder b;
  holder_and_waiter(b, "member-0");
  for (const auto& [from_ms, to_ms] : cuts_ms)
    b.fault("partition", "start", ms_to_ns(from_ms), {{"from", {"member-0"}}, {"to", {"client-0"}}, {"symmetric", false}, {"duration_ms", to_ms - from_ms}});
  if (cleanup_ms > 0)
    b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(cleanup_ms), {{"call", 2}, {"request", "delete_range"}, {"member", "member-0"}});
  b.add("client-1", EventKind::invoke, "release", ms_to_ns(2000));
  b.truth("etcd", "key-delete", ms_to_ns(2001), {{"key", "/l/a"}, {"revision", 6}, {"cause", request_cause("client-1", 2, "delete_range", ms_to_ns(2000))}});
  b.add("client-1", EventKind::ok, "release", ms_to_ns(2002));
  if (cleanup_ms > 0) b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(7000), {{"call", 2}, {"outcome", "deadline"}});
  b.add("client-0", EventKind::fail, "acquire", ms_to_ns(7000), {}, {{"error", "deadline-exceeded"}});
  for (const auto& [from_ms, to_ms] : cuts_ms)
    b.fault("partition", "end", ms_to_ns(to_ms), {{"from", {"member-0"}}, {"to", {"client-0"}}, {"symmetric", false}, {"duration_ms", to_ms - from_ms}});
  for (const auto& [held_since_ns, at_ns] : releases_ns)
    b.truth("client-0", "link-released", at_ns,
            {{"from", "member-0"}, {"to", "client-0"}, {"held_since_ns", held_since_ns}, {"messages", 1}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(9500), {{"mode", "exclusive"}});
  b.sort_by_time();
  return liveness_sentences(b);
}

TEST_CASE("liveness: a waiter whose key came first in line before its acquire gave up says so") {
  const std::string text = waiter_behind_released_key({{1500, 8500}});
  INFO(text);
  CHECK(contains(text, "which ended fail (deadline-exceeded) at 7.000 s, although its key had been first in line since "
                       "2.001 s (when client-1's key of revision 4 was deleted), and the acquire did not take the lock "
                       "before it ended: meanwhile the links from member-0 to client-0 were cut (their messages held) "
                       "from 1.500 s to 8.500 s; so no release of client-0's would delete it"));
}

// The waiter watched on member-1, which the leader member-0 could not reach: its messages to
// member-1, held from before the deletion, were lost with the connection, and member-0 then
// stepped down, so no leader caught member-1 up before the wait ended.
TEST_CASE("liveness: a waiter whose member never had the deletion says what kept it from the leader") {
  HistoryBuilder b;
  holder_and_waiter(b, "member-1");
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(1100), {{"call", 2}, {"request", "watch_create"}, {"member", "member-1"}});
  const nlohmann::json cut = {{"from", {"member-1"}}, {"to", {"member-0", "member-2"}}, {"symmetric", true}, {"duration_ms", 3000}};
  b.fault("partition", "start", ms_to_ns(1500), cut);
  b.add("client-1", EventKind::invoke, "release", ms_to_ns(2000));
  b.truth("etcd", "key-delete", ms_to_ns(2001), {{"key", "/l/a"}, {"revision", 6}, {"cause", request_cause("client-1", 2, "delete_range", ms_to_ns(2000))}});
  b.add("client-1", EventKind::ok, "release", ms_to_ns(2002));
  b.fault("partition", "end", ms_to_ns(4500), cut);
  b.truth("member-1", "link-dead", ms_to_ns(6500),
          {{"from", "member-0"}, {"to", "member-1"}, {"held_since_ns", ms_to_ns(1501)}, {"lost", 9}});
  b.truth("member-0", "leader-stepped-down", ms_to_ns(6600), {{"member", 0}, {"term", 1}, {"reason", "check-quorum"}});
  b.add("client-0", EventKind::fail, "acquire", ms_to_ns(7000), {}, {{"error", "deadline-exceeded"}});
  b.truth("member-1", "leader-elected", ms_to_ns(8000), {{"member", 1}, {"term", 2}});
  // A hold of member-0's link to client-0: the news would have come from member-1, where the
  // watch was, so that hold is not named as what kept it.
  const nlohmann::json other = {{"from", {"member-0"}}, {"to", {"client-0"}}, {"symmetric", false}, {"duration_ms", 5900}};
  b.fault("partition", "start", ms_to_ns(1600), other);
  b.fault("partition", "end", ms_to_ns(7500), other);
  b.truth("client-0", "link-released", ms_to_ns(8001),
          {{"from", "member-0"}, {"to", "client-0"}, {"held_since_ns", ms_to_ns(1700)}, {"messages", 1}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(9500), {{"mode", "exclusive"}});
  b.sort_by_time();
  const std::string text = liveness_sentences(b);
  INFO(text);
  CHECK_FALSE(contains(text, "the link from member-0 to client-0 held all"));
  CHECK(contains(text, "; member-1, where client-0 watched, could not learn of that deletion from the leader member-0 "
                       "before the wait ended at 7.000 s: member-0's messages to member-1, held since 1.501 s, were lost "
                       "when the connection was declared dead at 6.500 s; then member-0 stepped down at 6.600 s: it had "
                       "heard from no majority of the members within an election timeout (check-quorum), and no member "
                       "led the cluster from 6.600 s to 8.000 s;"));
}

// Ends a holder_and_waiter history: client-0's acquire fails at 7.000 s, client-1 releases
// (deleting /l/a) at 8.000 s and acquires again at 9.500 s. The liveness explanation.
std::string waiter_out_behind_holder(HistoryBuilder& b) {
  b.add("client-0", EventKind::fail, "acquire", ms_to_ns(7000), {}, {{"error", "deadline-exceeded"}});
  b.add("client-1", EventKind::invoke, "release", ms_to_ns(8000));
  b.truth("etcd", "key-delete", ms_to_ns(8001), {{"key", "/l/a"}, {"revision", 6}, {"cause", request_cause("client-1", 2, "delete_range", ms_to_ns(8000))}});
  b.add("client-1", EventKind::ok, "release", ms_to_ns(8002));
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(9500), {{"mode", "exclusive"}});
  b.sort_by_time();
  return liveness_sentences(b);
}

// The key ahead of the waiter's still stood when its wait ran out: its owner held the lock
// through a resource crash and released it only after.
TEST_CASE("liveness: a waiter whose wait ran out behind a standing key says why that key stood") {
  HistoryBuilder b;
  holder_and_waiter(b, "member-0");
  const nlohmann::json crash = {{"targets", {"resource"}}, {"duration_ms", 5000}};
  b.fault("crash", "start", ms_to_ns(1500), crash);
  b.fault("crash", "end", ms_to_ns(6500), crash);
  // The holder's read went to the resource as it crashed, and went unanswered.
  b.add("client-1", EventKind::invoke, "read", ms_to_ns(1499), {{"token", 4}});
  b.add("client-1", EventKind::info, "read", ms_to_ns(6499), {}, {{"error", "timeout"}, {"message", "the resource did not answer"}});
  const std::string text = waiter_out_behind_holder(b);
  INFO(text);
  CHECK(contains(text, "client-0's acquire waited behind client-1's key /l/a (revision 4), which stood until 8.001 s, "
                       "after its wait had ended at 7.000 s; in its wait, client-1 held the lock from 0.502 s to 8.000 "
                       "s: its read of the resource, invoked at 1.499 s, went unanswered until its timeout at 6.499 s "
                       "(the resource crashed from 1.500 s to 6.500 s); the key was deleted by a delete_range that "
                       "client-1"));
}

TEST_CASE("liveness: a hold stretched by a read kept in etcd names what held that read, not the holder's other faults") {
  // The protected data lives in etcd (as etcd-mutex-guarded keeps it): the holder's read is a
  // range to member-0, which waited for a leader. The holder's lease-drop (keep-alives only)
  // and a duplicate fault on its link to a resource it never called held nothing up.
  HistoryBuilder b;
  holder_and_waiter(b, "member-0");
  const nlohmann::json drop = {{"targets", {"client-1"}}, {"duration_ms", 8000}};
  b.fault("lease-drop", "start", ms_to_ns(1400), drop);
  const nlohmann::json copies = {{"from", {"client-1"}}, {"to", {"resource"}}, {"symmetric", false}, {"probability", 0.3},
                                 {"duration_ms", 6000}};
  b.fault("duplicate", "start", ms_to_ns(1450), copies);
  b.add("client-1", EventKind::invoke, "read", ms_to_ns(1499), {{"token", 4}});
  b.add("client-1", EventKind::trace, "kv-send", ms_to_ns(1499), {{"call", 2}, {"request", "range"}, {"member", "member-0"}});
  b.truth("member-0", "leader-stepped-down", ms_to_ns(1600), {{"member", 0}, {"term", 1}, {"reason", "check-quorum"}});
  b.truth("member-1", "leader-elected", ms_to_ns(4000), {{"member", 1}, {"term", 2}});
  b.add("client-1", EventKind::trace, "kv-end", ms_to_ns(4100), {{"call", 2}, {"outcome", "ok"}});
  b.add("client-1", EventKind::ok, "read", ms_to_ns(4100), {}, {{"value", 0}});
  b.add("client-0", EventKind::fail, "acquire", ms_to_ns(7000), {}, {{"error", "deadline-exceeded"}});
  b.fault("duplicate", "end", ms_to_ns(7450), copies);
  b.add("client-1", EventKind::invoke, "release", ms_to_ns(8000));
  b.truth("etcd", "key-delete", ms_to_ns(8001), {{"key", "/l/a"}, {"revision", 6}, {"cause", request_cause("client-1", 3, "delete_range", ms_to_ns(8000))}});
  b.add("client-1", EventKind::ok, "release", ms_to_ns(8002));
  b.fault("lease-drop", "end", ms_to_ns(9400), drop);
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(9500), {{"mode", "exclusive"}});
  b.sort_by_time();
  const std::string text = liveness_sentences(b);
  INFO(text);
  CHECK(contains(text, "in its wait, client-1 held the lock from 0.502 s to 8.000 s: its read of the resource, invoked at "
                       "1.499 s, ended ok at 4.100 s (no member led the cluster from 1.600 s to 4.000 s (member-0 stepped "
                       "down at 1.600 s: it had heard from no majority of the members within an election timeout "
                       "(check-quorum))); the key was deleted"));
  CHECK_FALSE(contains(text, "duplicated"));
}

TEST_CASE("liveness: a hold's read that ended on another error is not said to have timed out, nor slowed by a clock") {
  // The read ended indeterminate with "leader changed", not at a timeout: the holder's slow
  // clock, which only moves its timeouts, held nothing up; nor did the resource's pause that
  // began after the resource had served the read.
  HistoryBuilder b;
  holder_and_waiter(b, "member-0");
  const nlohmann::json clock = {{"targets", {"client-1"}}, {"clock", "monotonic"}, {"rate_ppm", 500000}, {"duration_ms", 4000}};
  b.fault("clock", "start", ms_to_ns(1400), clock);
  b.add("client-1", EventKind::invoke, "read", ms_to_ns(1499), {{"token", 4}});
  b.truth("resource", "resource-read", ms_to_ns(1500), {{"client", "client-1"}, {"accepted", true}, {"token", 4}, {"value", 0}});
  const nlohmann::json stop = {{"targets", {"resource"}}, {"duration_ms", 1000}};
  b.fault("pause", "start", ms_to_ns(1600), stop);
  b.fault("pause", "end", ms_to_ns(2600), stop);
  b.add("client-1", EventKind::info, "read", ms_to_ns(3200), {}, {{"error", "leader-changed"}, {"message", "etcdserver: leader changed"}});
  b.fault("clock", "end", ms_to_ns(5400), clock);
  const std::string text = waiter_out_behind_holder(b);
  INFO(text);
  CHECK(contains(text, "client-1 held the lock from 0.502 s to 8.000 s: its read of the resource, invoked at 1.499 s, "
                       "ended indeterminate (leader-changed) at 3.200 s; the key was deleted"));
}

TEST_CASE("liveness: a waiter behind the key of a client that was waiting itself says so") {
  // client-1's key /l/a was created at 0.501 s, but its acquire never got the lock: it waited
  // until 9.000 s. client-0 waited behind /l/a and gave up at 7.000 s.
  HistoryBuilder b;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(500), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(501), {{"key", "/l/a"}, {"revision", 4}, {"create_revision", 4}, {"lease", 0},
                                       {"value", ""}, {"cause", request_cause("client-1", 1, "txn", ms_to_ns(500))}});
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(1000), {{"call", 1}, {"request", "txn"}, {"member", "member-0"}});
  b.truth("etcd", "key-put", ms_to_ns(1002), {{"key", "/l/b"}, {"revision", 5}, {"create_revision", 5}, {"lease", 0},
                                        {"value", ""}, {"cause", request_cause("client-0", 1, "txn", ms_to_ns(1000))}});
  b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(1003), {{"call", 1}, {"outcome", "ok"}});
  b.add("client-0", EventKind::fail, "acquire", ms_to_ns(7000), {}, {{"error", "deadline-exceeded"}});
  b.add("client-1", EventKind::fail, "acquire", ms_to_ns(9000), {}, {{"error", "deadline-exceeded"}});
  b.truth("etcd", "key-delete", ms_to_ns(9001), {{"key", "/l/a"}, {"revision", 6}, {"cause", request_cause("client-1", 2, "delete_range", ms_to_ns(9000))}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(9500), {{"mode", "exclusive"}});
  b.sort_by_time();
  const std::string text = liveness_sentences(b);
  INFO(text);
  CHECK(contains(text, "client-0's acquire waited behind client-1's key /l/a (revision 4), which stood until 9.001 s, "
                       "after its wait had ended at 7.000 s; client-1 did not hold the lock then: its own acquire, "
                       "invoked at 0.500 s, was still waiting (it ended fail at 9.000 s)"));
  CHECK_FALSE(contains(text, "in its wait"));
}

TEST_CASE("liveness: news held by a cut whose TCP retransmission fell into the next cut says so") {
  // Held since 2.001 s: retransmissions at 2.201, 2.601 and 3.401 s, the first after the heal at
  // 3.000 s, inside the second cut; then 5.001, 8.201 and 14.601 s, the first after it healed.
  const std::string text =
      waiter_behind_released_key({{1500, 3000}, {3300, 9000}}, 0, {{ms_to_ns(2001), ms_to_ns(14602)}});
  INFO(text);
  CHECK(contains(text, "; the link from member-0 to client-0 held all that member-0 sent it from 2.001 s until TCP's "
                       "retransmission got it through at 14.602 s, after the wait had ended at 7.000 s (its "
                       "retransmissions fell into a later cut of that link, from 3.300 s to 9.000 s);"));
}

TEST_CASE("liveness: news held by a cut whose TCP retransmission came after the wait says so") {
  // Held since 2.001 s: retransmissions at 2.201, 2.601, 3.401, 5.001 and 8.201 s; the first
  // after the heal at 6.000 s comes after the acquire failed at 7.000 s.
  const std::string text = waiter_behind_released_key({{1500, 6000}}, 0, {{ms_to_ns(2001), ms_to_ns(8202)}});
  INFO(text);
  CHECK(contains(text, "; the link from member-0 to client-0 held all that member-0 sent it from 2.001 s until TCP's "
                       "retransmission got it through at 8.202 s, after the wait had ended at 7.000 s;"));
  CHECK_FALSE(contains(text, "later cut"));
  // Healed at 4.800 s: the retransmission at 5.001 s came within the wait, so it is not said.
  const std::string within = waiter_behind_released_key({{1500, 4800}}, 0, {{ms_to_ns(2001), ms_to_ns(5002)}});
  INFO(within);
  CHECK_FALSE(contains(within, "held all that"));
  // No record of a hold on that link (its member may never have had the news to send): nothing
  // is claimed about a retransmission.
  const std::string unrecorded = waiter_behind_released_key({{1500, 6000}});
  INFO(unrecorded);
  CHECK_FALSE(contains(unrecorded, "held all that"));
  CHECK_FALSE(contains(unrecorded, "retransmission"));
}

TEST_CASE("liveness: a waiter whose wait had ended before its key came first is not said to have missed the news") {
  // It began cleaning up at 1.800 s; the key ahead went at 2.001 s.
  const std::string text = waiter_behind_released_key({{1500, 8500}}, 1800);
  INFO(text);
  CHECK(contains(text, "which ended fail (deadline-exceeded) at 7.000 s: no release of client-0's would delete it"));
  CHECK_FALSE(contains(text, "first in line"));
}

TEST_CASE("liveness: a creating call whose answer a cut held past its deadline says what held the answer") {
  HistoryBuilder b;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  b.fault("partition", "start", ms_to_ns(990), {{"from", {"member-0"}}, {"to", {"client-0"}}, {"symmetric", false}, {"duration_ms", 3000}});
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(1000), {{"call", 1}, {"request", "txn"}, {"member", "member-0"}});
  b.truth("etcd", "key-put", ms_to_ns(1002), {{"key", "/l/a"}, {"revision", 5}, {"create_revision", 5}, {"lease", 0},
                                        {"value", ""}, {"cause", request_cause("client-0", 1, "txn", ms_to_ns(1000))}});
  b.fault("partition", "end", ms_to_ns(4500), {{"from", {"member-0"}}, {"to", {"client-0"}}, {"symmetric", false}, {"duration_ms", 3000}});
  b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(6000), {{"call", 1}, {"outcome", "deadline"}});
  b.add("client-0", EventKind::fail, "acquire", ms_to_ns(6000), {}, {{"error", "deadline-exceeded"}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(9500), {{"mode", "exclusive"}});
  const std::string text = liveness_sentences(b);
  INFO(text);
  CHECK(contains(text, "but client-0 never had its answer (the call ended at 6.000 s: its deadline passed)"));
  // Held since 1.002 s: retransmissions at 1.202, 1.602, 2.402, 4.002, 7.202 s.
  CHECK(contains(text, "Its answer did not reach client-0 before the call ended at 6.000 s: the links from member-0 "
                       "to client-0 were cut (their messages held) from 0.990 s to 4.500 s; TCP resends what a cut "
                       "link holds at its next retransmission after the heal, about 7.202 s here, after the call's end."));
}

// client-0 acquired /l (revision 5) under lease 9 (TTL 3 s, granted at 1.000 s); `meanwhile`
// adds what happened next; the lease then expired as `expiry` says (its lessor member-0 found it
// expired at found_ns, the key went 1 ms later), client-1 took the lock 100 ms after that, and
// client-0 released at +150 ms. The mutual-exclusion check's explanation, in sentences.
std::string explanation_of_lost_lease(const std::function<void(HistoryBuilder&)>& meanwhile,
                                      const nlohmann::json& expiry, nlohmann::json* cause_found) {
  HistoryBuilder b;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  b.truth("member-0", "lease-granted", ms_to_ns(1000), {{"lease", 9}, {"ttl_seconds", 3}});
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(1001), {{"call", 1}, {"request", "txn"}, {"member", "member-0"}});
  b.truth("etcd", "key-put", ms_to_ns(1002), {{"key", "/l"}, {"revision", 5}, {"create_revision", 5}, {"lease", 9},
                                        {"value", "client-0"}, {"cause", request_cause("client-0", 1, "txn", ms_to_ns(1001))}});
  b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(1003), {{"call", 1}, {"outcome", "ok"}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(1003), {}, {{"key", "/l"}, {"key_revision", 5}, {"lease", 9}});
  meanwhile(b);
  const std::int64_t found_ns = expiry.value("found_ns", std::int64_t{0});
  nlohmann::json cause = expiry;
  cause["kind"] = "lease-expiry";
  b.truth("member-0", "lease-expired", found_ns + ms_to_ns(1), expiry);
  b.truth("etcd", "key-delete", found_ns + ms_to_ns(1), {{"key", "/l"}, {"revision", 6}, {"cause", cause}});
  b.add("client-1", EventKind::invoke, "acquire", found_ns + ms_to_ns(99), {{"mode", "exclusive"}});
  b.add("client-1", EventKind::trace, "kv-send", found_ns + ms_to_ns(99), {{"call", 1}, {"request", "txn"}, {"member", "member-0"}});
  b.truth("etcd", "key-put", found_ns + ms_to_ns(100), {{"key", "/l"}, {"revision", 7}, {"create_revision", 7}, {"lease", 0},
                                                  {"value", "client-1"}, {"cause", request_cause("client-1", 1, "txn", found_ns + ms_to_ns(99))}});
  b.add("client-1", EventKind::trace, "kv-end", found_ns + ms_to_ns(101), {{"call", 1}, {"outcome", "ok"}});
  b.add("client-1", EventKind::ok, "acquire", found_ns + ms_to_ns(101), {}, {{"key", "/l"}, {"key_revision", 7}});
  b.add("client-0", EventKind::invoke, "release", found_ns + ms_to_ns(150));
  b.sort_by_time();
  const CheckResult mutex = check_mutual_exclusion(b.history);
  REQUIRE(mutex.status == CheckStatus::violated);
  const auto x = explain_checks(b.history, reports_test::verdict_of({mutex}, b.history));
  REQUIRE(x.size() == 1);
  if (cause_found != nullptr) *cause_found = x[0].cause;
  std::string text;
  for (const auto& sentence : x[0].sentences) text += sentence + "\n";
  return text;
}

TEST_CASE("a lease no client ever renewed says that nobody sent a keep-alive") {
  nlohmann::json cause;
  const std::string text = explanation_of_lost_lease(
      [](HistoryBuilder&) {},
      {{"lease", 9}, {"leader", "member-0"}, {"term", 1}, {"found_ns", ms_to_ns(4000)}, {"renewed_ns", ms_to_ns(1000)},
       {"renewed_by", "grant"}},
      &cause);
  INFO(text);
  CHECK(contains(text, "No client sent a keep-alive in this run: no lease was renewed by its client; this one ran its "
                       "TTL of 3 s from its grant at 1.000 s, to 4.000 s as member-0's lessor counted it."));
  CHECK(contains(text, "client-0 held the lock past the lease's TTL of 3 s"));
  CHECK_FALSE(contains(text, "although no fault stopped it"));
  CHECK(cause.value("no_keep_alive_by_anyone", false));
}

TEST_CASE("a keep-alive answered late is still the one that renewed the lease") {
  // Renewed on arrival at 2.001 s; the answer, delayed on its way back, arrives at 4.200 s.
  const std::string text = explanation_of_lost_lease(
      [](HistoryBuilder& b) {
        const nlohmann::json delay = {{"from", {"member-0"}}, {"to", {"client-0"}}, {"amount_ms", 2200},
                                      {"duration_ms", 200}, {"symmetric", false}};
        b.fault("delay", "start", ms_to_ns(1900), delay);
        b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(2000),
              {{"call", 2}, {"request", "lease_keep_alive"}, {"member", "member-0"}, {"lease", 9}});
        b.fault("delay", "end", ms_to_ns(2100), delay);
        b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(4200), {{"call", 2}, {"outcome", "ok"}});
      },
      {{"lease", 9}, {"leader", "member-0"}, {"term", 1}, {"found_ns", ms_to_ns(5001)}, {"renewed_ns", ms_to_ns(2001)},
       {"renewed_by", "keep-alive"}},
      nullptr);
  INFO(text);
  // Not counted among the keep-alives sent since the renewal (it made it).
  CHECK(contains(text, "client-0 sent no keep-alive for it between 2.001 s and 5.001 s."));
  CHECK_FALSE(contains(text, "none renewing it"));
}

TEST_CASE("what held a call names the faults on its way and a leaderless span whole") {
  HistoryBuilder b;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  b.fault("pause", "start", ms_to_ns(900), {{"targets", {"member-1"}}, {"duration_ms", 400}});
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(1000), {{"call", 7}, {"request", "lock"}, {"member", "member-1"}});
  b.fault("pause", "end", ms_to_ns(1300), {{"targets", {"member-1"}}, {"duration_ms", 400}});
  // Another member's pause is on none of its ways while member-0 leads.
  b.fault("pause", "start", ms_to_ns(1400), {{"targets", {"member-2"}}, {"duration_ms", 100}});
  b.fault("pause", "end", ms_to_ns(1500), {{"targets", {"member-2"}}, {"duration_ms", 100}});
  b.truth("member-0", "leader-stepped-down", ms_to_ns(2000), {{"member", 0}, {"term", 1}});
  b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(6000), {{"call", 7}, {"outcome", "deadline"}});
  b.truth("member-2", "leader-elected", ms_to_ns(6500), {{"member", 2}, {"term", 2}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(7000), {{"mode", "exclusive"}});
  const reports::RunFacts facts(b.history);
  const reports::CallRecord* call = facts.find_call("client-0", 7);
  REQUIRE(call != nullptr);
  CHECK(reports::call_held_words(facts, *call) ==
        "member-1 was paused from 0.900 s to 1.300 s; no member led the cluster from 2.000 s to 6.500 s");
}

// client-0's key /l/a (revision 5) under lease 77, and its keep-alive call 2 (sent to member-1
// at 2.000 s, given up at 7.000 s) that renewed the lease late, at 9.000 s; `meanwhile` adds
// to the story before that renewal. The liveness explanation of it.
std::string late_renewal_story(const std::function<void(HistoryBuilder&)>& meanwhile) {
  HistoryBuilder b;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(1000), {{"call", 1}, {"request", "txn"}, {"member", "member-0"}});
  b.truth("etcd", "key-put", ms_to_ns(1002), {{"key", "/l/a"}, {"revision", 5}, {"create_revision", 5}, {"lease", 77},
                                        {"value", ""}, {"cause", request_cause("client-0", 1, "txn", ms_to_ns(1000))}});
  b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(1003), {{"call", 1}, {"outcome", "ok"}});
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(2000), {{"call", 2}, {"request", "lease_keep_alive"}, {"member", "member-1"}, {"lease", 77}});
  b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(7000), {{"call", 2}, {"outcome", "deadline"}});
  meanwhile(b);
  b.truth("member-0", "lease-renewed", ms_to_ns(9000), {{"lease", 77}, {"leader", "member-0"}, {"cause", renewal_by_call_2()}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(9500), {{"mode", "exclusive"}});
  b.sort_by_time();
  return liveness_sentences(b);
}

TEST_CASE("liveness: a lease a keep-alive renewed after its client gave it up says so") {
  const std::string text = late_renewal_story([](HistoryBuilder&) {});
  INFO(text);
  CHECK(contains(text, "its lease 4d had not expired when the history ended (last renewed at 9.000 s, for a keep-alive "
                       "that client-0 had sent to member-1 at 2.000 s (call 2) and given up at 7.000 s), and the key "
                       "would stay until it did."));
}

// A renewal its client never saw, then a keep-alive answered that renewed the lease again: the
// last renewal is the answered one, so the late one is not said to be the last.
TEST_CASE("liveness: a late renewal followed by an answered keep-alive is not called the last") {
  const std::string text = late_renewal_story([](HistoryBuilder& b) {
    b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(9200),
          {{"call", 3}, {"request", "lease_keep_alive"}, {"member", "member-0"}, {"lease", 77}});
    b.truth("member-0", "lease-renewed", ms_to_ns(9201),
            {{"lease", 77}, {"leader", "member-0"},
             {"cause", request_cause("client-0", 3, "lease_keep_alive", ms_to_ns(9200), "member-0")}});
    b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(9202), {{"call", 3}, {"outcome", "ok"}});
  });
  INFO(text);
  CHECK(contains(text, "its lease 4d had not expired when the history ended, and the key would stay until it did."));
  CHECK(!contains(text, "last renewed at 9.000 s"));
  CHECK(!contains(text, "given up at 7.000 s"));
}

TEST_CASE("liveness: a late renewal names the fault that held its keep-alive") {
  const std::string text = late_renewal_story([](HistoryBuilder& b) {
    const nlohmann::json cut = {{"from", {"client-0"}}, {"to", {"member-1"}}, {"symmetric", true}, {"duration_ms", 6000}};
    b.truth("member-0", "lease-granted", ms_to_ns(500), {{"lease", 77}, {"ttl_seconds", 3}});
    b.truth("member-2", "leader-elected", ms_to_ns(4000), {{"member", 2}, {"term", 2}});
    b.fault("partition", "start", ms_to_ns(1900), cut);
    b.fault("partition", "end", ms_to_ns(7900), cut);
    b.truth("member-0", "lease-renewed", ms_to_ns(8000), {{"lease", 77}, {"leader", "member-0"}, {"cause", renewal_by_call_2()}});
  });
  INFO(text);
  CHECK(contains(text, "its lease 4d (TTL 3 s) had not expired when the history ended (last renewed at 9.000 s, for a "
                       "keep-alive that client-0 had sent to member-1 at 2.000 s (call 2) and given up at 7.000 s, held "
                       "on its way while the links between client-0 and member-1 were cut (their messages held) from 1.900 s to "
                       "7.900 s; no keep-alive of it was answered from 0.500 s to 9.000 s, yet it lived: each new leader extends "
                       "every lease (elected since then: member-2 at 4.000 s), and keep-alives whose answers its client never "
                       "had renewed it at 8.000 s too), and the key would stay until it did."));
}

// client-0 held /l/a (revision 5, lease 9) from 1.010 s; its release at 2.000 s sent a delete
// (call 3) to `release_member` that reached its deadline at 7.000 s; the lease expired at
// 20.000 s. member-1 led throughout; `meanwhile` adds faults. The liveness explanation for a
// wait of client-1's from 10.000 s.
reports::Story lost_release_story(const std::string& release_member, const std::function<void(HistoryBuilder&)>& meanwhile) {
  HistoryBuilder b;
  b.truth("member-1", "leader-elected", ms_to_ns(100), {{"member", 1}, {"term", 1}});
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(990), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(1000), {{"key", "/l/a"}, {"revision", 5}, {"create_revision", 5}, {"lease", 9},
                                        {"value", "client-0"}, {"cause", request_cause("client-0", 1, "txn", ms_to_ns(995))}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(1010), {}, {{"key", "/l/a"}, {"key_revision", 5}, {"lease", 9}});
  b.add("client-0", EventKind::invoke, "release", ms_to_ns(2000));
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(2000), {{"call", 3}, {"request", "delete_range"}, {"member", release_member}});
  meanwhile(b);
  b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(7000), {{"call", 3}, {"outcome", "deadline"}});
  b.add("client-0", EventKind::info, "release", ms_to_ns(7000), {}, {{"error", "timeout"}});
  const nlohmann::json expiry = {{"lease", 9}, {"leader", "member-1"}, {"term", 1}, {"found_ns", ms_to_ns(20000)},
                                 {"renewed_ns", ms_to_ns(10000)}, {"renewed_by", "keep-alive"}};
  nlohmann::json cause = expiry;
  cause["kind"] = "lease-expiry";
  b.truth("member-1", "lease-expired", ms_to_ns(20000), expiry);
  b.truth("etcd", "key-delete", ms_to_ns(20001), {{"key", "/l/a"}, {"revision", 6}, {"lease_expired", true}, {"cause", cause}});
  b.sort_by_time();
  const reports::RunFacts facts(b.history);
  const nlohmann::json check = {{"summary", "client-1 waited"},
                                {"witness", {{"process", "client-1"}, {"idle_from_ns", ms_to_ns(10000)}}}};
  return reports::explain_liveness(facts, check);
}

TEST_CASE("liveness: a key that stood when the waiter found nobody holding is named, though gone by the end") {
  const reports::Story story = lost_release_story("member-1", [](HistoryBuilder&) {});
  std::string text;
  for (const auto& sentence : story.sentences) text += sentence + "\n";
  INFO(text);
  CHECK(contains(text, "The lock key /l/a (revision 5) created at 1.000 s for client-0 stood when nobody believed it held "
                       "the lock while client-1 waited, from 10.000 s, until it was deleted at 20.001 s with its lease; client-0 released the lock at "
                       "2.000 s (indeterminate: timeout), and the key stayed"));
  CHECK(story.cause.value("class", "") == "release-lost");
}

TEST_CASE("liveness: a lost release sent to a follower names the leader's pause while it was pending") {
  const reports::Story story = lost_release_story("member-0", [](HistoryBuilder& b) {
    b.fault("pause", "start", ms_to_ns(1500), {{"targets", {"member-1"}}, {"duration_ms", 4500}});
    b.fault("pause", "end", ms_to_ns(6000), {{"targets", {"member-1"}}, {"duration_ms", 4500}});
  });
  std::string text;
  for (const auto& sentence : story.sentences) text += sentence + "\n";
  INFO(text);
  CHECK(contains(text, "and the key stayed (its calls went to member-0; member-1 led the cluster then); meanwhile "
                       "member-1 was paused from 1.500 s to 6.000 s"));
}

// A release sent to a follower while the leader hands over (the demo's setnx-no-ttl failure):
// the follower passes it on to the leader, which drops it, and the client waits for its
// deadline. The leader-change fault is named, with what a hand-over does to such a request; a
// release sent to the leader itself would have been refused ("raft proposal dropped"), not lost.
std::string release_across_hand_over_text(const std::string& release_member) {
  HistoryBuilder b;
  b.truth("member-1", "leader-elected", ms_to_ns(100), {{"member", 1}, {"term", 1}});
  b.truth("etcd", "key-put", ms_to_ns(1000), {{"key", "/l"}, {"revision", 5}, {"create_revision", 5}, {"lease", 0},
                                        {"value", "client-0"}, {"cause", request_cause("client-0", 1, "txn", ms_to_ns(995))}});
  b.fault("leader-change", "start", ms_to_ns(1900), {{"from_member", 1}, {"to_member", 0}, {"duration_ms", 0}, {"start_ms", 1900}});
  b.add("client-0", EventKind::invoke, "release", ms_to_ns(2000));
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(2000), {{"call", 3}, {"request", "txn"}, {"member", release_member}});
  b.truth("member-1", "leader-stepped-down", ms_to_ns(2040), {{"member", 1}, {"term", 1}});
  b.truth("member-0", "leader-elected", ms_to_ns(2050), {{"member", 0}, {"term", 2}});
  b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(7000), {{"call", 3}, {"outcome", "deadline"}});
  b.add("client-0", EventKind::info, "release", ms_to_ns(7000), {}, {{"error", "timeout"}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(8000), {{"mode", "exclusive"}});
  b.add("client-1", EventKind::fail, "acquire", ms_to_ns(13000), {}, {{"error", "deadline-exceeded"}});
  const reports::RunFacts facts(b.history);
  const nlohmann::json check = {{"summary", "none of the acquires succeeded"},
                                {"figures", {{"healed_at_ns", ms_to_ns(1900)}}}};
  const reports::Story story = reports::explain_liveness(facts, check);
  CHECK(story.cause.value("class", "") == "release-lost");
  std::string text;
  for (const auto& sentence : story.sentences) text += sentence + "\n";
  return text;
}

TEST_CASE("a release lost in a leadership hand-over names the leader change and what it does to a passed-on request") {
  const std::string text = release_across_hand_over_text("member-0");
  INFO(text);
  CHECK(contains(text, "the leader was moved from member-1 to member-0 at 1.900 s"));
  CHECK(contains(text, "a leader handing over drops the proposals it receives, and a request a follower passed on to it "
                       "is lost with no answer"));
  const std::string to_leader = release_across_hand_over_text("member-1");
  INFO(to_leader);
  CHECK_FALSE(contains(to_leader, "passed on to it"));
}

// A key created by a txn its client had given up on (the history of explore's txn-try-lock
// seed 6320 had it): what held the txn past the client's deadline is said, as for a request
// that deleted a key.
TEST_CASE("a key its creator never had the answer for says what held the creating request") {
  HistoryBuilder b;
  b.truth("member-1", "leader-elected", ms_to_ns(100), {{"member", 1}, {"term", 1}});
  const nlohmann::json pause = {{"targets", {"member-1"}}, {"duration_ms", 7300}, {"start_ms", 1500}};
  b.fault("pause", "start", ms_to_ns(1500), pause);
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(2000), {{"mode", "exclusive"}});
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(2000), {{"call", 3}, {"request", "txn"}, {"member", "member-1"}});
  b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(7000), {{"call", 3}, {"outcome", "deadline"}});
  b.add("client-0", EventKind::fail, "acquire", ms_to_ns(7000), {}, {{"error", "deadline-exceeded"}});
  b.fault("pause", "end", ms_to_ns(8800), pause);
  nlohmann::json cause = request_cause("client-0", 3, "txn", ms_to_ns(2000), "member-1");
  cause["abandoned_ns"] = ms_to_ns(7000);
  b.truth("etcd", "key-put", ms_to_ns(9000), {{"key", "/l"}, {"revision", 5}, {"create_revision", 5}, {"lease", 0},
                                        {"value", "client-0"}, {"cause", cause}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(10000), {{"mode", "exclusive"}});
  b.add("client-1", EventKind::fail, "acquire", ms_to_ns(15000), {}, {{"error", "deadline-exceeded"}});
  const reports::RunFacts facts(b.history);
  const nlohmann::json check = {{"summary", "none of the acquires succeeded"},
                                {"figures", {{"healed_at_ns", ms_to_ns(8800)}}}};
  const reports::Story story = reports::explain_liveness(facts, check);
  std::string text;
  for (const auto& sentence : story.sentences) text += sentence + "\n";
  INFO(text);
  CHECK(story.cause.value("class", "") == "unknown-holder-key");
  CHECK(contains(text, "so it did not know it held the lock"));
  CHECK(contains(text, "It took 7.000 s from sending to applying: member-1 was paused from 1.500 s to 8.800 s."));
}

// setnx-then-expire's crash between its two steps (explore seed 28036): the SETNX was still out
// when its client crashed, was applied just after, and no acquire ever returned the key; the
// key is its creator's, who never had the answer (no kv-end: the crash ended the call).
TEST_CASE("a key created by a call its client crashed with still out names that client and the crash") {
  HistoryBuilder b;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  b.add("client-3", EventKind::invoke, "acquire", ms_to_ns(7000), {{"mode", "exclusive"}});
  b.add("client-3", EventKind::trace, "kv-send", ms_to_ns(7048), {{"call", 94}, {"request", "txn"}, {"member", "member-0"}});
  b.add("client-3", EventKind::info, "acquire", ms_to_ns(7050), {}, {{"error", "crashed"}});
  const nlohmann::json crash = {{"targets", {"client-3"}}, {"duration_ms", 100}, {"start_ms", 7050}};
  b.fault("crash", "start", ms_to_ns(7050), crash);
  b.truth("etcd", "key-put", ms_to_ns(7052), {{"key", "/l"}, {"revision", 53}, {"create_revision", 53}, {"lease", 0},
                                        {"value", "client-3/x"}, {"cause", request_cause("client-3", 94, "txn", ms_to_ns(7048), "member-0")}});
  b.fault("crash", "end", ms_to_ns(7150), crash);
  b.add("client-3", EventKind::invoke, "acquire", ms_to_ns(7160), {{"mode", "exclusive"}});
  b.add("client-3", EventKind::fail, "acquire", ms_to_ns(17160), {}, {{"error", "deadline-exceeded"}});
  const reports::RunFacts facts(b.history);
  const nlohmann::json check = {{"summary", "none of the acquires succeeded"},
                                {"figures", {{"healed_at_ns", ms_to_ns(7150)}}}};
  const reports::Story story = reports::explain_liveness(facts, check);
  std::string text;
  for (const auto& sentence : story.sentences) text += sentence + "\n";
  INFO(text);
  CHECK(story.cause.value("class", "") == "unknown-holder-key");
  CHECK(story.cause.value("process", "") == "client-3");
  CHECK(contains(text, "The lock key /l (revision 53) created at 7.052 s for client-3 still existed when the history "
                       "ended; a txn that client-3 sent to member-0 at 7.048 s (call 94) created it, but client-3 never "
                       "had its answer (client-3 crashed at 7.050 s with the call still out)"));
}

TEST_CASE("liveness after a heal: only the keys that outlived the first acquire after it are named") {
  HistoryBuilder b;
  b.truth("member-1", "leader-elected", ms_to_ns(100), {{"member", 1}, {"term", 1}});
  b.truth("etcd", "key-put", ms_to_ns(1000), {{"key", "/l/old"}, {"revision", 5}, {"create_revision", 5}, {"lease", 9},
                                        {"value", "client-0"}, {"cause", request_cause("client-0", 1, "txn", ms_to_ns(995))}});
  b.truth("etcd", "key-put", ms_to_ns(4000), {{"key", "/l/waiter"}, {"revision", 6}, {"create_revision", 6}, {"lease", 8},
                                        {"value", "client-1"}, {"cause", request_cause("client-1", 1, "txn", ms_to_ns(3995))}});
  b.add("client-2", EventKind::invoke, "acquire", ms_to_ns(5000), {{"mode", "exclusive"}});
  b.truth("etcd", "key-delete", ms_to_ns(6000), {{"key", "/l/waiter"}, {"revision", 7},
                                           {"cause", request_cause("client-1", 2, "delete_range", ms_to_ns(5990))}});
  b.add("client-2", EventKind::fail, "acquire", ms_to_ns(15000), {}, {{"error", "deadline-exceeded"}});
  b.truth("etcd", "key-delete", ms_to_ns(30000), {{"key", "/l/old"}, {"revision", 8},
                                            {"cause", request_cause("client-0", 5, "delete_range", ms_to_ns(29990))}});
  const reports::RunFacts facts(b.history);
  const nlohmann::json check = {{"summary", "none of the acquires succeeded"},
                                {"figures", {{"healed_at_ns", ms_to_ns(4500)}}}};
  const reports::Story story = reports::explain_liveness(facts, check);
  std::string text;
  for (const auto& sentence : story.sentences) text += sentence + "\n";
  INFO(text);
  CHECK(contains(text, "The lock key /l/old (revision 5) created at 1.000 s for client-0 stood when the last fault healed at 4.500 s, "
                       "until it was deleted at 30.000 s by a delete_range that client-0 sent"));
  CHECK_FALSE(contains(text, "/l/waiter"));
}

// client-0's key /k (put at 0.5 s) and a cut of client-1 from member-2 from 1 s to 3 s; the
// caller adds what deletes the key.
HistoryBuilder key_and_cut() {
  HistoryBuilder b;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  b.truth("etcd", "key-put", ms_to_ns(500), {{"key", "/k"}, {"revision", 5}, {"create_revision", 5}, {"lease", 0},
                                       {"value", "client-0"}, {"cause", request_cause("client-0", 1, "txn", ms_to_ns(495))}});
  const nlohmann::json cut = {{"from", {"client-1"}}, {"to", {"member-2"}}, {"symmetric", true},
                              {"duration_ms", 2000}, {"start_ms", 1000}};
  b.fault("partition", "start", ms_to_ns(1000), cut);
  b.fault("partition", "end", ms_to_ns(3000), cut);
  return b;
}

// The sentences explain_key_loss says of client-0's key in `h`, one per line.
std::string key_loss_text(const History& h) {
  const reports::RunFacts facts(h);
  REQUIRE(facts.truth().keys.size() == 1);
  reports::Story story;
  reports::explain_key_loss(facts, facts.truth().keys[0], "client-0", story);
  std::string text;
  for (const auto& sentence : story.sentences) text += sentence + "\n";
  return text;
}

TEST_CASE("a request held by a cut that got through well after the heal names TCP's retransmission") {
  HistoryBuilder b = key_and_cut();
  b.truth("etcd", "key-delete", ms_to_ns(5000), {{"key", "/k"}, {"revision", 6},
                                           {"cause", request_cause("client-1", 7, "delete_range", ms_to_ns(1500))}});
  const std::string text = key_loss_text(b.history);
  INFO(text);
  CHECK(contains(text, "; it was applied 2.000 s after the last of those cuts healed, held until TCP's next retransmission"));
}

TEST_CASE("a request applied just after TCP's first retransmission past the heal names that retransmission, not a leaderless gap before it") {
  HistoryBuilder b = key_and_cut();
  // No leader from 3.05 s to 4.3 s: over before the request got through, it held nothing up.
  b.truth("member-0", "leader-stepped-down", ms_to_ns(3050), {{"member", 0}, {"term", 1}});
  b.truth("member-1", "leader-elected", ms_to_ns(4300), {{"member", 1}, {"term", 2}});
  // Sent at 1.5 s into the cut: retransmitted at 1.7, 2.1, 2.9 and 4.5 s, the first after the heal.
  b.truth("etcd", "key-delete", ms_to_ns(4503), {{"key", "/k"}, {"revision", 6},
                                           {"cause", request_cause("client-1", 7, "delete_range", ms_to_ns(1500))}});
  const std::string text = key_loss_text(b.history);
  INFO(text);
  CHECK(contains(text, "; it got through at TCP's retransmission at 4.500 s, 1.500 s after the cut healed: the "
                       "retransmission timeout had doubled from 200 ms while the link stayed cut since its first held "
                       "request (sent at 1.500 s)."));
  CHECK_FALSE(contains(text, "no member led"));
}

// A request sent into a loss on its own link: TCP resent it until a transmission got through,
// well after the loss ended; applied right after that retransmission, it names it. Applied
// later than 50 ms after any transmission, or with a leaderless span after the loss, it does
// not (something else held it).
TEST_CASE("a request sent into a loss on its link names the TCP retransmission that got it through") {
  const auto with_loss = [] {
    HistoryBuilder b;
    b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
    b.truth("etcd", "key-put", ms_to_ns(500), {{"key", "/k"}, {"revision", 5}, {"create_revision", 5}, {"lease", 0},
                                         {"value", "client-0"}, {"cause", request_cause("client-0", 1, "txn", ms_to_ns(495))}});
    const nlohmann::json loss = {{"from", {"client-1"}}, {"to", {"member-2"}}, {"probability", 0.9},
                                 {"duration_ms", 1000}, {"start_ms", 1000}};
    b.fault("loss", "start", ms_to_ns(1000), loss);
    b.fault("loss", "end", ms_to_ns(2000), loss);
    return b;
  };
  // Sent at 1.5 s: transmissions at 1.7, 2.1, 2.9 and 4.5 s; the one at 2.9 s, 900 ms after the
  // loss ended, got it through.
  HistoryBuilder through = with_loss();
  through.truth("etcd", "key-delete", ms_to_ns(2910), {{"key", "/k"}, {"revision", 6},
                                                 {"cause", request_cause("client-1", 7, "delete_range", ms_to_ns(1500))}});
  const std::string text = key_loss_text(through.history);
  INFO(text);
  CHECK(contains(text, "It took 1.410 s from sending to applying: transmissions between client-1 and member-2 were "
                       "lost with probability 0.90 (TCP resent them, late) from 1.000 s to 2.000 s; it got through at TCP's "
                       "retransmission at 2.900 s, 900 ms after the loss ended: each lost transmission had doubled the "
                       "retransmission timeout from 200 ms, to 800 ms by then."));
  // Applied 300 ms after the last transmission: not TCP's doing alone.
  HistoryBuilder later = with_loss();
  later.truth("etcd", "key-delete", ms_to_ns(3200), {{"key", "/k"}, {"revision", 6},
                                               {"cause", request_cause("client-1", 7, "delete_range", ms_to_ns(1500))}});
  const std::string later_text = key_loss_text(later.history);
  INFO(later_text);
  CHECK(contains(later_text, "It took 1.700 s from sending to applying"));
  CHECK_FALSE(contains(later_text, "TCP's retransmission at"));
  // No leader from 2.2 s to 2.85 s, after the loss: the wait may have been for a leader.
  HistoryBuilder leaderless = with_loss();
  leaderless.truth("member-0", "leader-stepped-down", ms_to_ns(2200), {{"member", 0}, {"term", 1}});
  leaderless.truth("member-1", "leader-elected", ms_to_ns(2850), {{"member", 1}, {"term", 2}});
  leaderless.truth("etcd", "key-delete", ms_to_ns(2910), {{"key", "/k"}, {"revision", 6},
                                                    {"cause", request_cause("client-1", 7, "delete_range", ms_to_ns(1500))}});
  const std::string leaderless_text = key_loss_text(leaderless.history);
  INFO(leaderless_text);
  CHECK_FALSE(contains(leaderless_text, "TCP's retransmission at"));
}

// Two cuts of one link that overlap are one cut to TCP (seen in lockstep demo's txn-retry-lock
// failure): the request got through at the first retransmission after the second healed, and a
// pause of the member that ended while TCP still held the request held nothing up.
TEST_CASE("a request held by overlapping cuts of its link names the retransmission after the last heal") {
  HistoryBuilder b = key_and_cut();
  const nlohmann::json second_cut = {{"from", {"client-1"}}, {"to", {"member-2"}}, {"symmetric", true},
                                     {"duration_ms", 3500}, {"start_ms", 2500}};
  b.fault("partition", "start", ms_to_ns(2500), second_cut);
  const nlohmann::json pause = {{"targets", {"member-2"}}, {"duration_ms", 800}, {"start_ms", 1200}};
  b.fault("pause", "start", ms_to_ns(1200), pause);
  b.fault("pause", "end", ms_to_ns(2000), pause);
  b.fault("partition", "end", ms_to_ns(6000), second_cut);
  // Sent at 1.5 s into the cut: retransmitted at 1.7, 2.1, 2.9, 4.5 and 7.7 s, the first after
  // the second cut healed.
  b.truth("etcd", "key-delete", ms_to_ns(7703), {{"key", "/k"}, {"revision", 6},
                                           {"cause", request_cause("client-1", 7, "delete_range", ms_to_ns(1500))}});
  const std::string text = key_loss_text(b.history);
  INFO(text);
  CHECK(contains(text, "; it got through at TCP's retransmission at 7.700 s, 1.700 s after the cut healed"));
  CHECK_FALSE(contains(text, "paused"));
}

TEST_CASE("faults that read alike are said once with their count, and a clock fault on both clocks reads as such") {
  HistoryBuilder b;
  const nlohmann::json loss = {{"from", {"member-2"}}, {"to", {"member-0"}}, {"probability", 0.06},
                               {"duration_ms", 400}, {"start_ms", 1000}};
  b.fault("loss", "start", ms_to_ns(1000), loss);
  b.fault("loss", "start", ms_to_ns(1000), loss);
  nlohmann::json clock = {{"targets", {"client-0"}}, {"clock", "both"}, {"amount_ms", -500}, {"start_ms", 1200},
                          {"duration_ms", 0}};
  b.fault("clock", "start", ms_to_ns(1200), clock);
  b.fault("loss", "end", ms_to_ns(1400), loss);
  b.fault("loss", "end", ms_to_ns(1400), loss);
  const reports::RunFacts facts(b.history);
  REQUIRE(facts.faults().size() == 3);
  std::vector<const reports::FaultBand*> all;
  for (const auto& f : facts.faults()) all.push_back(&f);
  const std::string text = reports::fault_clauses(all);
  INFO(text);
  CHECK(contains(text, "were lost with probability 0.06 (TCP resent them, late) from 1.000 s to 1.400 s (2 such faults)"));
  CHECK(contains(text, "client-0's wall and monotonic clocks jumped back by 500 ms"));
}

// A step-down says why, from its recorded reason: check-quorum, a hand-over, or a newer term
// in another member's message, with that member's faults and the link between the two that
// lost what it held just before.
// client-2's keep-alive went to member-2 just after the leader, member-1, crashed; member-2
// still knew member-1 as the leader and passed it on, and it was lost. The crash is named (its
// term in the truth ends with it, before the keep-alive), with the way the keep-alive took.
// With `acquire_ms` the time client-2 was told it held the lock (its key was made at 1.010 s).
History keep_alive_to_crashed_leader(std::int64_t acquire_ms) {
  HistoryBuilder b;
  b.history.header.meta["election_timeout_ms"] = 1000;
  b.truth("member-1", "leader-elected", ms_to_ns(100), {{"member", 1}, {"term", 1}});
  b.truth("member-2", "leader-view", ms_to_ns(101), {{"member", 2}, {"leader", 1}, {"term", 1}});
  b.truth("etcd", "lease-granted", ms_to_ns(1000), {{"lease", 11}, {"ttl_seconds", 2}});
  b.truth("etcd", "key-put", ms_to_ns(1010), {{"key", "/l/c2"}, {"revision", 2}, {"create_revision", 2}, {"lease", 11},
                                        {"value", "client-2"}, {"cause", request_cause("client-2", 2, "txn", ms_to_ns(1005))}});
  b.add("client-2", EventKind::invoke, "acquire", ms_to_ns(acquire_ms - 10), {{"mode", "exclusive"}});
  b.add("client-2", EventKind::ok, "acquire", ms_to_ns(acquire_ms), {}, {{"key", "/l/c2"}, {"key_revision", 2}, {"lease", 11}});
  const nlohmann::json crash = {{"targets", {"member-1"}}, {"duration_ms", 200}, {"start_ms", 2500}};
  b.fault("crash", "start", ms_to_ns(2500), crash);
  b.add("client-2", EventKind::trace, "kv-send", ms_to_ns(2600),
        {{"call", 5}, {"request", "lease_keep_alive"}, {"member", "member-2"}, {"lease", 11}});
  b.fault("crash", "end", ms_to_ns(2700), crash);
  b.truth("member-2", "campaign", ms_to_ns(4000), {{"member", 2}, {"term", 2}, {"last_index", 9}, {"last_term", 1}});
  b.truth("member-2", "leader-view", ms_to_ns(4001), {{"member", 2}, {"leader", 2}, {"term", 2}});
  b.truth("member-2", "leader-elected", ms_to_ns(4001), {{"member", 2}, {"term", 2}});
  const nlohmann::json expiry = {{"lease", 11}, {"leader", "member-2"}, {"term", 2}, {"found_ns", ms_to_ns(7001)},
                                 {"renewed_ns", ms_to_ns(4001)}, {"renewed_by", "leader-election"}};
  b.truth("member-2", "lease-expired", ms_to_ns(7002), expiry);
  nlohmann::json cause = expiry;
  cause["kind"] = "lease-expiry";
  b.truth("etcd", "key-delete", ms_to_ns(7003), {{"key", "/l/c2"}, {"revision", 3}, {"lease_expired", true}, {"cause", cause}});
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(7004), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(7005), {{"key", "/l/c0"}, {"revision", 4}, {"create_revision", 4}, {"lease", 12},
                                        {"value", "client-0"}, {"cause", request_cause("client-0", 1, "txn", ms_to_ns(7004))}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(7100), {}, {{"key", "/l/c0"}, {"key_revision", 4}, {"lease", 12}});
  b.add("client-2", EventKind::invoke, "release", ms_to_ns(8000));
  b.add("client-2", EventKind::ok, "release", ms_to_ns(8001));
  b.sort_by_time();
  return b.history;
}

// client-2's keep-alive went to member-2 just after the leader, member-1, crashed; member-2
// still knew member-1 as the leader and passed it on, and it was lost. The crash is named (its
// term in the truth ends with it, before the keep-alive), with the way the keep-alive took.
TEST_CASE("a keep-alive passed on to a leader that had just crashed names that crash") {
  const std::string text = mutex_story(keep_alive_to_crashed_leader(1020));
  INFO(text);
  CHECK(contains(text, "In that time member-1 crashed from 2.500 s to 2.700 s; client-2's keep-alives went to member-2, "
                       "which knew member-1 as the leader."));
  CHECK_FALSE(contains(text, "No fault hit client-2"));
}

// Renewed by member-2's promotion at 4.001 s, the lease ran its TTL of 2 s and an election
// timeout: until 7.001 s. A grant at 6.5 s was on a live lease, not on one that had run out.
TEST_CASE("a lease renewed by a promotion is not said to have run out a TTL after it") {
  const std::string text = mutex_story(keep_alive_to_crashed_leader(6500));
  INFO(text);
  CHECK_FALSE(contains(text, "had already run out"));
}

// member-1 lost its quorum to two cuts; a delay on member-0's links began and ended while the
// cut of member-0 held every message on them, so it kept nothing from member-1 and is not named.
// A delay on a link no cut held is.
TEST_CASE("a check-quorum step-down does not name a delay on links a cut held throughout") {
  const auto step_down = [](std::int64_t delay_from_ms) {
    HistoryBuilder b;
    b.history.header.meta["election_timeout_ms"] = 1000;
    b.truth("member-1", "leader-elected", ms_to_ns(100), {{"member", 1}, {"term", 1}});
    const nlohmann::json isolate = {{"from", {"member-0"}}, {"to", {"member-1", "member-2"}}, {"symmetric", true},
                                    {"start_ms", 1000}, {"duration_ms", 9000}};
    const nlohmann::json cut = {{"from", {"member-2"}}, {"to", {"member-1"}}, {"symmetric", true},
                                {"start_ms", 2000}, {"duration_ms", 8000}};
    const nlohmann::json delay = {{"from", {"member-0"}}, {"to", {"member-1", "member-2"}}, {"symmetric", true},
                                  {"amount_ms", 800}, {"start_ms", delay_from_ms}, {"duration_ms", 3000}};
    if (delay_from_ms < 1000) b.fault("delay", "start", ms_to_ns(delay_from_ms), delay);
    b.fault("partition", "start", ms_to_ns(1000), isolate);
    b.fault("partition", "start", ms_to_ns(2000), cut);
    if (delay_from_ms >= 1000) b.fault("delay", "start", ms_to_ns(delay_from_ms), delay);
    b.fault("delay", "end", ms_to_ns(delay_from_ms + 3000), delay);
    b.truth("member-1", "leader-stepped-down", ms_to_ns(4500), {{"member", 1}, {"term", 1}, {"reason", "check-quorum"}});
    b.fault("partition", "end", ms_to_ns(10000), isolate);
    b.fault("partition", "end", ms_to_ns(10000), cut);
    b.truth("member-1", "leader-elected", ms_to_ns(11000), {{"member", 1}, {"term", 2}});
    b.sort_by_time();
    const RunFacts facts(b.history);
    return leaderless_span_words(facts, facts.leaderless(4000, facts.end_ns(), 1));
  };
  const std::string held = step_down(1500);
  INFO(held);
  CHECK(contains(held, "member-1 stepped down at 4.500 s: it had heard from no majority"));
  CHECK(contains(held, "were cut (their messages held) from 1.000 s to 10.000 s"));
  CHECK_FALSE(contains(held, "delayed"));
  const std::string before_cut = step_down(500);  // from 0.5 s: before the cut, it delayed messages
  INFO(before_cut);
  CHECK(contains(before_cut, "were delayed by 800 ms from 0.500 s to 3.500 s"));
}

// member-2 was cut off from member-0 twice; it heard member-0 again after the first cut, and
// only the second made the campaigns (terms 4 to 6) whose term deposed member-0: the first cut,
// over more than two election timeouts before the first of them, is no reason.
TEST_CASE("a step-down names only the faults behind the campaigns that deposed the leader") {
  HistoryBuilder b;
  b.history.header.meta["election_timeout_ms"] = 1000;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  const auto cut = [&](std::int64_t from_ms, std::int64_t to_ms) {
    const nlohmann::json args = {{"from", {"member-2"}}, {"to", {"member-0"}}, {"symmetric", true},
                                 {"start_ms", from_ms}, {"duration_ms", to_ms - from_ms}};
    b.fault("partition", "start", ms_to_ns(from_ms), args);
    return args;
  };
  const nlohmann::json first = cut(12000, 15000);
  b.truth("member-0", "leader-elected", ms_to_ns(14500), {{"member", 0}, {"term", 3}});
  b.fault("partition", "end", ms_to_ns(15000), first);
  const nlohmann::json second = cut(18000, 21000);
  for (const auto& [ms, term] : {std::pair{19700, 4}, std::pair{21000, 5}, std::pair{22900, 6}}) {
    if (ms == 21000) b.fault("partition", "end", ms_to_ns(21000), second);
    b.truth("member-2", "campaign", ms_to_ns(ms), {{"member", 2}, {"term", term}, {"last_index", 9}, {"last_term", 3}});
  }
  b.truth("member-0", "leader-stepped-down", ms_to_ns(23000),
          {{"member", 0}, {"term", 3}, {"reason", "higher-term"}, {"from", 2}, {"message", "heartbeat-reply"},
           {"new_term", 6}});
  b.truth("member-1", "leader-elected", ms_to_ns(24000), {{"member", 1}, {"term", 7}});
  const RunFacts facts(b.history);
  const std::string words = leaderless_span_words(facts, facts.leaderless(20000, facts.end_ns(), 1));
  INFO(words);
  CHECK(contains(words, "member-0 stepped down at 23.000 s on seeing term 6 in member-2's heartbeat-reply: the links "
                        "between member-2 and member-0 were cut (their messages held) from 18.000 s to 21.000 s and "
                        "member-2 had campaigned 3 times"));
  CHECK_FALSE(contains(words, "from 12.000 s to 15.000 s"));
}

// A leader-change fault told member-0 to hand its leadership over to member-2, which was paused
// then; on resuming it made the hand-over's campaign (forced), whose term deposed member-0. That
// order is why it campaigned, not a leader it could not hear.
TEST_CASE("a step-down on a hand-over's campaign names the leader change that ordered it") {
  HistoryBuilder b;
  b.history.header.meta["election_timeout_ms"] = 1000;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  const nlohmann::json pause = {{"targets", {"member-2"}}, {"start_ms", 5000}, {"duration_ms", 4000}};
  b.fault("leader-change", "start", ms_to_ns(5000), {{"from_member", 0}, {"to_member", 2}, {"duration_ms", 0}, {"start_ms", 5000}});
  b.fault("pause", "start", ms_to_ns(5000), pause);
  b.fault("pause", "end", ms_to_ns(9000), pause);
  b.truth("member-2", "campaign", ms_to_ns(9000), {{"member", 2}, {"term", 2}, {"last_index", 9}, {"last_term", 1}, {"forced", true}});
  b.truth("member-0", "leader-stepped-down", ms_to_ns(9001),
          {{"member", 0}, {"term", 1}, {"reason", "higher-term"}, {"from", 2}, {"message", "vote-request"}, {"new_term", 2}});
  b.truth("member-1", "leader-elected", ms_to_ns(12000), {{"member", 1}, {"term", 3}});
  const std::string words = whole_leaderless_words(b);
  INFO(words);
  CHECK(contains(words, "member-2 had campaigned once at 9.000 s (term 2), a hand-over's campaign: member-0 was told, "
                        "in vain, to hand the leadership over to member-2 at 5.000 s"));
}

// Four faults kept answers from the leader; the cut from every other member, begun last, is the
// one that explains a check-quorum step-down by itself: it is said first, not left among "more
// faults" (nor taken as said when it was).
TEST_CASE("a check-quorum step-down names first the fault that cut the leader off from every member") {
  HistoryBuilder b;
  b.history.header.meta["election_timeout_ms"] = 1000;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  const auto fault = [&b](const std::string& kind, std::int64_t from_ms, std::int64_t to_ms, nlohmann::json args) {
    args["start_ms"] = from_ms;
    args["duration_ms"] = to_ms - from_ms;
    b.fault(kind, "start", ms_to_ns(from_ms), args);
    return args;
  };
  const auto slow = fault("delay", 1000, 20000, {{"from", {"member-0"}}, {"to", {"member-1"}}, {"symmetric", false}, {"amount_ms", 300}});
  const auto apart = fault("partition", 1500, 20000, {{"from", {"member-1"}}, {"to", {"member-2"}}, {"symmetric", true}});
  const auto lossy = fault("loss", 2000, 20000, {{"from", {"member-0"}}, {"to", {"member-2"}}, {"symmetric", false}, {"probability", 0.3}});
  const auto alone = fault("partition", 3000, 9000, {{"from", {"member-0"}}, {"to", {"member-1", "member-2"}}, {"symmetric", true}});
  b.truth("member-0", "leader-stepped-down", ms_to_ns(3500), {{"member", 0}, {"term", 1}, {"reason", "check-quorum"}});
  b.fault("partition", "end", ms_to_ns(9000), alone);
  b.truth("member-2", "leader-elected", ms_to_ns(10000), {{"member", 2}, {"term", 2}});
  for (const auto& [kind, args] : {std::pair{"delay", slow}, std::pair{"partition", apart}, std::pair{"loss", lossy}})
    b.fault(kind, "end", ms_to_ns(20000), args);
  const std::string words = whole_leaderless_words(b);
  INFO(words);
  CHECK(contains(words, "member-0 stepped down at 3.500 s: it had heard from no majority of the members within an "
                        "election timeout (check-quorum): the links between member-0 and each of member-1 and member-2 "
                        "were cut (their messages held) from 3.000 s to 9.000 s, "));
}

TEST_CASE("a request dropped by a leader handing over says so, not that it knew no leader") {
  HistoryBuilder b;
  b.add("client-3", EventKind::trace, "kv-send", ms_to_ns(7083), {{"call", 18}, {"request", "lease_revoke"}, {"member", "member-1"}, {"lease", 9}});
  b.truth("member-0", "proposal-dropped", ms_to_ns(7085),
          {{"member", 0}, {"reason", "leader-transfer"},
           {"cause", request_cause("client-3", 18, "lease_revoke", ms_to_ns(7083), "member-1")}});
  b.add("client-3", EventKind::trace, "kv-end", ms_to_ns(12083), {{"call", 18}, {"outcome", "deadline"}});
  const RunFacts facts(b.history);
  const CallRecord* call = facts.find_call("client-3", 18);
  REQUIRE(call != nullptr);
  CHECK(dropped_words(facts, *call) ==
        "member-0 dropped it at 7.085 s (member-1 passed it on to member-0 as the leader, but member-0 was handing its "
        "leadership over, and a leader drops every proposal then; etcd does not propose a dropped request again, so "
        "only the caller's deadline ends it)");
}

TEST_CASE("a leaderless span says why its leader stepped down") {
  HistoryBuilder b;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  b.fault("partition", "start", ms_to_ns(1000), {{"from", {"member-2"}}, {"to", {"member-0", "member-1"}},
                                                 {"symmetric", true}, {"start_ms", 1000}, {"duration_ms", 2000}});
  b.fault("partition", "end", ms_to_ns(3000), {{"from", {"member-2"}}, {"to", {"member-0", "member-1"}},
                                               {"symmetric", true}, {"start_ms", 1000}, {"duration_ms", 2000}});
  b.truth("member-2", "link-dead", ms_to_ns(6001),
          {{"from", "member-0"}, {"to", "member-2"}, {"held_since_ns", ms_to_ns(1001)}, {"lost", 40}});
  b.truth("member-0", "leader-stepped-down", ms_to_ns(6050),
          {{"member", 0}, {"term", 1}, {"reason", "higher-term"}, {"from", 2}, {"message", "heartbeat-reply"},
           {"new_term", 4}});
  b.truth("member-1", "leader-elected", ms_to_ns(7000), {{"member", 1}, {"term", 5}});
  b.truth("member-1", "leader-stepped-down", ms_to_ns(8000), {{"member", 1}, {"term", 5}, {"reason", "check-quorum"}});
  b.truth("member-1", "leader-elected", ms_to_ns(9000), {{"member", 1}, {"term", 6}});
  b.truth("member-1", "leader-stepped-down", ms_to_ns(10000),
          {{"member", 1}, {"term", 6}, {"reason", "hand-over"}, {"from", 0}, {"message", "vote-request"},
           {"new_term", 7}});
  b.truth("member-0", "leader-elected", ms_to_ns(10010), {{"member", 0}, {"term", 7}});
  // An older history's step-down, with no reason: the span is said alone. Records of the wrong
  // types (a hand-edited file) read as absent, never as an exception.
  b.truth("member-2", "link-released", ms_to_ns(10500), {{"from", 0}, {"to", "member-2"}, {"held_since_ns", "soon"}});
  b.truth("member-0", "leader-stepped-down", ms_to_ns(11000), {{"member", 0}, {"term", 7}, {"reason", 3}, {"message", 4}});
  b.truth("member-2", "leader-elected", ms_to_ns(12000), {{"member", 2}, {"term", 8}});
  const std::string words = whole_leaderless_words(b);
  INFO(words);
  CHECK(contains(words, "from 6.050 s to 7.000 s (member-0 stepped down at 6.050 s on seeing term 4 in member-2's "
                        "heartbeat-reply: the links between member-2 and each of member-0 and member-1 were cut "
                        "(their messages held) from 1.000 s to 3.000 s and the connection from member-0 to member-2, "
                        "holding member-0's messages since 1.001 s, was declared dead at 6.001 s)"));
  CHECK(contains(words, "from 8.000 s to 9.000 s (member-1 stepped down at 8.000 s: it had heard from no majority of "
                        "the members within an election timeout (check-quorum))"));
  CHECK(contains(words, "from 10.000 s to 10.010 s (member-1 handed its leadership over to member-0 at 10.000 s)"));
  CHECK(contains(words, "from 11.000 s to 12.000 s"));
  CHECK(!contains(words, "from 11.000 s to 12.000 s ("));
}

// Why no leader came for a long while, from the campaign and vote-refused records: the member
// with the shorter log campaigned again and again, the other refused each vote, and each
// request's newer term restarted the refuser's election timer; a third member was cut off. A
// span cut short by the window (not begun at a step-down) says none of this.
TEST_CASE("a long leaderless span says why no leader was elected sooner") {
  HistoryBuilder b;
  const nlohmann::json cut = {{"from", {"member-0"}}, {"to", {"member-1", "member-2"}}, {"symmetric", true},
                              {"start_ms", 900}, {"duration_ms", 20000}};
  b.truth("member-1", "leader-elected", ms_to_ns(100), {{"member", 1}, {"term", 2}});
  b.fault("partition", "start", ms_to_ns(900), cut);
  b.truth("member-1", "leader-stepped-down", ms_to_ns(1000), {{"member", 1}, {"term", 2}, {"reason", "check-quorum"}});
  for (int i = 0; i < 3; ++i) {
    const std::int64_t at = ms_to_ns(2000 + 1500 * i);
    b.truth("member-2", "campaign", at, {{"member", 2}, {"term", 3 + i}, {"last_index", 120}, {"last_term", 2}});
    b.truth("member-1", "vote-refused", at + ms_to_ns(1),
            {{"member", 1}, {"candidate", 2}, {"term", 3 + i}, {"reason", "log-behind"}, {"adopted_term", true},
             {"candidate_last_index", 120}, {"candidate_last_term", 2}, {"last_index", 125}, {"last_term", 2}});
  }
  b.truth("member-0", "campaign", ms_to_ns(2500), {{"member", 0}, {"term", 3}, {"last_index", 125}, {"last_term", 2}});
  b.truth("member-1", "campaign", ms_to_ns(7000), {{"member", 1}, {"term", 6}, {"last_index", 125}, {"last_term", 2}});
  b.truth("member-1", "leader-elected", ms_to_ns(7002), {{"member", 1}, {"term", 6}});
  b.fault("partition", "end", ms_to_ns(20900), cut);
  b.sort_by_time();
  const RunFacts facts(b.history);
  REQUIRE(facts.campaigns().size() == 5);
  REQUIRE(facts.vote_refusals().size() == 3);
  const std::string words = leaderless_span_words(facts, facts.leaderless(0, facts.end_ns(), 1));
  INFO(words);
  CHECK(contains(words, "from 1.000 s to 7.002 s (member-1 stepped down at 1.000 s: it had heard from no majority of "
                        "the members within an election timeout (check-quorum): the links between member-0 and each of "
                        "member-1 and member-2 were cut (their messages held) from 0.900 s to 20.900 s; no leader was "
                        "elected sooner: member-2 campaigned 3 times from 2.000 s to 5.000 s (terms 3 to 5): member-1 "
                        "refused all three because member-2's log was behind its own (last entries: index 120 of term 2 "
                        "against index 125 of term 2; each request's newer term restarted member-1's election timer); "
                        "member-0 campaigned once at 2.500 s (term 3) while cut off from the other members; member-1 "
                        "campaigned at 7.000 s (term 6) and won)"));
  // A window within the span: what happened in it, without the step-down before it or the
  // election after it.
  const std::string clipped = leaderless_span_words(facts, facts.leaderless(ms_to_ns(1500), ms_to_ns(6000), 1));
  INFO(clipped);
  CHECK(contains(clipped, "from 1.500 s to 6.000 s (none was elected in that time: the links between member-0 and "
                          "each of member-1 and member-2 were cut"));
  CHECK(!contains(clipped, "stepped down"));
  CHECK(!contains(clipped, "won"));
}

// A voter paused through a candidate's campaigns refuses their requests only when it resumes,
// after those campaigns had failed: it is said to have been paused through them, and a late
// refusal is not given as why a campaign failed.
TEST_CASE("a voter paused through campaigns is said paused, not to have refused them") {
  HistoryBuilder b;
  const nlohmann::json pause = {{"targets", {"member-1"}}, {"start_ms", 1500}, {"duration_ms", 5500}};
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 2}});
  b.truth("member-0", "leader-stepped-down", ms_to_ns(1000), {{"member", 0}, {"term", 2}, {"reason", "check-quorum"}});
  b.fault("pause", "start", ms_to_ns(1500), pause);
  for (int i = 0; i < 3; ++i)
    b.truth("member-2", "campaign", ms_to_ns(2000 + 1500 * i), {{"member", 2}, {"term", 3 + i}, {"last_index", 120}, {"last_term", 2}});
  b.fault("pause", "end", ms_to_ns(7000), pause);
  // member-1 reads the three requests when it resumes: it refuses the two older terms' (it
  // follows the newest) after their campaigns were over.
  for (int i = 0; i < 2; ++i)
    b.truth("member-1", "vote-refused", ms_to_ns(7000),
            {{"member", 1}, {"candidate", 2}, {"term", 3 + i}, {"reason", "stale-term"}});
  b.truth("member-1", "campaign", ms_to_ns(9000), {{"member", 1}, {"term", 6}, {"last_index", 125}, {"last_term", 2}});
  b.truth("member-1", "leader-elected", ms_to_ns(9002), {{"member", 1}, {"term", 6}});
  b.sort_by_time();
  const std::string words = whole_leaderless_words(b);
  INFO(words);
  CHECK(contains(words, "member-2 campaigned 3 times from 2.000 s to 5.000 s (terms 3 to 5): member-1 was paused from "
                        "1.500 s to 7.000 s through two of them (a paused member reads what came meanwhile only when it "
                        "resumes)"));
  CHECK(!contains(words, "member-1 refused"));
  CHECK(!contains(words, "being in a newer term"));
}

// Two overlapping crashes of a voter are one span down: said as such, with the campaigns that
// span held, not the first crash's span with campaigns the second held.
TEST_CASE("a voter down through campaigns over overlapping crashes is said down over their union") {
  HistoryBuilder b;
  const nlohmann::json first = {{"targets", {"member-0"}}, {"duration_ms", 4000}};
  const nlohmann::json second = {{"targets", {"member-0"}}, {"duration_ms", 5000}};
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 2}});
  b.fault("crash", "start", ms_to_ns(1000), first);
  b.truth("member-0", "leader-stepped-down", ms_to_ns(1000), {{"member", 0}, {"term", 2}, {"reason", "check-quorum"}});
  for (int i = 0; i < 4; ++i) {
    const std::int64_t at_ms = std::array<std::int64_t, 4>{2000, 3500, 6000, 7500}[static_cast<std::size_t>(i)];
    if (at_ms == 6000) b.fault("crash", "end", ms_to_ns(5000), first);
    if (at_ms == 3500) b.fault("crash", "start", ms_to_ns(3400), second);
    b.truth("member-2", "campaign", ms_to_ns(at_ms), {{"member", 2}, {"term", 3 + i}, {"last_index", 120}, {"last_term", 2}});
  }
  b.fault("crash", "end", ms_to_ns(8400), second);
  b.truth("member-1", "campaign", ms_to_ns(9900), {{"member", 1}, {"term", 7}, {"last_index", 125}, {"last_term", 2}});
  b.truth("member-1", "leader-elected", ms_to_ns(10000), {{"member", 1}, {"term", 7}});
  b.sort_by_time();
  const std::string words = whole_leaderless_words(b);
  INFO(words);
  CHECK(contains(words, "member-2 campaigned 4 times from 2.000 s to 7.500 s (terms 3 to 6): member-0 was down from "
                        "1.000 s to 8.400 s through three of them"));
}

// A voter that ignores a campaign the instant it resumes from a long pause had heard its
// leader only then, from a message its pause had held: said, lest "less than an election
// timeout before" read as a leader alive through the pause.
TEST_CASE("a vote ignored on resuming from a long pause says the leader was heard only then") {
  HistoryBuilder b;
  const nlohmann::json pause = {{"targets", {"member-1"}}, {"start_ms", 1500}, {"duration_ms", 2500}};
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 2}});
  b.fault("pause", "start", ms_to_ns(1500), pause);
  b.truth("member-0", "leader-stepped-down", ms_to_ns(2000), {{"member", 0}, {"term", 2}, {"reason", "check-quorum"}});
  b.truth("member-2", "campaign", ms_to_ns(3000), {{"member", 2}, {"term", 3}, {"last_index", 120}, {"last_term", 2}});
  b.fault("pause", "end", ms_to_ns(4000), pause);
  b.truth("member-1", "vote-refused", ms_to_ns(4000), {{"member", 1}, {"candidate", 2}, {"term", 3}, {"reason", "leader-lease"}});
  b.truth("member-2", "campaign", ms_to_ns(5500), {{"member", 2}, {"term", 4}, {"last_index", 120}, {"last_term", 2}});
  b.truth("member-2", "leader-elected", ms_to_ns(5502), {{"member", 2}, {"term", 4}});
  b.sort_by_time();
  const std::string words = whole_leaderless_words(b);
  INFO(words);
  CHECK(contains(words, "member-1 ignored it, having heard from a leader less than an election timeout before (it had "
                        "been paused from 1.500 s to 4.000 s; on resuming it read a leader's message that had come "
                        "meanwhile before the request)"));
}

// A vote request that a `duplicate` fault delivered twice is refused twice, but it is one
// request of one campaign: three campaigns are "all three" refused, not four.
TEST_CASE("a duplicated vote request counts once among a campaign's refusals") {
  HistoryBuilder b;
  b.truth("member-1", "leader-elected", ms_to_ns(100), {{"member", 1}, {"term", 2}});
  b.truth("member-1", "leader-stepped-down", ms_to_ns(1000), {{"member", 1}, {"term", 2}, {"reason", "check-quorum"}});
  for (int i = 0; i < 3; ++i) {
    const std::int64_t at = ms_to_ns(2000 + 1500 * i);
    b.truth("member-2", "campaign", at, {{"member", 2}, {"term", 3 + i}, {"last_index", 120}, {"last_term", 2}});
    // The second campaign's request came twice: the copy found the term adopted already.
    for (int copy = 0; copy < (i == 1 ? 2 : 1); ++copy)
      b.truth("member-1", "vote-refused", at + ms_to_ns(1 + copy),
              {{"member", 1}, {"candidate", 2}, {"term", 3 + i}, {"reason", "log-behind"}, {"adopted_term", copy == 0},
               {"candidate_last_index", 120}, {"candidate_last_term", 2}, {"last_index", 125}, {"last_term", 2}});
  }
  b.truth("member-1", "campaign", ms_to_ns(7000), {{"member", 1}, {"term", 6}, {"last_index", 125}, {"last_term", 2}});
  b.truth("member-1", "leader-elected", ms_to_ns(7002), {{"member", 1}, {"term", 6}});
  b.sort_by_time();
  const RunFacts facts(b.history);
  REQUIRE(facts.vote_refusals().size() == 4);
  const std::string words = leaderless_span_words(facts, facts.leaderless(0, facts.end_ns(), 1));
  INFO(words);
  CHECK(contains(words, "member-2 campaigned 3 times from 2.000 s to 5.000 s (terms 3 to 5): member-1 refused all "
                        "three because member-2's log was behind its own (last entries: index 120 of term 2 against "
                        "index 125 of term 2; each request's newer term restarted member-1's election timer)"));
  CHECK(!contains(words, "four"));
}

// Keep-alives sent to a member that knew no leader (it campaigned) and whose links with the
// lessor lost what they held: said of that member, with the campaigns and the dead connection.
TEST_CASE("keep-alives held at a member that knew no leader say so") {
  HistoryBuilder b;
  b.truth("member-2", "leader-elected", ms_to_ns(100), {{"member", 2}, {"term", 1}});
  b.truth("etcd", "lease-granted", ms_to_ns(200), {{"lease", 77}, {"ttl_seconds", 5}});
  b.add("client-1", EventKind::trace, "kv-send", ms_to_ns(1000), {{"call", 1}, {"request", "lease_keep_alive"}, {"member", "member-0"}, {"lease", 77}});
  b.add("client-1", EventKind::trace, "kv-end", ms_to_ns(1002), {{"call", 1}, {"outcome", "ok"}});
  const nlohmann::json cut = {{"from", {"member-0"}}, {"to", {"member-1", "member-2"}}, {"symmetric", true},
                              {"start_ms", 1500}, {"duration_ms", 3000}};
  b.fault("partition", "start", ms_to_ns(1500), cut);
  for (int i = 0; i < 4; ++i)
    b.add("client-1", EventKind::trace, "kv-send", ms_to_ns(2700 + 1000 * i),
          {{"call", 2 + i}, {"request", "lease_keep_alive"}, {"member", "member-0"}, {"lease", 77}});
  b.truth("member-0", "campaign", ms_to_ns(2800), {{"member", 0}, {"term", 2}, {"last_index", 10}, {"last_term", 1}});
  b.truth("member-0", "campaign", ms_to_ns(4100), {{"member", 0}, {"term", 3}, {"last_index", 10}, {"last_term", 1}});
  b.fault("partition", "end", ms_to_ns(4500), cut);
  b.truth("member-2", "lease-revoke-attempt", ms_to_ns(6002),
          {{"lease", 77}, {"leader", "member-2"}, {"term", 1}, {"found_ns", ms_to_ns(6002)}, {"renewed_ns", ms_to_ns(1001)}, {"renewed_by", "keep-alive"}});
  b.truth("member-0", "link-dead", ms_to_ns(6501),
          {{"from", "member-2"}, {"to", "member-0"}, {"held_since_ns", ms_to_ns(1501)}, {"lost", 30}});
  // A hand-edited renewal with a lease of the wrong type reads as no lease, never as an exception.
  b.truth("member-2", "lease-renewed", ms_to_ns(5000), {{"lease", "77"}, {"leader", "member-2"}});
  b.truth("member-2", "lease-expired", ms_to_ns(6510),
          {{"lease", 77}, {"leader", "member-2"}, {"term", 1}, {"found_ns", ms_to_ns(6002)}, {"renewed_ns", ms_to_ns(1001)}, {"renewed_by", "keep-alive"}});
  b.sort_by_time();
  const RunFacts facts(b.history);
  const LeaseLifetime* lease = facts.truth().find_lease(77);
  REQUIRE(lease != nullptr);
  REQUIRE(lease->expired_ns);
  Story story;
  explain_lease_expiry(facts, *lease, "client-1", story);
  std::string text;
  for (const auto& sentence : story.sentences) text += sentence + "\n";
  INFO(text);
  CHECK(contains(text, "member-0, where client-1's keep-alives went, passes them on to the leader it knows, and holds "
                       "them while it knows none: it knew none from 2.800 s, when it first campaigned, to the end of "
                       "the history; its term from then (2 and up) was newer than member-2's (1), so it could not "
                       "follow member-2 again; member-0 campaigned twice from 2.800 s to 4.100 s (terms 2 to 3) while "
                       "cut off from the other members; member-2's messages to member-0, held since 1.501 s, were "
                       "lost when the connection was declared dead at 6.501 s."));
}

// Calls a cut link held past their deadlines and let through with their cancellations behind
// them: the member dropped them unstarted (recorded as request-cancelled). One that started
// first (both read in one batch) is not said to be dropped.
TEST_CASE("held calls that came with their cancellations say the member dropped them") {
  HistoryBuilder b;
  const nlohmann::json cut = {{"from", {"client-3"}}, {"to", {"member-0"}}, {"symmetric", true},
                              {"start_ms", 900}, {"duration_ms", 2100}};
  b.fault("partition", "start", ms_to_ns(900), cut);
  b.add("client-3", EventKind::trace, "kv-send", ms_to_ns(1000), {{"call", 5}, {"request", "delete_range"}, {"member", "member-0"}, {"key", "/k"}});
  b.add("client-3", EventKind::trace, "kv-send", ms_to_ns(1500), {{"call", 6}, {"request", "delete_range"}, {"member", "member-0"}, {"key", "/k"}});
  b.add("client-3", EventKind::trace, "kv-send", ms_to_ns(1600), {{"call", 7}, {"request", "delete_range"}, {"member", "member-0"}, {"key", "/k"}});
  b.fault("partition", "end", ms_to_ns(3000), cut);
  b.add("client-3", EventKind::trace, "kv-end", ms_to_ns(6000), {{"call", 5}, {"outcome", "deadline"}});
  b.add("client-3", EventKind::trace, "kv-end", ms_to_ns(6500), {{"call", 6}, {"outcome", "deadline"}});
  b.add("client-3", EventKind::trace, "kv-end", ms_to_ns(6600), {{"call", 7}, {"outcome", "deadline"}});
  b.truth("member-0", "link-released", ms_to_ns(7000),
          {{"from", "client-3"}, {"to", "member-0"}, {"held_since_ns", ms_to_ns(1000)}, {"messages", 6}, {"arrived_ns", ms_to_ns(7000)}});
  b.truth("member-0", "request-cancelled", ms_to_ns(7000), {{"member", 0}, {"client", "client-3"}, {"call", 5}, {"started", false}});
  b.truth("member-0", "request-cancelled", ms_to_ns(7000), {{"member", 0}, {"client", "client-3"}, {"call", 6}, {"started", false}});
  b.truth("member-0", "request-cancelled", ms_to_ns(7000), {{"member", 0}, {"client", "client-3"}, {"call", 7}, {"started", true}});
  const RunFacts facts(b.history);
  const CallRecord* five = facts.find_call("client-3", 5);
  const CallRecord* six = facts.find_call("client-3", 6);
  const CallRecord* seven = facts.find_call("client-3", 7);
  REQUIRE(five != nullptr);
  REQUIRE(six != nullptr);
  REQUIRE(seven != nullptr);
  CHECK(held_whole_way(facts, *five));
  const std::string one = call_held_words(facts, *five);
  INFO(one);
  CHECK(contains(one, "the link from client-3 to member-0 held call 5, with what it had held since 1.000 s, until TCP's "
                      "retransmission got them through at 7.000 s, and it came with its cancellation (client-3 cancels "
                      "a call at its deadline), so member-0 dropped it unstarted"));
  const LinkEvent* hold = link_hold_of(facts, "client-3", "member-0", five->sent_ns);
  REQUIRE(hold != nullptr);
  const std::string two = held_calls_words(facts, *hold, {five, six});
  INFO(two);
  CHECK(contains(two, "held calls 5 and 6, with what it had held since 1.000 s, until TCP's retransmission got them "
                      "through at 7.000 s, and each came with its cancellation (client-3 cancels a call at its "
                      "deadline), so member-0 dropped each unstarted"));
  // Call 7 started before its cancellation was read: only 5 and 6 were dropped.
  const std::string three = held_calls_words(facts, *hold, {five, six, seven});
  INFO(three);
  CHECK(contains(three, "and member-0 dropped calls 5 and 6 unstarted, each having come with its cancellation"));
  CHECK(!contains(call_held_words(facts, *seven), "dropped"));
}


TEST_CASE("a request's recorded way names what held it there, and not a cut that began after it moved on") {
  HistoryBuilder b;
  const nlohmann::json cause = request_cause("client-2", 5, "delete_range", ms_to_ns(1500), "member-2");
  const nlohmann::json pause0 = {{"targets", {"member-0"}}, {"duration_ms", 8000}};
  const nlohmann::json pause1 = {{"targets", {"member-1"}}, {"duration_ms", 8000}};
  const nlohmann::json cut = {{"from", {"member-0"}}, {"to", {"member-1", "member-2"}}, {"symmetric", true}, {"duration_ms", 20000}};
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  b.fault("pause", "start", ms_to_ns(1000), pause0);
  b.add("client-2", EventKind::trace, "kv-send", ms_to_ns(1500), {{"call", 5}, {"request", "delete_range"}, {"member", "member-2"}});
  b.truth("member-2", "request-forwarded", ms_to_ns(1501), {{"member", 2}, {"to", 0}, {"cause", cause}});
  b.truth("member-1", "leader-elected", ms_to_ns(2500), {{"member", 1}, {"term", 2}});
  b.fault("pause", "start", ms_to_ns(4000), pause1);
  b.fault("pause", "end", ms_to_ns(9000), pause0);
  b.truth("member-0", "leader-stepped-down", ms_to_ns(9000), {{"member", 0}, {"term", 1}, {"reason", "higher-term"}, {"from", 1},
                                                             {"message", "append"}, {"new_term", 2}, {"last_index", 119}, {"commit_index", 119}});
  b.truth("member-0", "request-forwarded", ms_to_ns(9000), {{"member", 0}, {"to", 1}, {"cause", cause}});
  // Cut off after the request had left member-0: it held nothing of it.
  b.fault("partition", "start", ms_to_ns(10000), cut);
  b.fault("pause", "end", ms_to_ns(12000), pause1);
  b.truth("member-1", "request-appended", ms_to_ns(12000), {{"member", 1}, {"term", 2}, {"index", 124}, {"cause", cause}});
  b.truth("member-1", "leader-stepped-down", ms_to_ns(12002), {{"member", 1}, {"term", 2}, {"reason", "higher-term"}, {"from", 2},
                                                              {"message", "heartbeat-reply"}, {"new_term", 8}, {"last_index", 125},
                                                              {"commit_index", 120}});
  b.truth("member-1", "leader-elected", ms_to_ns(20000), {{"member", 1}, {"term", 9}});
  b.truth("etcd", "key-delete", ms_to_ns(20003), {{"key", "/l/a"}, {"revision", 9}, {"cause", cause}});
  b.fault("partition", "end", ms_to_ns(30000), cut);
  b.sort_by_time();
  const RunFacts facts(b.history);
  REQUIRE(facts.request_steps(parse_change_cause(cause)).size() == 3);
  std::vector<const FaultBand*> held;
  const std::string words = request_delay_words(facts, parse_change_cause(cause), ms_to_ns(20003), held);
  INFO(words);
  CHECK(contains(words, "It took 18.503 s from sending to applying: member-0 was paused from 1.000 s to 9.000 s and "
                        "member-1 was paused from 4.000 s to 12.000 s; member-2 passed it on to member-0, the leader it "
                        "knew, at 1.501 s; member-0 passed it on to member-1, the leader it knew, at 9.000 s, when its "
                        "pause ended (it had stepped down at 9.000 s, on seeing term 2 in member-1's append); member-1 "
                        "appended it as entry 124 of term 2 at 12.000 s, when its pause ended, and stepped down at "
                        "12.002 s before committing it (it had committed up to entry 120); member-1 committed it as "
                        "leader of term 9, elected at 20.000 s; no member led the cluster from 12.002 s to 20.000 s"));
  // The two pauses held it; the cut, begun after it had left member-0, did not.
  REQUIRE(held.size() == 2);
  CHECK(held[0]->kind == "pause");
  CHECK(held[1]->kind == "pause");
  // A way the records do not show whole (no append recorded) is not told: the bound is used.
  HistoryBuilder partial;
  partial.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  partial.add("client-2", EventKind::trace, "kv-send", ms_to_ns(1500), {{"call", 5}, {"request", "delete_range"}, {"member", "member-2"}});
  partial.truth("member-2", "request-forwarded", ms_to_ns(1501), {{"member", 2}, {"to", 0}, {"cause", cause}});
  partial.truth("etcd", "key-delete", ms_to_ns(3000), {{"key", "/l/a"}, {"revision", 9}, {"cause", cause}});
  partial.sort_by_time();
  const RunFacts partial_facts(partial.history);
  CHECK(request_legs(partial_facts, parse_change_cause(cause), ms_to_ns(3000)).empty());
  CHECK_FALSE(contains(request_delay_words(partial_facts, parse_change_cause(cause), ms_to_ns(3000), held), "passed it on"));
  // A member that held the write because it knew no leader says so, before passing it on.
  HistoryBuilder alone;
  alone.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  alone.truth("member-2", "leader-view", ms_to_ns(1000), {{"member", 2}, {"leader", -1}, {"term", 2}, {"message", "campaign"}});
  alone.add("client-2", EventKind::trace, "kv-send", ms_to_ns(1500), {{"call", 5}, {"request", "delete_range"}, {"member", "member-2"}});
  alone.truth("member-2", "leader-view", ms_to_ns(3000), {{"member", 2}, {"leader", 0}, {"term", 2}});
  alone.truth("member-2", "request-forwarded", ms_to_ns(3000), {{"member", 2}, {"to", 0}, {"cause", cause}});
  alone.truth("member-0", "request-appended", ms_to_ns(3001), {{"member", 0}, {"term", 1}, {"index", 9}, {"cause", cause}});
  alone.truth("etcd", "key-delete", ms_to_ns(3003), {{"key", "/l/a"}, {"revision", 9}, {"cause", cause}});
  alone.sort_by_time();
  const RunFacts alone_facts(alone.history);
  const std::string alone_words = request_delay_words(alone_facts, parse_change_cause(cause), ms_to_ns(3003), held);
  INFO(alone_words);
  CHECK(contains(alone_words, "member-2 knew no leader from 1.000 s (it campaigned) to 3.000 s (a member holds the "
                              "requests it cannot serve while it knows no leader); member-2 passed it on to member-0, the "
                              "leader it knew, at 3.000 s; member-0 appended it as entry 9 of term 1 at 3.001 s"));
  // While a cut link held the write, its member did not have it: its knowing no leader then is
  // not said to have held it.
  HistoryBuilder linked;
  const nlohmann::json cut_link = {{"from", {"client-2"}}, {"to", {"member-2"}}, {"symmetric", false}, {"duration_ms", 1100}};
  linked.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  linked.truth("member-2", "leader-view", ms_to_ns(1000), {{"member", 2}, {"leader", -1}, {"term", 2}, {"message", "campaign"}});
  linked.fault("partition", "start", ms_to_ns(1400), cut_link);
  linked.add("client-2", EventKind::trace, "kv-send", ms_to_ns(1500), {{"call", 5}, {"request", "delete_range"}, {"member", "member-2"}});
  linked.fault("partition", "end", ms_to_ns(2500), cut_link);
  linked.truth("member-2", "leader-view", ms_to_ns(2600), {{"member", 2}, {"leader", 0}, {"term", 2}});
  linked.truth("member-2", "link-released", ms_to_ns(2800),
               {{"from", "client-2"}, {"to", "member-2"}, {"held_since_ns", ms_to_ns(1500)}, {"messages", 1}});
  linked.truth("member-2", "request-forwarded", ms_to_ns(2800), {{"member", 2}, {"to", 0}, {"cause", cause}});
  linked.truth("member-0", "request-appended", ms_to_ns(2801), {{"member", 0}, {"term", 1}, {"index", 9}, {"cause", cause}});
  linked.truth("etcd", "key-delete", ms_to_ns(2803), {{"key", "/l/a"}, {"revision", 9}, {"cause", cause}});
  linked.sort_by_time();
  const RunFacts linked_facts(linked.history);
  const std::string linked_words = request_delay_words(linked_facts, parse_change_cause(cause), ms_to_ns(2803), held);
  INFO(linked_words);
  CHECK(contains(linked_words, "member-2 passed it on to member-0, the leader it knew, at 2.800 s"));
  CHECK_FALSE(contains(linked_words, "knew no leader"));
  // A reorder fault delays each message: a quick way it slowed names it; one no fault slowed
  // says nothing of faults.
  for (const bool reordered : {true, false}) {
    HistoryBuilder quick;
    const nlohmann::json reorder = {{"from", {"member-2"}}, {"to", {"member-0"}}, {"symmetric", true}, {"duration_ms", 5000}, {"window_ms", 50}};
    quick.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
    if (reordered) quick.fault("reorder", "start", ms_to_ns(1000), reorder);
    quick.add("client-2", EventKind::trace, "kv-send", ms_to_ns(1500), {{"call", 5}, {"request", "delete_range"}, {"member", "member-2"}});
    quick.truth("member-2", "request-forwarded", ms_to_ns(1501), {{"member", 2}, {"to", 0}, {"cause", cause}});
    quick.truth("member-0", "request-appended", ms_to_ns(1540), {{"member", 0}, {"term", 1}, {"index", 9}, {"cause", cause}});
    quick.truth("etcd", "key-delete", ms_to_ns(1590), {{"key", "/l/a"}, {"revision", 9}, {"cause", cause}});
    if (reordered) quick.fault("reorder", "end", ms_to_ns(6000), reorder);
    quick.sort_by_time();
    const RunFacts quick_facts(quick.history);
    ChangeCause given_up = parse_change_cause(cause);
    given_up.abandoned_ns = ms_to_ns(1550);  // said only of a request given up, or a slow one
    const std::string quick_words = request_delay_words(quick_facts, given_up, ms_to_ns(1590), held);
    INFO(quick_words);
    // Nothing held it and nothing is told: no sentence.
    CHECK(contains(quick_words, "It took 90 ms from sending to applying") == reordered);
    CHECK_FALSE(contains(quick_words, "no fault"));
    CHECK(contains(quick_words, "reordered") == reordered);
    CHECK(contains(quick_words, "passed it on") == reordered);
    CHECK(quick_words.empty() == !reordered);
  }
  // A leader deposed by a newer election, with no step-down of its own recorded, is not said to
  // have stepped down.
  HistoryBuilder deposed;
  const nlohmann::json cause0 = request_cause("client-2", 5, "delete_range", ms_to_ns(1000), "member-0");
  deposed.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  deposed.add("client-2", EventKind::trace, "kv-send", ms_to_ns(1000), {{"call", 5}, {"request", "delete_range"}, {"member", "member-0"}});
  deposed.truth("member-0", "request-appended", ms_to_ns(1001), {{"member", 0}, {"term", 1}, {"index", 5}, {"cause", cause0}});
  deposed.truth("member-1", "leader-elected", ms_to_ns(5000), {{"member", 1}, {"term", 2}});
  deposed.truth("etcd", "key-delete", ms_to_ns(5003), {{"key", "/l/a"}, {"revision", 9}, {"cause", cause0}});
  deposed.sort_by_time();
  const RunFacts deposed_facts(deposed.history);
  const std::string deposed_words = request_delay_words(deposed_facts, parse_change_cause(cause0), ms_to_ns(5003), held);
  INFO(deposed_words);
  CHECK(contains(deposed_words, "member-0 appended it as entry 5 of term 1 at 1.001 s, and lost the lead before "
                                "committing it (a newer leader was elected at 5.000 s); member-1 committed it as leader "
                                "of term 2, elected at 5.000 s"));
  // A leader whose crash ended its term, long before the next election: its crash is said, not
  // a newer leader's election at that time.
  HistoryBuilder crashed;
  crashed.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  crashed.add("client-2", EventKind::trace, "kv-send", ms_to_ns(1000), {{"call", 5}, {"request", "delete_range"}, {"member", "member-0"}});
  crashed.truth("member-0", "request-appended", ms_to_ns(1001), {{"member", 0}, {"term", 1}, {"index", 5}, {"cause", cause0}});
  const nlohmann::json crash = {{"targets", {"member-0"}}, {"duration_ms", 2000}};
  crashed.fault("crash", "start", ms_to_ns(1200), crash);
  crashed.fault("crash", "end", ms_to_ns(3200), crash);
  crashed.truth("member-0", "leader-elected", ms_to_ns(6000), {{"member", 0}, {"term", 2}});
  crashed.truth("etcd", "key-delete", ms_to_ns(6003), {{"key", "/l/a"}, {"revision", 9}, {"cause", cause0}});
  crashed.sort_by_time();
  const RunFacts crashed_facts(crashed.history);
  REQUIRE(crashed_facts.truth().leaders.front().end_ns == ms_to_ns(1200));
  const std::string crashed_words = request_delay_words(crashed_facts, parse_change_cause(cause0), ms_to_ns(6003), held);
  INFO(crashed_words);
  CHECK(contains(crashed_words, "member-0 appended it as entry 5 of term 1 at 1.001 s, and crashed at 1.200 s before committing it"));
  CHECK_FALSE(contains(crashed_words, "a newer leader was elected at 1.200 s"));
}

// A delay adds its amount to messages sent after it began: one that began while the entry waited
// for its commit, too late for any message it delayed to arrive before the commit, held nothing.
TEST_CASE("a delay begun too late to hold a commit is not said to have held it") {
  const nlohmann::json cause = request_cause("client-2", 5, "delete_range", ms_to_ns(1000), "member-0");
  HistoryBuilder b;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  const nlohmann::json slow = {{"from", {"member-0"}}, {"to", {"member-1", "member-2"}}, {"symmetric", true},
                               {"amount_ms", 781}, {"duration_ms", 5000}};
  const nlohmann::json paused = {{"targets", {"member-1"}}, {"duration_ms", 1500}};
  b.fault("pause", "start", ms_to_ns(900), paused);
  b.add("client-2", EventKind::trace, "kv-send", ms_to_ns(1000), {{"call", 5}, {"request", "delete_range"}, {"member", "member-0"}});
  b.truth("member-0", "request-appended", ms_to_ns(1001), {{"member", 0}, {"term", 1}, {"index", 5}, {"cause", cause}});
  b.fault("delay", "start", ms_to_ns(2000), slow);
  b.fault("pause", "end", ms_to_ns(2400), paused);
  b.truth("etcd", "key-delete", ms_to_ns(2450), {{"key", "/l/a"}, {"revision", 9}, {"cause", cause}});
  b.fault("delay", "end", ms_to_ns(7000), slow);
  b.sort_by_time();
  const RunFacts facts(b.history);
  std::vector<const FaultBand*> held;
  const std::string words = request_delay_words(facts, parse_change_cause(cause), ms_to_ns(2450), held);
  INFO(words);
  CHECK(contains(words, "member-1 was paused from 0.900 s to 2.400 s"));
  CHECK_FALSE(contains(words, "delayed"));
}

}  // namespace
}  // namespace lockstep::reports
