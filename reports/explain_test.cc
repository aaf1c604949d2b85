// The plain-sentence explanation, on small hand-built histories whose story is known.
#include <catch2/catch.hpp>

#include "lockstep/checker/liveness_checker.h"
#include "lockstep/checker/mutex_checker.h"
#include "lockstep/checker/resource_checker.h"
#include "lockstep/reports/explain.h"
#include "lockstep/reports/explain_parts.h"
#include "lockstep/reports/fault_bands.h"
#include "lockstep/checker/lock_truth.h"
#include "lockstep/reports/report_test_support.h"

namespace lockstep::reports {
namespace {

using reports_test::HistoryBuilder;
using reports_test::ms_to_ns;
using reports_test::request_cause;
using reports_test::verdict_of;

// The explanation of `history`'s mutex violation (the history must violate mutual exclusion).
std::string mutex_violation_text(const History& history) {
  const CheckResult mutex = check_mutual_exclusion(history);
  REQUIRE(mutex.status == CheckStatus::violated);
  return explain_violation(history, verdict_of({mutex}, history));
}

using reports_test::contains;

TEST_CASE("the explanation of a paused holder says who - when - why and what it did next") {
  const History h = reports_test::paused_holder_history();
  const CheckResult mutex = check_mutual_exclusion(h);
  REQUIRE(mutex.status == CheckStatus::violated);
  const auto explanations = explain_checks(h, verdict_of({mutex}, h));
  REQUIRE(explanations.size() == 1);
  CHECK(explanations[0].check == "mutex");
  std::string all;
  for (const auto& s : explanations[0].sentences) all += s + "\n";
  INFO(all);
  CHECK(contains(all, "client-2 acquired the lock at 3.200 s (key revision 7) while client-0 still believed it "
                      "held the lock since 1.100 s (key revision 5)."));
  CHECK(contains(all, "client-0's lock key /lock (created at 1.050 s, revision 5) was deleted at 3.110 s "
                      "(revision 6) with its lease."));
  CHECK(contains(all, "client-0's lease 4d expired at 3.100 s, when the revoke proposed by member-1 (leader in "
                      "term 1) committed; member-1's lessor had last renewed it at 1.300 s (a keep-alive) and "
                      "found it expired at 3.090 s."));
  CHECK(contains(all, "client-0 sent no keep-alive for it between 1.300 s and 3.090 s."));
  CHECK(contains(all, "In that time client-0 was paused from 1.500 s to 4.200 s."));
  CHECK(contains(all, "This is the inherent limit of leases"));
  CHECK(explanations[0].cause.value("class", "") == "lease-expired");
  CHECK(explanations[0].cause.value("lease", 0) == 77);
  CHECK(explanations[0].cause["faults"] == nlohmann::json::array({6}));  // the pause's start event
  REQUIRE(explanations[0].spans.size() == explanations[0].sentences.size());
  CHECK(contains(all, "client-0 resumed at 4.200 s and wrote 1 to the resource at 4.250 s (token 5), which the "
                      "resource accepted at 4.260 s; then released the lock at 4.300 s (indeterminate: timeout)."));
  CHECK(contains(all, "Meanwhile client-2 wrote 1 to the resource at 3.300 s (token 7)"));
  CHECK(contains(all, "overlapped for 1.100 s, from 3.200 s to 4.300 s"));
  for (const auto& s : explanations[0].sentences) CHECK(s.back() == '.');

  const std::string text = explain_violation(h, verdict_of({mutex}, h));
  CHECK(text.rfind("mutex: client-2 acquired", 0) == 0);
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);
}

// A waiter paused past its TTL (explore's etcd-mutex-synced-watch seed 12040): its key stood,
// but its lease had run out when it was granted the lock, before the revoke committed.
TEST_CASE("a grant on a lease that had run out while the waiter was paused is a lock lost before it was taken") {
  HistoryBuilder b;
  b.truth("member-1", "leader-elected", ms_to_ns(1), {{"member", 1}, {"term", 1}});
  b.truth("etcd", "lease-granted", ms_to_ns(2), {{"lease", 77}, {"ttl_seconds", 2}});
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(400), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(500), {{"key", "/lock/0"}, {"revision", 5}, {"create_revision", 5}, {"lease", 77}, {"value", "client-0"}});
  b.fault("pause", "start", ms_to_ns(600), {{"targets", {"client-0"}}, {"duration_ms", 1900}, {"start_ms", 600}});
  b.fault("pause", "end", ms_to_ns(2500), {{"targets", {"client-0"}}, {"duration_ms", 1900}, {"start_ms", 600}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(2550), {}, {{"key", "/lock/0"}, {"key_revision", 5}, {"lease", 77}});
  b.add("client-2", EventKind::invoke, "acquire", ms_to_ns(2600), {{"mode", "exclusive"}});
  const nlohmann::json expiry = {{"lease", 77}, {"leader", "member-1"}, {"term", 1}, {"found_ns", ms_to_ns(2690)},
                                 {"renewed_ns", ms_to_ns(2)}, {"renewed_by", "grant"}};
  b.truth("member-1", "lease-expired", ms_to_ns(2700), expiry);
  nlohmann::json cause = expiry;
  cause["kind"] = "lease-expiry";
  b.truth("etcd", "key-delete", ms_to_ns(2710), {{"key", "/lock/0"}, {"revision", 6}, {"lease_expired", true}, {"cause", cause}});
  b.truth("etcd", "key-put", ms_to_ns(2750), {{"key", "/lock/2"}, {"revision", 7}, {"create_revision", 7}, {"lease", 88}, {"value", "client-2"}});
  b.add("client-2", EventKind::ok, "acquire", ms_to_ns(2800), {}, {{"key", "/lock/2"}, {"key_revision", 7}, {"lease", 88}});
  b.add("client-0", EventKind::invoke, "release", ms_to_ns(2900));
  b.add("client-0", EventKind::ok, "release", ms_to_ns(2950));
  b.add("client-2", EventKind::invoke, "release", ms_to_ns(3000));
  b.add("client-2", EventKind::ok, "release", ms_to_ns(3050));
  const CheckResult mutex = check_mutual_exclusion(b.history);
  REQUIRE(mutex.status == CheckStatus::violated);
  const auto explanations = explain_checks(b.history, verdict_of({mutex}, b.history));
  REQUIRE(explanations.size() == 1);
  std::string all;
  for (const auto& s : explanations[0].sentences) all += s + "\n";
  INFO(all);
  CHECK(contains(all, "client-0 was granted the lock at 2.550 s on a lease that had already run out: its lessor had "
                      "last renewed it at 0.002 s, with a TTL of 2 s, so until 2.002 s; its key, created at 0.500 s, "
                      "still stood only because the revoke had not committed yet. The lock was lost before it was taken."));
  CHECK_FALSE(contains(all, "inherent limit"));
  CHECK(explanations[0].cause.value("lease_run_out_before_grant", false));
}

TEST_CASE("a guarded write refused by its guard is said to have failed - not to have vanished") {
  HistoryBuilder b;
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(1100), {}, {{"key", "/lock"}, {"key_revision", 5}});
  b.fault("pause", "start", ms_to_ns(1500), {{"targets", {"client-0"}}, {"duration_ms", 2700}, {"start_ms", 1500}});
  b.add("client-2", EventKind::invoke, "acquire", ms_to_ns(2000), {{"mode", "exclusive"}});
  b.add("client-2", EventKind::ok, "acquire", ms_to_ns(3200), {}, {{"key", "/lock"}, {"key_revision", 7}});
  b.fault("pause", "end", ms_to_ns(4200), {{"targets", {"client-0"}}, {"duration_ms", 2700}, {"start_ms", 1500}});
  b.add("client-0", EventKind::invoke, "write", ms_to_ns(4250), {{"token", 5}, {"base", 0}, {"value", 1}});
  b.add("client-0", EventKind::fail, "write", ms_to_ns(4260), {},
        {{"error", "rejected"}, {"message", "the guard failed: the lock key is gone or changed"}});
  b.add("client-0", EventKind::invoke, "release", ms_to_ns(4300));
  b.add("client-0", EventKind::ok, "release", ms_to_ns(4310));
  const std::string text = mutex_violation_text(b.history);
  INFO(text);
  CHECK(contains(text, "wrote 1 to the resource at 4.250 s (token 5), which failed (the guard failed: "
                       "the lock key is gone or changed)"));
  CHECK_FALSE(contains(text, "never reached"));
}

TEST_CASE("nothing violated: no explanation") {
  HistoryBuilder b;
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1));
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(2), {}, {{"token", 1}});
  b.add("client-0", EventKind::invoke, "release", ms_to_ns(3));
  b.add("client-0", EventKind::ok, "release", ms_to_ns(4));
  const auto verdict = verdict_of({check_mutual_exclusion(b.history)}, b.history);
  CHECK(explain_checks(b.history, verdict).empty());
  CHECK(explain_violation(b.history, verdict).empty());
}

TEST_CASE("a holder whose key another client's put took over: the put is named") {
  // naive-get-put: client-1 overwrote client-0's key with a plain put (same create revision).
  HistoryBuilder b;
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(10));
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(10.2));
  b.add("client-1", EventKind::trace, "kv-send", ms_to_ns(10.3), {{"call", 2}, {"request", "range"}, {"member", "member-0"}});
  b.add("client-1", EventKind::trace, "kv-end", ms_to_ns(10.4), {{"call", 2}, {"outcome", "ok"}});
  b.truth("etcd", "key-put", ms_to_ns(11), {{"key", "k"}, {"revision", 2}, {"create_revision", 2}, {"lease", 0}, {"value", "client-0"}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(12), {}, {{"key", "k"}, {"key_revision", 2}});
  b.truth("etcd", "key-put", ms_to_ns(14), {{"key", "k"}, {"revision", 3}, {"create_revision", 2}, {"lease", 0}, {"value", "client-1"},
                                      {"cause", {{"kind", "request"}, {"request", "put"}, {"client", "client-1"}, {"call", 3},
                                                 {"member", "member-0"}, {"sent_ns", ms_to_ns(13.5)}}}});
  b.add("client-1", EventKind::ok, "acquire", ms_to_ns(15), {}, {{"key", "k"}, {"key_revision", 3}});
  const std::string text = mutex_violation_text(b.history);
  INFO(text);
  CHECK(contains(text, "client-1 acquired the lock at 0.015 s (key revision 3) while client-0 still believed"));
  CHECK(contains(text, "client-0's lock key k was overwritten at 0.014 s by a put that client-1 sent to member-0 at "
                       "0.013 s (call 3): the key stayed, but now named another holder. A plain put does not check "
                       "that the key is absent; client-1 had read the lock at 0.010 s (call 2), before client-0's "
                       "put created the key at 0.011 s: its check and its put were separate requests, and "
                       "client-0's put came between them."));
  const auto explanations = explain_checks(b.history, verdict_of({check_mutual_exclusion(b.history)}, b.history));
  CHECK(explanations[0].cause.value("class", "") == "key-overwritten");
  CHECK(explanations[0].cause["request"].value("client", "") == "client-1");
  CHECK(contains(text, "client-0 still believed it held the lock when the history ended."));
  CHECK(contains(text, "client-1 still believed") == false);
}

// client-1 holds the lock (key k, revision 4) and a duplicate of its first write arrives late,
// rolling the counter back at 0.030 s. With `waiter_key`, client-0's acquire also created a
// key (k0, revision 3) whose answer never came: no acquire returned it.
HistoryBuilder late_duplicate_write(bool waiter_key) {
  HistoryBuilder b;
  if (waiter_key) {
    b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(5));
    b.truth("etcd", "key-put", ms_to_ns(6), {{"key", "k0"}, {"revision", 3}, {"create_revision", 3}, {"lease", 8},
                                        {"cause", {{"kind", "request"}, {"request", "txn"}, {"client", "client-0"}, {"call", 2},
                                                   {"member", "member-0"}, {"sent_ns", ms_to_ns(5)}}}});
  }
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(10));
  b.truth("etcd", "key-put", ms_to_ns(11), {{"key", "k"}, {"revision", 4}, {"create_revision", 4}, {"lease", 9}});
  b.add("client-1", EventKind::ok, "acquire", ms_to_ns(12), {}, {{"token", 4}, {"key", "k"}, {"key_revision", 4}, {"lease", 9}});
  b.fault("duplicate", "start", ms_to_ns(13), {{"from", {"client-1"}}, {"to", {"resource"}}, {"duration_ms", 100}, {"probability", 0.5}});
  b.add("client-1", EventKind::invoke, "write", ms_to_ns(20), {{"token", 4}, {"base", 0}, {"value", 1}});
  b.truth("resource", "resource-write", ms_to_ns(21), {{"client", "client-1"}, {"token", 4}, {"accepted", true}, {"base", 0}, {"value", 1}, {"order", 1}});
  b.add("client-1", EventKind::ok, "write", ms_to_ns(22), {}, {{"order", 1}});
  b.add("client-1", EventKind::invoke, "write", ms_to_ns(23), {{"token", 4}, {"base", 1}, {"value", 2}});
  b.truth("resource", "resource-write", ms_to_ns(24), {{"client", "client-1"}, {"token", 4}, {"accepted", true}, {"base", 1}, {"value", 2}, {"order", 2}});
  b.add("client-1", EventKind::ok, "write", ms_to_ns(25), {}, {{"order", 2}});
  // The first write's duplicate arrives late and rolls the counter back.
  b.truth("resource", "resource-write", ms_to_ns(30), {{"client", "client-1"}, {"token", 4}, {"accepted", true}, {"base", 0}, {"value", 1}, {"order", 3}});
  b.fault("duplicate", "end", ms_to_ns(113), {{"from", {"client-1"}}, {"to", {"resource"}}, {"duration_ms", 100}, {"probability", 0.5}});
  return b;
}

TEST_CASE("a lost update is explained with the duplicated write and who held the lock") {
  const HistoryBuilder b = late_duplicate_write(false);
  const CheckResult resource = check_resource(b.history, {});
  INFO(resource.to_json().dump(2));
  REQUIRE(resource.status == CheckStatus::violated);
  const std::string text = explain_violation(b.history, verdict_of({resource}, b.history));
  INFO(text);
  CHECK(text.rfind("resource: ", 0) == 0);
  CHECK(contains(text, "client-1's write of 2 computed from 1 (token 4) was applied at 0.024 s as update 2 and "
                       "acknowledged to client-1."));
  CHECK(contains(text, "Then the resource applied client-1's write of 1 computed from 0 (token 4) at 0.030 s as update 3"));
  CHECK(contains(text, "At 0.030 s client-1 believed it held the lock; etcd held one lock key, owned by client-1 (k, revision 4)."));
  CHECK(contains(text, "Then messages between client-1 and the resource were duplicated from 0.013 s to 0.113 s."));
}

TEST_CASE("a lock key no acquire returned is said to be its creator's, not nobody's") {
  const HistoryBuilder b = late_duplicate_write(true);
  const CheckResult resource = check_resource(b.history, {});
  REQUIRE(resource.status == CheckStatus::violated);
  const std::string text = explain_violation(b.history, verdict_of({resource}, b.history));
  INFO(text);
  CHECK(contains(text, "etcd held lock keys owned by client-0 (k0, revision 3) and client-1 (k, revision 4)."));
  CHECK_FALSE(contains(text, "nobody known"));
}

TEST_CASE("a lost update names the slow read its write was computed from, not the faults merely active then") {
  // client-0 reads 0 through a delayed link (410 ms each way) while client-1 writes 1; client-0
  // then writes 1 computed from 0, overwriting client-1's update. A cut of member-0's links
  // active at that moment did nothing to either call.
  HistoryBuilder b;
  const nlohmann::json slow = {{"from", {"client-0"}}, {"to", {"resource"}}, {"symmetric", true}, {"amount_ms", 410},
                               {"duration_ms", 2000}};
  const nlohmann::json cut = {{"from", {"member-0"}}, {"to", {"member-1", "member-2", "client-0"}}, {"symmetric", true},
                              {"duration_ms", 5000}};
  b.fault("partition", "start", ms_to_ns(100), cut);
  b.fault("delay", "start", ms_to_ns(500), slow);
  b.add("client-0", EventKind::invoke, "read", ms_to_ns(1000), {{"token", 0}});
  b.truth("resource", "resource-read", ms_to_ns(1410), {{"client", "client-0"}, {"accepted", true}, {"token", 0}, {"value", 0}});
  b.add("client-1", EventKind::invoke, "write", ms_to_ns(1500), {{"token", 0}, {"base", 0}, {"value", 1}});
  b.truth("resource", "resource-write", ms_to_ns(1501), {{"client", "client-1"}, {"token", 0}, {"accepted", true}, {"base", 0},
                                                   {"value", 1}, {"order", 1}});
  b.add("client-1", EventKind::ok, "write", ms_to_ns(1502), {}, {{"order", 1}});
  b.add("client-0", EventKind::ok, "read", ms_to_ns(1820), {}, {{"value", 0}});
  b.add("client-0", EventKind::invoke, "write", ms_to_ns(1820), {{"token", 0}, {"base", 0}, {"value", 1}});
  b.truth("resource", "resource-write", ms_to_ns(2230), {{"client", "client-0"}, {"token", 0}, {"accepted", true}, {"base", 0},
                                                   {"value", 1}, {"order", 2}});
  b.fault("delay", "end", ms_to_ns(2500), slow);
  b.add("client-0", EventKind::ok, "write", ms_to_ns(2640), {}, {{"order", 2}});
  b.fault("partition", "end", ms_to_ns(5100), cut);
  const CheckResult resource = check_resource(b.history, {});
  REQUIRE(resource.status == CheckStatus::violated);
  const std::string text = explain_violation(b.history, verdict_of({resource}, b.history));
  INFO(text);
  CHECK(contains(text, "client-0's read of 0, invoked at 1.000 s, reached the resource at 1.410 s and its answer came at "
                       "1.820 s, 820 ms after it was sent: messages between client-0 and the resource were delayed by "
                       "410 ms from 0.500 s to 2.500 s."));
  CHECK_FALSE(contains(text, "were cut"));
}

TEST_CASE("a lock key is made for the client an acquire returned it to, else for its creating request's client") {
  KeyLifetime k;
  k.key = "/l/a";
  k.created_by.kind = "request";
  k.created_by.client = "client-4";
  CHECK(key_made_for(k) == "client-4");  // its acquire never returned it (timed out, crashed)
  k.owner = "client-1";
  CHECK(key_made_for(k) == "client-1");
  k.owner.clear();
  k.created_by.kind.clear();  // the history does not say who created it
  CHECK(key_made_for(k).empty());
}

TEST_CASE("a check the explainer does not know gets its summary and its witness's instants") {
  HistoryBuilder b;
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1000));
  b.fault("crash", "start", ms_to_ns(1500), {{"targets", {"client-0"}}, {"duration_ms", 1000}});
  b.fault("crash", "end", ms_to_ns(2500), {{"targets", {"client-0"}}, {"duration_ms", 1000}});
  b.add("client-0", EventKind::info, "acquire", ms_to_ns(3000), {}, {{"error", "crashed"}});
  CheckResult odd;
  odd.name = "linearizability";
  odd.status = CheckStatus::violated;
  odd.summary = "not linearizable";
  odd.witness = {{"operation", {{"process", "client-0"}, {"invoke_event", 0}, {"complete_event", 3}}}};
  const std::string text = explain_violation(b.history, verdict_of({odd}, b.history));
  INFO(text);
  CHECK(contains(text, "linearizability: Not linearizable."));
  CHECK(contains(text, "The witness points at the span from 1.000 s to 3.000 s and names client-0."));
  CHECK(contains(text, "In that span client-0 crashed from 1.500 s to 2.500 s."));
}

TEST_CASE("the liveness explanation names the last fault and the key left behind by a crashed client") {
  HistoryBuilder b;
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(100));
  b.truth("etcd", "key-put", ms_to_ns(110), {{"key", "k"}, {"revision", 2}, {"create_revision", 2}, {"lease", 0}, {"value", "client-0"}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(120), {}, {{"key", "k"}, {"key_revision", 2}});
  b.fault("crash", "start", ms_to_ns(200), {{"targets", {"client-0"}}, {"duration_ms", 100}});
  b.fault("crash", "end", ms_to_ns(300), {{"targets", {"client-0"}}, {"duration_ms", 100}});
  b.truth("member-2", "leader-elected", ms_to_ns(310), {{"member", 2}, {"term", 4}});
  for (int i = 0; i < 3; ++i) {
    b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(400 + 10 * i));
    b.add("client-1", i < 2 ? EventKind::fail : EventKind::info, "acquire", ms_to_ns(405 + 10 * i), {},
          {{"error", i < 2 ? "lock-busy" : "timeout"}});
  }
  CheckResult live;
  live.name = "liveness";
  live.status = CheckStatus::violated;
  live.summary = "no client acquired the lock after every fault had healed at 0.30 s";
  live.witness = {{"rule", "never-granted-after-healing"}, {"heal_ns", ms_to_ns(300)}};
  const std::string text = explain_violation(b.history, verdict_of({live}, b.history));
  INFO(text);
  CHECK(contains(text, "liveness: No client acquired the lock after every fault had healed at 0.30 s."));
  CHECK(contains(text, "The last fault to heal: client-0 crashed from 0.200 s to 0.300 s."));
  CHECK(contains(text, "After 0.300 s, 3 acquires were invoked; they ended: 2 lock-busy and 1 timeout."));
  CHECK(contains(text, "When the history ended member-2 led the cluster (term 4)."));
  CHECK(contains(text, "The lock key k (revision 2) created at 0.110 s for client-0 still existed when the history "
                       "ended; client-0 had crashed at 0.200 s; it had no lease, so nothing would ever delete it."));
}

// etcd-mutex's clean-up Delete of a failed acquire, held by a paused member, deletes the key the
// same session re-created later (same name, a new create revision).
History stale_delete_history() {
  HistoryBuilder b;
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.add("client-1", EventKind::trace, "kv-send", ms_to_ns(1500), {{"call", 9}, {"request", "delete_range"}, {"member", "member-2"}, {"key", "/lock/a"}});
  b.fault("pause", "start", ms_to_ns(1501), {{"targets", {"member-2"}}, {"duration_ms", 20000}});
  b.add("client-1", EventKind::trace, "kv-end", ms_to_ns(6500), {{"call", 9}, {"outcome", "deadline"}});
  b.add("client-1", EventKind::fail, "acquire", ms_to_ns(6600), {}, {{"error", "timeout"}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(7000), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(7100), {{"key", "/lock/a"}, {"revision", 12}, {"create_revision", 12}, {"lease", 10}});
  b.add("client-1", EventKind::ok, "acquire", ms_to_ns(7200), {}, {{"key", "/lock/a"}, {"key_revision", 12}, {"lease", 10}});
  b.fault("pause", "end", ms_to_ns(21501), {{"targets", {"member-2"}}, {"duration_ms", 20000}});
  b.truth("etcd", "key-delete", ms_to_ns(21510), {{"key", "/lock/a"}, {"revision", 20},
                                            {"cause", {{"kind", "request"}, {"request", "delete_range"}, {"client", "client-1"},
                                                       {"call", 9}, {"member", "member-2"}, {"sent_ns", ms_to_ns(1500)},
                                                       {"abandoned_ns", ms_to_ns(6500)}}}});
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(21000), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(21520), {{"key", "/lock/b"}, {"revision", 21}, {"create_revision", 21}, {"lease", 11}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(21600), {}, {{"key", "/lock/b"}, {"key_revision", 21}, {"lease", 11}});
  return b.history;
}

TEST_CASE("a delete applied twice names the duplicate fault on its way, not one on a link it never took") {
  // client-2's release (call 9, to member-2) deletes its own key; a duplicate of it, applied
  // 42 ms later, deletes client-4's key. The copy came from the duplicate fault on client-2's
  // links to the members; the one on its link to the resource copied nothing of this request.
  HistoryBuilder b;
  const nlohmann::json to_members = {{"from", {"client-2"}}, {"to", {"member-0", "member-1", "member-2"}},
                                     {"symmetric", true}, {"probability", 0.3}, {"duration_ms", 1000}};
  const nlohmann::json to_resource = {{"from", {"client-2"}}, {"to", {"resource"}}, {"symmetric", true},
                                      {"probability", 0.3}, {"duration_ms", 1000}};
  b.add("client-2", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(1002), {{"key", "/lock"}, {"revision", 3}, {"create_revision", 3}, {"lease", 7},
                                        {"cause", request_cause("client-2", 8, "txn", ms_to_ns(1000))}});
  b.add("client-2", EventKind::ok, "acquire", ms_to_ns(1003), {}, {{"key", "/lock"}, {"key_revision", 3}, {"lease", 7}});
  b.fault("duplicate", "start", ms_to_ns(1100), to_members);
  b.fault("duplicate", "start", ms_to_ns(1150), to_resource);
  b.add("client-2", EventKind::invoke, "release", ms_to_ns(1500));
  b.add("client-2", EventKind::trace, "kv-send", ms_to_ns(1500), {{"call", 9}, {"request", "delete_range"}, {"member", "member-2"}});
  b.truth("etcd", "key-delete", ms_to_ns(1507), {{"key", "/lock"}, {"revision", 4},
                                           {"cause", request_cause("client-2", 9, "delete_range", ms_to_ns(1500))}});
  b.add("client-2", EventKind::trace, "kv-end", ms_to_ns(1508), {{"call", 9}, {"outcome", "ok"}});
  b.add("client-2", EventKind::ok, "release", ms_to_ns(1508));
  b.add("client-4", EventKind::invoke, "acquire", ms_to_ns(1520), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(1537), {{"key", "/lock"}, {"revision", 5}, {"create_revision", 5}, {"lease", 8},
                                        {"cause", request_cause("client-4", 3, "txn", ms_to_ns(1520))}});
  b.add("client-4", EventKind::ok, "acquire", ms_to_ns(1540), {}, {{"key", "/lock"}, {"key_revision", 5}, {"lease", 8}});
  b.truth("etcd", "key-delete", ms_to_ns(1549), {{"key", "/lock"}, {"revision", 6},
                                           {"cause", request_cause("client-2", 9, "delete_range", ms_to_ns(1500))}});
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1600), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(1602), {{"key", "/lock"}, {"revision", 7}, {"create_revision", 7}, {"lease", 9},
                                        {"cause", request_cause("client-0", 1, "txn", ms_to_ns(1600))}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(1603), {}, {{"key", "/lock"}, {"key_revision", 7}, {"lease", 9}});
  b.fault("duplicate", "end", ms_to_ns(2100), to_members);
  b.fault("duplicate", "end", ms_to_ns(2150), to_resource);
  const std::string text = mutex_violation_text(b.history);
  INFO(text);
  CHECK(contains(text, "by a delete_range that client-2 sent to member-2 at 1.500 s (call 9), applied a second time: its "
                       "first copy had been applied at 1.507 s (revision 4), and messages between client-2 and each of "
                       "member-0, member-1 and member-2 were duplicated from 1.100 s to 2.100 s when it was sent."));
  CHECK_FALSE(contains(text, "client-2 and the resource"));
}

TEST_CASE("a key deleted by its owner's own stale request: the request - not a lease - is the cause") {
  const History h = stale_delete_history();
  const CheckResult mutex = check_mutual_exclusion(h);
  REQUIRE(mutex.status == CheckStatus::violated);
  const auto x = explain_checks(h, verdict_of({mutex}, h));
  REQUIRE(x.size() == 1);
  const std::string text = explain_violation(h, verdict_of({mutex}, h));
  INFO(text);
  CHECK(x[0].cause.value("class", "") == "key-deleted-by-request");
  CHECK(x[0].cause["request"].value("call", 0) == 9);
  CHECK(x[0].cause["request"].value("client", "") == "client-1");
  CHECK(x[0].cause["request"].value("abandoned_ns", std::int64_t{0}) == ms_to_ns(6500));
  CHECK(contains(text, "client-1's lock key /lock/a (created at 7.100 s, revision 12) was deleted at 21.510 s "
                       "(revision 20) by a delete_range that client-1 sent to member-2 at 1.500 s (call 9) during its own "
                       "acquire (started at 1.000 s), on "
                       "which client-1 had given up at 6.500 s (no answer by its deadline): a request older than "
                       "the key itself, left over from before client-1 created it, applied late."));
  CHECK(contains(text, "It took 20.010 s from sending to applying: member-2 was paused from 1.501 s to 21.501 s."));
  CHECK_FALSE(contains(text, "inherent limit"));
  CHECK_FALSE(contains(text, "lease"));
}

// Lease 1's revoke commits at `at_ns` (lease-expired, with `expiry` as its cause) and deletes
// its key /l/0 10 ms later, at revision 9.
void lease_expires(HistoryBuilder& b, std::int64_t at_ns, const nlohmann::json& expiry) {
  b.truth("member-0", "lease-expired", at_ns, expiry);
  nlohmann::json cause = expiry;
  cause["kind"] = "lease-expiry";
  b.truth("etcd", "key-delete", at_ns + ms_to_ns(10),
          {{"key", "/l/0"}, {"revision", 9}, {"lease_expired", true}, {"cause", cause}});
}

// client-0 acquires, sends one keep-alive, is paused for 9 s while its lease expires and
// client-1 takes the lock, and is told after the pause that it holds the lock; with
// `keep_alive_after_expiry` it sends one more keep-alive for the lease once it resumes.
HistoryBuilder waiter_granted_after_its_key_expired(bool keep_alive_after_expiry) {
  HistoryBuilder b;
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(1010), {{"key", "/l/0"}, {"revision", 5}, {"create_revision", 5}, {"lease", 1}});
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(1100), {{"call", 3}, {"request", "lease_keep_alive"}, {"member", "member-0"}, {"lease", 1}});
  b.fault("pause", "start", ms_to_ns(1200), {{"targets", {"client-0"}}, {"duration_ms", 9000}});
  lease_expires(b, ms_to_ns(6110), {{"lease", 1}, {"leader", "member-0"}, {"term", 2}, {"found_ns", ms_to_ns(6100)},
                               {"renewed_ns", ms_to_ns(1000)}, {"renewed_by", "grant"}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(7000), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(7010), {{"key", "/l/1"}, {"revision", 10}, {"create_revision", 10}, {"lease", 2}});
  b.add("client-1", EventKind::ok, "acquire", ms_to_ns(7020), {}, {{"key", "/l/1"}, {"key_revision", 10}, {"lease", 2}});
  b.fault("pause", "end", ms_to_ns(10200), {{"targets", {"client-0"}}, {"duration_ms", 9000}});
  if (keep_alive_after_expiry)
    b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(10250), {{"call", 4}, {"request", "lease_keep_alive"}, {"member", "member-0"}, {"lease", 1}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(10300), {}, {{"key", "/l/0"}, {"key_revision", 5}, {"lease", 1}});
  return b;
}

TEST_CASE("a waiter granted after its own key expired: the grantee's lost key and its lease are the cause") {
  const HistoryBuilder b = waiter_granted_after_its_key_expired(false);
  const CheckResult mutex = check_mutual_exclusion(b.history);
  REQUIRE(mutex.status == CheckStatus::violated);
  const auto x = explain_checks(b.history, verdict_of({mutex}, b.history));
  const std::string text = explain_violation(b.history, verdict_of({mutex}, b.history));
  INFO(text);
  CHECK(x[0].cause.value("class", "") == "grantee-key-gone");
  CHECK(x[0].cause.value("process", "") == "client-0");
  CHECK(x[0].cause["lost"].value("class", "") == "lease-expired");
  CHECK(contains(text, "client-0 was told it held the lock at 10.300 s although its own lock key /l/0 was already gone."));
  CHECK(contains(text, "client-0 sent 1 keep-alive for it after 1.000 s; none was answered in time: 1 was still unanswered at 6.100 s."));
  CHECK(contains(text, "In that time client-0 was paused from 1.200 s to 10.200 s."));
  CHECK_FALSE(contains(text, "inherent limit"));
  CHECK_FALSE(contains(text, "No fault hit client-0"));
}

TEST_CASE("keep-alives counted up to the lessor's finding are not said to be all sent after the renewal") {
  // A keep-alive sent once the lease was found expired renews nothing and is not counted: the
  // count is bounded by the finding, or "sent 1 keep-alive after 1.000 s" would be false.
  const HistoryBuilder b = waiter_granted_after_its_key_expired(true);
  const std::string text = mutex_violation_text(b.history);
  INFO(text);
  CHECK(contains(text, "client-0 sent 1 keep-alive for it between 1.000 s and 6.100 s; none was answered in time: "
                       "1 was still unanswered at 6.100 s."));
  CHECK_FALSE(contains(text, "keep-alive for it after"));
}

TEST_CASE("a holder whose own pause held its read's answer: the pause is named, not a clock fault of the resource") {
  // The read reached the resource at once; client-0 was paused before the answer came back (and
  // paused again inside that pause), and the resource's clock ran slow meanwhile: a clock holds
  // no message up, and the inner pause stopped nothing the outer one had not.
  HistoryBuilder b;
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(1010), {{"key", "/l/0"}, {"revision", 5}, {"create_revision", 5}, {"lease", 1}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(1020), {}, {{"key", "/l/0"}, {"key_revision", 5}, {"lease", 1}});
  b.add("client-0", EventKind::invoke, "read", ms_to_ns(1200), {{"token", 5}});
  b.truth("resource", "resource-read", ms_to_ns(1201), {{"client", "client-0"}, {"accepted", true}, {"token", 5}, {"value", 0}});
  b.fault("pause", "start", ms_to_ns(1202), {{"targets", {"client-0"}}, {"duration_ms", 4798}, {"start_ms", 1202}});
  const nlohmann::json clock = {{"targets", {"resource"}}, {"clock", "monotonic"}, {"rate_ppm", 900000}, {"duration_ms", 500}};
  b.fault("clock", "start", ms_to_ns(2000), clock);
  b.fault("pause", "start", ms_to_ns(2100), {{"targets", {"client-0"}}, {"duration_ms", 300}, {"start_ms", 2100}});
  b.fault("pause", "end", ms_to_ns(2400), {{"targets", {"client-0"}}, {"duration_ms", 300}, {"start_ms", 2100}});
  b.fault("clock", "end", ms_to_ns(2500), clock);
  lease_expires(b, ms_to_ns(3100), {{"lease", 1}, {"leader", "member-0"}, {"term", 1}, {"found_ns", ms_to_ns(3090)},
                               {"renewed_ns", ms_to_ns(1000)}, {"renewed_by", "grant"}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(3150), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(3160), {{"key", "/l/1"}, {"revision", 10}, {"create_revision", 10}, {"lease", 2}});
  b.add("client-1", EventKind::ok, "acquire", ms_to_ns(3200), {}, {{"key", "/l/1"}, {"key_revision", 10}, {"lease", 2}});
  b.fault("pause", "end", ms_to_ns(6000), {{"targets", {"client-0"}}, {"duration_ms", 4798}, {"start_ms", 1202}});
  b.add("client-0", EventKind::ok, "read", ms_to_ns(6000), {}, {{"value", 0}});
  const std::string text = mutex_violation_text(b.history);
  INFO(text);
  CHECK(contains(text, "While it held the lock, client-0's calls to the resource were held up (its read at 1.200 s "
                       "took 4.800 s): client-0 was paused from 1.202 s to 6.000 s."));
  CHECK_FALSE(contains(text, "the resource's monotonic clock"));
  CHECK_FALSE(contains(text, "from 2.100 s to 2.400 s"));
}

// client-0's lease (granted at 1.000 s, expired at 6.010 s) loses both its keep-alives (sent to
// `member` at 2 s and 3 s) to a lease-drop fault of client-0 from 1.5 s to 9 s, while `other`
// (a fault on that member or its link) is on from 1.8 s to 3.9 s; client-1 then takes the
// lock. The mutex explanation.
std::string lease_dropped_keep_alives(const std::string& member, const std::string& other_kind,
                                      const nlohmann::json& other) {
  HistoryBuilder b;
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(1010), {{"key", "/l/0"}, {"revision", 5}, {"create_revision", 5}, {"lease", 1}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(1020), {}, {{"key", "/l/0"}, {"key_revision", 5}, {"lease", 1}});
  const nlohmann::json drop = {{"targets", {"client-0"}}, {"duration_ms", 7500}};
  b.fault("lease-drop", "start", ms_to_ns(1500), drop);
  b.fault(other_kind, "start", ms_to_ns(1800), other);
  for (int i = 0; i < 2; ++i)
    b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(2000 + 1000 * i),
          {{"call", 2 + i}, {"request", "lease_keep_alive"}, {"member", member}, {"lease", 1}});
  b.fault(other_kind, "end", ms_to_ns(3900), other);
  lease_expires(b, ms_to_ns(6010), {{"lease", 1}, {"leader", "member-0"}, {"term", 1}, {"found_ns", ms_to_ns(6000)},
                               {"renewed_ns", ms_to_ns(1000)}, {"renewed_by", "grant"}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(6100), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(6110), {{"key", "/l/1"}, {"revision", 10}, {"create_revision", 10}, {"lease", 2}});
  b.add("client-1", EventKind::ok, "acquire", ms_to_ns(6120), {}, {{"key", "/l/1"}, {"key_revision", 10}, {"lease", 2}});
  for (int i = 0; i < 2; ++i)
    b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(7000 + 1000 * i), {{"call", 2 + i}, {"outcome", "deadline"}});
  b.fault("lease-drop", "end", ms_to_ns(9000), drop);
  return mutex_violation_text(b.history);
}

TEST_CASE("keep-alives a lease-drop kept in the client reached no member: that member's crash is not named") {
  const std::string text = lease_dropped_keep_alives("member-1", "crash", {{"targets", {"member-1"}}, {"duration_ms", 2100}});
  INFO(text);
  CHECK(contains(text, "In that time client-0's lease keep-alives were dropped from 1.500 s to 9.000 s."));
  CHECK_FALSE(contains(text, "crashed"));
}

TEST_CASE("keep-alives a lease-drop kept in the client are on no link: a delay of that link is not named") {
  const std::string text = lease_dropped_keep_alives(
      "member-0", "delay", {{"from", {"client-0"}}, {"to", {"member-0"}}, {"symmetric", true}, {"amount_ms", 300}, {"duration_ms", 2100}});
  INFO(text);
  CHECK(contains(text, "In that time client-0's lease keep-alives were dropped from 1.500 s to 9.000 s."));
  CHECK_FALSE(contains(text, "delayed"));
}

TEST_CASE("a holder kept in its critical section by a slow link to the resource: the fault is named") {
  HistoryBuilder b;
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(1010), {{"key", "/l/0"}, {"revision", 5}, {"create_revision", 5}, {"lease", 1}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(1020), {}, {{"key", "/l/0"}, {"key_revision", 5}, {"lease", 1}});
  b.fault("delay", "start", ms_to_ns(1100), {{"from", {"client-0"}}, {"to", {"resource"}}, {"symmetric", false},
                                       {"amount_ms", 2500}, {"duration_ms", 900}});
  const std::int64_t delay_event = b.last_index();
  b.add("client-0", EventKind::invoke, "write", ms_to_ns(1200), {{"base", 0}, {"value", 1}});
  b.fault("delay", "end", ms_to_ns(2000), {{"from", {"client-0"}}, {"to", {"resource"}}, {"symmetric", false},
                                     {"amount_ms", 2500}, {"duration_ms", 900}});
  lease_expires(b, ms_to_ns(3100), {{"lease", 1}, {"leader", "member-0"}, {"term", 1}, {"found_ns", ms_to_ns(3090)},
                               {"renewed_ns", ms_to_ns(1000)}, {"renewed_by", "grant"}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(3150), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(3160), {{"key", "/l/1"}, {"revision", 10}, {"create_revision", 10}, {"lease", 2}});
  b.add("client-1", EventKind::ok, "acquire", ms_to_ns(3200), {}, {{"key", "/l/1"}, {"key_revision", 10}, {"lease", 2}});
  b.truth("resource", "resource-write", ms_to_ns(3700), {{"client", "client-0"}, {"accepted", true}, {"base", 0}, {"value", 1}, {"order", 1}});
  b.add("client-0", EventKind::ok, "write", ms_to_ns(3710), {}, {{"order", 1}});
  const CheckResult mutex = check_mutual_exclusion(b.history);
  REQUIRE(mutex.status == CheckStatus::violated);
  const auto x = explain_checks(b.history, verdict_of({mutex}, b.history));
  const std::string text = explain_violation(b.history, verdict_of({mutex}, b.history));
  INFO(text);
  CHECK(x[0].cause.value("class", "") == "lease-expired");
  CHECK(x[0].cause["slowed_by"] == nlohmann::json::array({delay_event}));
  CHECK(contains(text, "While it held the lock, client-0's calls to the resource were held up (its write at 1.200 s "
                       "took 2.510 s): messages from client-0 to the resource were delayed by 2.500 s from 1.100 s to 2.000 s."));
}

TEST_CASE("a lessor revoke that never committed is not an expiry") {
  // A deposed leader's lessor tried to revoke client-0's lease; nothing committed, the key stood.
  HistoryBuilder b;
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(1010), {{"key", "/l/0"}, {"revision", 5}, {"create_revision", 5}, {"lease", 1}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(1020), {}, {{"key", "/l/0"}, {"key_revision", 5}, {"lease", 1}});
  b.truth("member-0", "lease-revoke-attempt", ms_to_ns(3000), {{"lease", 1}, {"leader", "member-0"}, {"term", 1}, {"found_ns", ms_to_ns(3000)}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(4000), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(4010), {{"key", "/l/1"}, {"revision", 6}, {"create_revision", 6}, {"lease", 2}});
  b.add("client-1", EventKind::ok, "acquire", ms_to_ns(4020), {}, {{"key", "/l/1"}, {"key_revision", 6}, {"lease", 2}});
  const auto truth = extract_lock_truth(b.history);
  REQUIRE(truth.find_lease(1) != nullptr);
  CHECK_FALSE(truth.find_lease(1)->expired_ns.has_value());
  CHECK(truth.find_lease(1)->revoke_attempts.size() == 1);
  const CheckResult mutex = check_mutual_exclusion(b.history);
  const auto x = explain_checks(b.history, verdict_of({mutex}, b.history));
  const std::string text = explain_violation(b.history, verdict_of({mutex}, b.history));
  INFO(text);
  CHECK(x[0].cause.value("class", "") == "granted-while-key-held");
  CHECK_FALSE(contains(text, "'s lease"));
  CHECK(contains(text, "no request had deleted client-0's key and its lease had not expired"));
}

TEST_CASE("a clock fault is worded by its effect: rate_ppm is the absolute rate") {
  HistoryBuilder b;
  b.fault("clock", "start", ms_to_ns(1), {{"targets", {"client-0"}}, {"rate_ppm", 250000}, {"clock", "monotonic"}});
  b.fault("clock", "start", ms_to_ns(2), {{"targets", {"member-1"}}, {"rate_ppm", 4000000}, {"clock", "monotonic"}});
  b.fault("clock", "start", ms_to_ns(3), {{"targets", {"client-2"}}, {"amount_ms", -1500}, {"clock", "wall"}});
  const auto bands = reports::fault_bands(b.history);
  REQUIRE(bands.size() == 3);
  CHECK(reports::describe_fault(bands[0]) == "client-0's monotonic clock ran slow, at 25 % of nominal speed");
  CHECK(reports::describe_fault(bands[1]) == "member-1's monotonic clock ran fast, at 4 times nominal speed");
  CHECK(reports::describe_fault(bands[2]) == "client-2's wall clock jumped back by 1.500 s");
}

TEST_CASE("a lessor's lease deadline follows its member's monotonic clock faults") {
  HistoryBuilder b;
  b.fault("clock", "start", ms_to_ns(2000), {{"targets", {"member-0"}}, {"amount_ms", 1500}, {"clock", "monotonic"}, {"duration_ms", 100}});
  b.fault("clock", "end", ms_to_ns(2100), {{"targets", {"member-0"}}, {"amount_ms", 1500}, {"clock", "monotonic"}, {"duration_ms", 100}});
  b.fault("clock", "start", ms_to_ns(3000), {{"targets", {"member-1"}}, {"rate_ppm", 500000}, {"clock", "both"}, {"duration_ms", 2000}});
  b.fault("clock", "end", ms_to_ns(5000), {{"targets", {"member-1"}}, {"rate_ppm", 500000}, {"clock", "both"}, {"duration_ms", 2000}});
  b.fault("clock", "start", ms_to_ns(1000), {{"targets", {"member-2"}}, {"amount_ms", 4000}, {"clock", "wall"}, {"duration_ms", 100}});
  const auto bands = reports::fault_bands(b.history);
  // A jump forward of 1.5 s at 2 s: a 5 s TTL from 1 s ends at 4.5 s, and stays jumped.
  CHECK(reports::monotonic_deadline_ns(bands, "member-0", ms_to_ns(1000), ms_to_ns(5000)) == ms_to_ns(4500));
  // Half speed from 3 s to 5 s: 2 s pass by then, 1 s more at nominal speed.
  CHECK(reports::monotonic_deadline_ns(bands, "member-1", ms_to_ns(1000), ms_to_ns(5000)) == ms_to_ns(7000));
  // A wall clock's jump moves no lease.
  CHECK(reports::monotonic_deadline_ns(bands, "member-2", ms_to_ns(0), ms_to_ns(5000)) == ms_to_ns(5000));
  // A jump is said at its moment, not as a span.
  CHECK(reports::fault_span(bands[0]) == "at 2.000 s");
}

// The resource check's finding that client-1's write of 1 over 0 (order 1, event `lost_event`)
// was overwritten by client-0's same write (order 2, event `by_event`).
CheckResult lost_update_check(std::int64_t lost_event, std::int64_t by_event) {
  CheckResult resource;
  resource.name = "resource";
  resource.status = CheckStatus::violated;
  resource.summary = "an acknowledged update was lost";
  resource.witness = {
      {"lost", {{"client", "client-1"}, {"value", 1}, {"base", 0}, {"order", 1}, {"event", lost_event}}},
      {"overwritten_by", {{"client", "client-0"}, {"value", 1}, {"base", 0}, {"order", 2}, {"event", by_event}}}};
  return resource;
}

TEST_CASE("a write delayed on its way to the resource is named as the cause of the lost update") {
  HistoryBuilder b;
  b.add("client-0", EventKind::invoke, "write", ms_to_ns(1000), {{"base", 0}, {"value", 1}});
  b.fault("delay", "start", ms_to_ns(1001), {{"from", {"client-0"}}, {"to", {"resource"}}, {"amount_ms", 8000}, {"duration_ms", 500}});
  b.add("client-1", EventKind::invoke, "read", ms_to_ns(2000));
  b.truth("resource", "resource-read", ms_to_ns(2001), {{"client", "client-1"}, {"accepted", true}, {"value", 0}});
  b.add("client-1", EventKind::ok, "read", ms_to_ns(2002), {}, {{"value", 0}});
  b.add("client-1", EventKind::invoke, "write", ms_to_ns(2100), {{"base", 0}, {"value", 1}});
  b.truth("resource", "resource-write", ms_to_ns(2101), {{"client", "client-1"}, {"accepted", true}, {"base", 0}, {"value", 1}, {"order", 1}});
  b.add("client-1", EventKind::ok, "write", ms_to_ns(2102), {}, {{"order", 1}});
  b.fault("delay", "end", ms_to_ns(1501 + 1000), {{"from", {"client-0"}}, {"to", {"resource"}}, {"amount_ms", 8000}, {"duration_ms", 500}});
  b.truth("resource", "resource-write", ms_to_ns(9001), {{"client", "client-0"}, {"accepted", true}, {"base", 0}, {"value", 1}, {"order", 2}});
  b.add("client-0", EventKind::ok, "write", ms_to_ns(9002), {}, {{"order", 2}});
  const CheckResult resource = lost_update_check(6, 9);
  const auto x = explain_checks(b.history, verdict_of({resource}, b.history));
  const std::string text = explain_violation(b.history, verdict_of({resource}, b.history));
  INFO(text);
  CHECK(contains(text, "client-0 sent its write at 1.000 s and it reached the resource at 9.001 s, 8.001 s later: "
                       "messages between client-0 and the resource were delayed by 8.000 s from 1.001 s to 2.501 s."));
  CHECK(x[0].cause["transit"].value("client", "") == "client-0");
  CHECK(x[0].cause["transit"]["faults"] == nlohmann::json::array({1}));
}

TEST_CASE("a key its owner rewrote (a re-entry) is named by the revision it was acquired at") {
  HistoryBuilder b;
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(9), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(10), {{"key", "/l"}, {"revision", 3}, {"create_revision", 3}, {"lease", 0}, {"value", "client-0/a"}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(11), {}, {{"key", "/l"}, {"key_revision", 3}});
  b.truth("etcd", "key-put", ms_to_ns(20), {{"key", "/l"}, {"revision", 4}, {"create_revision", 3}, {"lease", 0}, {"value", "client-0/a"}});
  b.add("client-1", EventKind::invoke, "write", ms_to_ns(100), {{"base", 0}, {"value", 1}});
  b.truth("resource", "resource-write", ms_to_ns(101), {{"client", "client-1"}, {"accepted", true}, {"base", 0}, {"value", 1}, {"order", 1}});
  b.add("client-1", EventKind::ok, "write", ms_to_ns(102), {}, {{"order", 1}});
  b.add("client-0", EventKind::invoke, "write", ms_to_ns(200), {{"base", 0}, {"value", 1}});
  b.truth("resource", "resource-write", ms_to_ns(201), {{"client", "client-0"}, {"accepted", true}, {"base", 0}, {"value", 1}, {"order", 2}});
  b.add("client-0", EventKind::ok, "write", ms_to_ns(202), {}, {{"order", 2}});
  const CheckResult resource = lost_update_check(5, 8);  // the two resource-writes
  const std::string text = explain_violation(b.history, verdict_of({resource}, b.history));
  INFO(text);
  CHECK(contains(text, "etcd held one lock key, owned by client-0 (/l, revision 3)."));
}

// The write went out at 1.000 s into a loss that ended at 2.500 s; its transmissions at 1.0,
// 1.2, 1.6 and 2.4 s were lost, and the one at 4.0 s (after a 1.6 s timeout) got through.
TEST_CASE("a write held by a lossy link names the TCP retransmission that got it through") {
  HistoryBuilder b;
  b.fault("loss", "start", ms_to_ns(900), {{"from", {"client-0"}}, {"to", {"resource"}}, {"probability", 0.5}, {"duration_ms", 1600}});
  b.add("client-0", EventKind::invoke, "write", ms_to_ns(1000), {{"base", 0}, {"value", 1}});
  b.add("client-1", EventKind::invoke, "write", ms_to_ns(2100), {{"base", 0}, {"value", 1}});
  b.truth("resource", "resource-write", ms_to_ns(2101), {{"client", "client-1"}, {"accepted", true}, {"base", 0}, {"value", 1}, {"order", 1}});
  b.add("client-1", EventKind::ok, "write", ms_to_ns(2102), {}, {{"order", 1}});
  b.fault("loss", "end", ms_to_ns(2500), {{"from", {"client-0"}}, {"to", {"resource"}}, {"probability", 0.5}, {"duration_ms", 1600}});
  b.truth("resource", "resource-write", ms_to_ns(4001), {{"client", "client-0"}, {"accepted", true}, {"base", 0}, {"value", 1}, {"order", 2}});
  b.add("client-0", EventKind::ok, "write", ms_to_ns(4002), {}, {{"order", 2}});
  const CheckResult resource = lost_update_check(3, 6);
  const std::string text = explain_violation(b.history, verdict_of({resource}, b.history));
  INFO(text);
  CHECK(contains(text, "from 0.900 s to 2.500 s; it got through at TCP's retransmission at 4.000 s, 1.500 s after the "
                       "loss ended: each lost transmission had doubled the retransmission timeout from 200 ms, to "
                       "1.600 s by then."));
}

TEST_CASE("back-to-back pauses of one process read as one pause") {
  HistoryBuilder b;
  b.fault("pause", "start", ms_to_ns(1000), {{"targets", {"client-2"}}, {"duration_ms", 2000}});
  b.fault("pause", "end", ms_to_ns(3000), {{"targets", {"client-2"}}, {"duration_ms", 2000}});
  b.fault("pause", "start", ms_to_ns(3000), {{"targets", {"client-2"}}, {"duration_ms", 4000}});
  b.fault("pause", "end", ms_to_ns(7000), {{"targets", {"client-2"}}, {"duration_ms", 4000}});
  b.fault("pause", "start", ms_to_ns(7500), {{"targets", {"client-2"}}, {"duration_ms", 500}});
  b.fault("pause", "end", ms_to_ns(8000), {{"targets", {"client-2"}}, {"duration_ms", 500}});
  const auto bands = reports::fault_bands(b.history);
  REQUIRE(bands.size() == 3);
  const std::vector<const reports::FaultBand*> all = {&bands[0], &bands[1], &bands[2]};
  // The third began 500 ms after the second ended: a pause of its own.
  CHECK(reports::fault_clauses(all) ==
        "client-2 was paused from 1.000 s to 7.000 s (2 back-to-back pauses) and client-2 was paused from 7.500 s to 8.000 s");
}

TEST_CASE("fault bands pair starts with ends and name who they hit") {
  HistoryBuilder b;
  b.fault("partition", "start", ms_to_ns(1), {{"from", {"client-0"}}, {"to", {"member-0", "member-1"}}, {"symmetric", false}, {"duration_ms", 5}});
  b.fault("leader-change", "start", ms_to_ns(2), {{"from_member", 0}, {"to_member", 2}, {"duration_ms", 0}});
  b.fault("compaction", "start", ms_to_ns(3), {{"duration_ms", 0}});
  b.fault("pause", "start", ms_to_ns(4), {{"targets", {"client-1"}}, {"duration_ms", 9}});
  b.fault("partition", "end", ms_to_ns(6), {{"from", {"client-0"}}, {"to", {"member-0", "member-1"}}, {"symmetric", false}, {"duration_ms", 5}});
  const auto bands = reports::fault_bands(b.history);
  REQUIRE(bands.size() == 4);
  CHECK(bands[0].kind == "partition");
  CHECK(bands[0].end_ns == ms_to_ns(6));
  CHECK(bands[0].processes == std::vector<std::string>{"client-0", "member-0", "member-1"});
  CHECK(reports::describe_fault(bands[0]) == "the links from client-0 to member-0 and member-1 were cut (their messages held)");
  CHECK(bands[1].processes == std::vector<std::string>{"member-0", "member-2"});
  CHECK(bands[1].instant());
  CHECK(reports::describe_fault(bands[1]) == "the leader was moved from member-0 to member-2");
  CHECK(bands[2].hits_cluster);
  CHECK(bands[3].open_end);  // its end is not in the history
  CHECK(reports::describe_fault(bands[3]) == "client-1 was paused");
}

// A hand-over is said to have moved the leader only when the next election, within two
// election timeouts, made the successor leader; with no election recorded at all (a real
// cluster) the fault is taken at its word.
TEST_CASE("a leader change that moved nobody is said to have been in vain") {
  const auto described = [](std::int64_t elected_ms, int elected_member) {
    HistoryBuilder b;
    b.history.header.meta["election_timeout_ms"] = 1000;
    b.truth("member-1", "leader-elected", ms_to_ns(100), {{"member", 1}, {"term", 1}});
    b.fault("leader-change", "start", ms_to_ns(4000), {{"from_member", 1}, {"to_member", 0}, {"duration_ms", 0}});
    if (elected_ms >= 0)
      b.truth("member-" + std::to_string(elected_member), "leader-elected", ms_to_ns(elected_ms),
              {{"member", elected_member}, {"term", 2}});
    const auto bands = reports::fault_bands(b.history);
    REQUIRE(bands.size() == 1);
    return reports::describe_fault(bands[0]);
  };
  CHECK(described(4003, 0) == "the leader was moved from member-1 to member-0");
  CHECK(described(-1, 0) == "member-1 was told, in vain, to hand the leadership over to member-0");
  CHECK(described(4500, 2) == "member-1 was told, in vain, to hand the leadership over to member-0");
  CHECK(described(9000, 0) == "member-1 was told, in vain, to hand the leadership over to member-0");
  HistoryBuilder real;  // no election recorded
  real.fault("leader-change", "start", ms_to_ns(4000), {{"from_member", 1}, {"to_member", 0}, {"duration_ms", 0}});
  CHECK(reports::describe_fault(reports::fault_bands(real.history)[0]) == "the leader was moved from member-1 to member-0");
}

TEST_CASE("lock truth: keys - owners - leases and leader terms") {
  const History h = reports_test::paused_holder_history();
  const auto truth = extract_lock_truth(h);
  REQUIRE(truth.keys.size() == 2);
  CHECK(truth.keys[0].owner == "client-0");
  CHECK(truth.keys[0].end_ns == ms_to_ns(3110));
  CHECK(truth.keys[0].deleted_by_lease_expiry);
  CHECK(truth.keys[1].owner == "client-2");
  CHECK(truth.keys[1].delete_revision == 8);
  const auto* lease = truth.find_lease(77);
  REQUIRE(lease != nullptr);
  CHECK(lease->owner == "client-0");
  CHECK(lease->first_seen_ns == ms_to_ns(1050));
  REQUIRE(lease->expired_ns.has_value());
  CHECK(*lease->expired_ns == ms_to_ns(3100));
  CHECK(lease->expired_by == "member-1");
  REQUIRE(truth.leaders.size() == 1);
  CHECK(truth.leaders[0].member == "member-1");
  CHECK(truth.leaders[0].end_ns == kStillOpen);
}

}  // namespace
}  // namespace lockstep::reports
