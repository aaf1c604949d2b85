// What follows from a first cause, on hand-built histories whose story is known: a release that
// failed and left its key, an acquire that re-entered on that key without writing, releases
// that deleted other clients' keys after the first overlap, and the updates a late write
// wiped out. Each sentence must say what the history shows, and be absent when it does not.
#include <algorithm>

#include <catch2/catch.hpp>

#include "lockstep/checker/mutex_checker.h"
#include "lockstep/checker/resource_checker.h"
#include "lockstep/reports/explain.h"
#include "lockstep/reports/report_test_support.h"

namespace lockstep::reports {
namespace {

using reports_test::HistoryBuilder;
using reports_test::ms_to_ns;

using reports_test::contains;
using reports_test::request_cause;


void send(HistoryBuilder& b, const std::string& client, std::int64_t call, const std::string& request,
          const std::string& member, std::int64_t at_ns, std::int64_t lease = 0) {
  nlohmann::json args = {{"call", call}, {"request", request}, {"member", member}};
  if (lease != 0) args["lease"] = lease;
  b.add(client, EventKind::trace, "kv-send", at_ns, args);
}

void end(HistoryBuilder& b, const std::string& client, std::int64_t call, const std::string& outcome,
         std::int64_t at_ns) {
  b.add(client, EventKind::trace, "kv-end", at_ns, {{"call", call}, {"outcome", outcome}});
}

std::string explanation_text(const History& history, const CheckResult& check) {
  const auto explanations = explain_checks(history, reports_test::verdict_of({check}, history));
  REQUIRE(explanations.size() == 1);
  std::string text;
  for (const auto& s : explanations[0].sentences) text += s + "\n";
  return text;
}

// client-1 takes the lock; its release's delete and revoke both time out while member-1 is
// paused, so its key and lease stay. Later it "acquires" again with a single read (a
// re-entrant lock finding its owner record) and believes it holds the lock until its lease,
// renewed last when member-0 took over, expires and client-2 gets in.
History reentry_on_a_key_a_failed_release_left() {
  HistoryBuilder b;
  b.truth("member-1", "leader-elected", ms_to_ns(100), {{"member", 1}, {"term", 1}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  send(b, "client-1", 1, "txn", "member-1", ms_to_ns(1000));
  b.truth("etcd", "key-put", ms_to_ns(1050), {{"key", "/lock"}, {"revision", 2}, {"create_revision", 2}, {"lease", 77},
                                        {"value", "client-1"}, {"cause", request_cause("client-1", 1, "txn", ms_to_ns(1000), "member-1")}});
  end(b, "client-1", 1, "ok", ms_to_ns(1060));
  b.add("client-1", EventKind::ok, "acquire", ms_to_ns(1060), {}, {{"key", "/lock"}, {"key_revision", 2}, {"lease", 77}});
  b.fault("pause", "start", ms_to_ns(1100), {{"targets", {"member-1"}}, {"duration_ms", 5200}, {"start_ms", 1100}});
  b.add("client-1", EventKind::invoke, "release", ms_to_ns(1200));
  send(b, "client-1", 6, "delete_range", "member-1", ms_to_ns(1200));
  end(b, "client-1", 6, "deadline", ms_to_ns(6200));
  send(b, "client-1", 7, "lease_revoke", "member-1", ms_to_ns(6200), 77);
  b.fault("pause", "end", ms_to_ns(6300), {{"targets", {"member-1"}}, {"duration_ms", 5200}, {"start_ms", 1100}});
  b.truth("member-1", "leader-stepped-down", ms_to_ns(6300), {{"member", 1}, {"term", 1}});
  b.truth("member-0", "leader-elected", ms_to_ns(6301), {{"member", 0}, {"term", 2}});
  end(b, "client-1", 7, "deadline", ms_to_ns(11200));
  b.add("client-1", EventKind::info, "release", ms_to_ns(11200), {}, {{"error", "timeout"}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(12000), {{"mode", "exclusive"}});
  send(b, "client-1", 8, "range", "member-0", ms_to_ns(12000));
  end(b, "client-1", 8, "ok", ms_to_ns(12003));
  b.add("client-1", EventKind::ok, "acquire", ms_to_ns(12003), {}, {{"key", "/lock"}, {"key_revision", 2}, {"lease", 77}});
  b.add("client-2", EventKind::invoke, "acquire", ms_to_ns(16000), {{"mode", "exclusive"}});
  const nlohmann::json expiry = {{"lease", 77}, {"leader", "member-0"}, {"term", 2}, {"found_ns", ms_to_ns(16300)},
                                 {"renewed_ns", ms_to_ns(6301)}, {"renewed_by", "leader-election"}};
  b.truth("member-0", "lease-expired", ms_to_ns(16302), expiry);
  nlohmann::json cause = expiry;
  cause["kind"] = "lease-expiry";
  b.truth("etcd", "key-delete", ms_to_ns(16303), {{"key", "/lock"}, {"revision", 3}, {"lease_expired", true}, {"cause", cause}});
  send(b, "client-2", 1, "txn", "member-0", ms_to_ns(16305));
  b.truth("etcd", "key-put", ms_to_ns(16310), {{"key", "/lock"}, {"revision", 4}, {"create_revision", 4}, {"lease", 88},
                                         {"value", "client-2"}, {"cause", request_cause("client-2", 1, "txn", ms_to_ns(16305), "member-0")}});
  end(b, "client-2", 1, "ok", ms_to_ns(16320));
  b.add("client-2", EventKind::ok, "acquire", ms_to_ns(16320), {}, {{"key", "/lock"}, {"key_revision", 4}, {"lease", 88}});
  b.add("client-1", EventKind::invoke, "release", ms_to_ns(16500));
  b.add("client-1", EventKind::ok, "release", ms_to_ns(16500));
  return b.history;
}

TEST_CASE("a holder that revoked its own lease: why its release failed, and its re-entry on the key left behind") {
  const History history = reentry_on_a_key_a_failed_release_left();
  const CheckResult mutex = check_mutual_exclusion(history);
  REQUIRE(mutex.status == CheckStatus::violated);
  const std::string text = explanation_text(history, mutex);
  INFO(text);
  CHECK(contains(text, "client-1 had itself sent a revoke of this lease at 6.200 s (call 7, deadline, in its release "
                       "started at 1.200 s): it held the lock on a lease it had given up. That release had ended indeterminate: its "
                       "delete_range (call 6, to member-1) reached the client's deadline at 6.200 s and its "
                       "lease_revoke (call 7, to member-1) reached the client's deadline at 11.200 s; meanwhile "
                       "member-1 was paused from 1.100 s to 6.300 s."));
  CHECK(contains(text, "client-1's acquire at 12.000 s took the lock without writing (it sent only a range (call 8)): "
                       "it counted on its lock key from 1.050 s (revision 2), which its release at 1.200 s had failed "
                       "to remove (indeterminate: timeout); it sent nothing that would renew or re-create that key."));
  // client-2's acquire wrote its own key: it is not said to have re-entered.
  CHECK_FALSE(contains(text, "client-2's acquire"));
}

TEST_CASE("an acquire that wrote its key is not said to have re-entered, and one overlap names no chain") {
  // The same story, but the second acquire takes the lock with a txn of its own.
  History history = reentry_on_a_key_a_failed_release_left();
  for (auto& e : history.events)
    if (e.process == "client-1" && e.op == "kv-send" && e.args.value("call", 0) == 8) e.args["request"] = "txn";
  const CheckResult mutex = check_mutual_exclusion(history);
  REQUIRE(mutex.status == CheckStatus::violated);
  const std::string text = explanation_text(history, mutex);
  INFO(text);
  CHECK_FALSE(contains(text, "without writing"));
  CHECK_FALSE(contains(text, "releases deleted lock keys of other clients"));
}

TEST_CASE("a release refused while leadership moved names the leader change behind it, and no leaderless span it ended outside") {
  // The release's delete is refused ("raft proposal dropped") 100 ms after a leader change
  // fault; its revoke times out later, while member-0 leads.
  History history = reentry_on_a_key_a_failed_release_left();
  HistoryBuilder b;
  b.history = history;
  for (auto& e : b.history.events) {
    if (e.op == "kv-end" && e.process == "client-1" && e.args.value("call", 0) == 6) {
      e.args["outcome"] = "error";
      e.args["error"] = "raft proposal dropped";
    }
    if (e.kind == EventKind::fault && e.op == "pause") e.args["targets"] = {"member-2"};
  }
  b.fault("leader-change", "start", ms_to_ns(1100), {{"from_member", 1}, {"to_member", 0}, {"duration_ms", 0}, {"start_ms", 1100}});
  b.truth("member-0", "leader-elected", ms_to_ns(1101), {{"member", 0}, {"term", 2}});  // the hand-over took
  // Keep events in time order: move the fault to where it happened.
  auto& events = b.history.events;
  std::stable_sort(events.begin(), events.end(),
                   [](const HistoryEvent& x, const HistoryEvent& y) { return x.true_ns < y.true_ns; });
  for (std::size_t i = 0; i < events.size(); ++i) events[i].index = static_cast<std::int64_t>(i);
  const CheckResult mutex = check_mutual_exclusion(b.history);
  REQUIRE(mutex.status == CheckStatus::violated);
  const std::string text = explanation_text(b.history, mutex);
  INFO(text);
  CHECK(contains(text, "its delete_range (call 6, to member-1) failed at 6.200 s (raft proposal dropped)"));
  CHECK(contains(text, "meanwhile the leader was moved from member-1 to member-0 at 1.100 s"));
  CHECK_FALSE(contains(text, "member-2 was paused"));  // on no member the release called
}

TEST_CASE("releases that delete other clients' keys after the first overlap are counted and the first is named") {
  // client-0's lease expires while it holds the lock; client-4 takes it; client-0's release
  // deletes client-4's key unconditionally, letting client-1 in; client-4's release deletes
  // client-1's key in turn.
  HistoryBuilder b;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  auto take = [&b](const std::string& client, std::int64_t call, std::int64_t rev, std::int64_t lease, std::int64_t at) {
    b.add(client, EventKind::invoke, "acquire", ms_to_ns(at), {{"mode", "exclusive"}});
    send(b, client, call, "txn", "member-0", ms_to_ns(at));
    b.truth("etcd", "key-put", ms_to_ns(at + 1), {{"key", "/lock"}, {"revision", rev}, {"create_revision", rev}, {"lease", lease},
                                            {"value", client}, {"cause", request_cause(client, call, "txn", ms_to_ns(at), "member-0")}});
    end(b, client, call, "ok", ms_to_ns(at + 2));
    b.add(client, EventKind::ok, "acquire", ms_to_ns(at + 2), {}, {{"key", "/lock"}, {"key_revision", rev}, {"lease", lease}});
  };
  auto release = [&b](const std::string& client, std::int64_t call, std::int64_t rev, std::int64_t at) {
    b.add(client, EventKind::invoke, "release", ms_to_ns(at));
    send(b, client, call, "delete_range", "member-0", ms_to_ns(at));
    b.truth("etcd", "key-delete", ms_to_ns(at + 1), {{"key", "/lock"}, {"revision", rev},
                                               {"cause", request_cause(client, call, "delete_range", ms_to_ns(at), "member-0")}});
    end(b, client, call, "ok", ms_to_ns(at + 2));
    b.add(client, EventKind::ok, "release", ms_to_ns(at + 2));
  };
  take("client-0", 1, 2, 70, 1000);
  b.fault("pause", "start", ms_to_ns(1500), {{"targets", {"client-0"}}, {"duration_ms", 7000}, {"start_ms", 1500}});
  const nlohmann::json expiry = {{"lease", 70}, {"leader", "member-0"}, {"term", 1}, {"found_ns", ms_to_ns(6000)},
                                 {"renewed_ns", ms_to_ns(1000)}, {"renewed_by", "grant"}};
  b.truth("member-0", "lease-expired", ms_to_ns(6001), expiry);
  nlohmann::json cause = expiry;
  cause["kind"] = "lease-expiry";
  b.truth("etcd", "key-delete", ms_to_ns(6002), {{"key", "/lock"}, {"revision", 3}, {"lease_expired", true}, {"cause", cause}});
  take("client-4", 1, 4, 74, 6100);
  b.fault("pause", "end", ms_to_ns(8500), {{"targets", {"client-0"}}, {"duration_ms", 7000}, {"start_ms", 1500}});
  release("client-0", 9, 5, 8500);
  take("client-1", 1, 6, 71, 8600);
  // An owner record client-1 created and client-0 then wrote over: client-0's deleting it is
  // not a deletion of another client's key.
  b.truth("etcd", "key-put", ms_to_ns(8603), {{"key", "/lock/owner"}, {"revision", 60}, {"create_revision", 60}, {"lease", 71},
                                        {"value", "client-1"}, {"cause", request_cause("client-1", 5, "put", ms_to_ns(8603), "member-0")}});
  b.truth("etcd", "key-put", ms_to_ns(8650), {{"key", "/lock/owner"}, {"revision", 61}, {"create_revision", 60}, {"lease", 70},
                                        {"value", "client-0"}, {"cause", request_cause("client-0", 10, "put", ms_to_ns(8650), "member-0")}});
  b.add("client-0", EventKind::invoke, "release", ms_to_ns(8655));
  send(b, "client-0", 11, "delete_range", "member-0", ms_to_ns(8655));
  b.truth("etcd", "key-delete", ms_to_ns(8656), {{"key", "/lock/owner"}, {"revision", 62},
                                           {"cause", request_cause("client-0", 11, "delete_range", ms_to_ns(8655), "member-0")}});
  end(b, "client-0", 11, "ok", ms_to_ns(8657));
  b.add("client-0", EventKind::ok, "release", ms_to_ns(8657));
  release("client-4", 2, 7, 8700);
  take("client-2", 1, 8, 72, 8800);
  release("client-1", 2, 9, 8900);
  release("client-2", 2, 10, 9000);

  const CheckResult mutex = check_mutual_exclusion(b.history);
  REQUIRE(mutex.status == CheckStatus::violated);
  const std::string text = explanation_text(b.history, mutex);
  INFO(text);
  // client-2's own release deleted its own key: three foreign deletions, not four.
  CHECK(contains(text, "From then on, releases deleted lock keys of other clients 3 times: first client-0's release "
                       "at 8.500 s deleted client-4's key /lock (revision 4) at 8.501 s, by a delete_range that "
                       "client-0 sent to member-0 at 8.500 s (call 9)."));
}

TEST_CASE("a release that deletes a key another client's put took over deleted that client's key") {
  // client-0 creates /lock; client-1's plain put writes over it (the key stays, now naming
  // client-1); client-0's release then deletes client-1's key, not its own.
  HistoryBuilder b;
  b.truth("member-0", "leader-elected", ms_to_ns(100), {{"member", 0}, {"term", 1}});
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  send(b, "client-0", 1, "put", "member-0", ms_to_ns(1000));
  b.truth("etcd", "key-put", ms_to_ns(1001), {{"key", "/lock"}, {"revision", 2}, {"create_revision", 2}, {"lease", 0},
                                         {"value", "client-0"}, {"cause", request_cause("client-0", 1, "put", ms_to_ns(1000), "member-0")}});
  end(b, "client-0", 1, "ok", ms_to_ns(1002));
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(1002), {}, {{"key", "/lock"}, {"key_revision", 2}});
  b.add("client-1", EventKind::invoke, "acquire", ms_to_ns(1100), {{"mode", "exclusive"}});
  send(b, "client-1", 1, "put", "member-0", ms_to_ns(1100));
  b.truth("etcd", "key-put", ms_to_ns(1101), {{"key", "/lock"}, {"revision", 3}, {"create_revision", 2}, {"lease", 0},
                                         {"value", "client-1"}, {"cause", request_cause("client-1", 1, "put", ms_to_ns(1100), "member-0")}});
  end(b, "client-1", 1, "ok", ms_to_ns(1102));
  b.add("client-1", EventKind::ok, "acquire", ms_to_ns(1102), {}, {{"key", "/lock"}, {"key_revision", 3}});
  b.add("client-0", EventKind::invoke, "release", ms_to_ns(1200));
  send(b, "client-0", 2, "delete_range", "member-0", ms_to_ns(1200));
  b.truth("etcd", "key-delete", ms_to_ns(1201), {{"key", "/lock"}, {"revision", 4},
                                            {"cause", request_cause("client-0", 2, "delete_range", ms_to_ns(1200), "member-0")}});
  end(b, "client-0", 2, "ok", ms_to_ns(1202));
  b.add("client-0", EventKind::ok, "release", ms_to_ns(1202));
  // With client-1's key gone, client-2 gets in beside client-1: a second overlap.
  b.add("client-2", EventKind::invoke, "acquire", ms_to_ns(1250), {{"mode", "exclusive"}});
  send(b, "client-2", 1, "put", "member-0", ms_to_ns(1250));
  b.truth("etcd", "key-put", ms_to_ns(1251), {{"key", "/lock"}, {"revision", 5}, {"create_revision", 5}, {"lease", 0},
                                         {"value", "client-2"}, {"cause", request_cause("client-2", 1, "put", ms_to_ns(1250), "member-0")}});
  end(b, "client-2", 1, "ok", ms_to_ns(1252));
  b.add("client-2", EventKind::ok, "acquire", ms_to_ns(1252), {}, {{"key", "/lock"}, {"key_revision", 5}});
  b.add("client-1", EventKind::invoke, "release", ms_to_ns(1300));
  b.add("client-1", EventKind::ok, "release", ms_to_ns(1302));
  b.add("client-2", EventKind::invoke, "release", ms_to_ns(1400));
  send(b, "client-2", 2, "delete_range", "member-0", ms_to_ns(1400));
  b.truth("etcd", "key-delete", ms_to_ns(1401), {{"key", "/lock"}, {"revision", 6},
                                            {"cause", request_cause("client-2", 2, "delete_range", ms_to_ns(1400), "member-0")}});
  end(b, "client-2", 2, "ok", ms_to_ns(1402));
  b.add("client-2", EventKind::ok, "release", ms_to_ns(1402));
  const CheckResult mutex = check_mutual_exclusion(b.history);
  REQUIRE(mutex.status == CheckStatus::violated);
  const std::string text = explanation_text(b.history, mutex);
  INFO(text);
  CHECK(contains(text, "From then on, releases deleted lock keys of other clients once: first client-0's release at "
                       "1.200 s deleted client-1's key /lock (revision 3) at 1.201 s"));
}

TEST_CASE("a late write that overwrote several updates says how many it never read") {
  HistoryBuilder b;
  auto write = [&b](const std::string& client, std::int64_t base, std::int64_t value, std::int64_t order, std::int64_t at) {
    b.add(client, EventKind::invoke, "write", ms_to_ns(at), {{"token", 0}, {"base", base}, {"value", value}});
    b.truth("resource", "resource-write", ms_to_ns(at + 1), {{"client", client}, {"token", 0}, {"accepted", true}, {"base", base},
                                                       {"value", value}, {"order", order}});
    b.add(client, EventKind::ok, "write", ms_to_ns(at + 2), {}, {{"order", order}});
  };
  write("client-1", 0, 1, 1, 10);
  // client-0 read 1 and sends 2; its write is held on the way while three others land.
  b.add("client-0", EventKind::invoke, "write", ms_to_ns(20), {{"token", 0}, {"base", 1}, {"value", 2}});
  write("client-2", 1, 2, 2, 30);
  write("client-3", 2, 3, 3, 40);
  write("client-1", 3, 4, 4, 50);
  b.truth("resource", "resource-write", ms_to_ns(61), {{"client", "client-0"}, {"token", 0}, {"accepted", true}, {"base", 1},
                                                 {"value", 2}, {"order", 5}});
  b.add("client-0", EventKind::ok, "write", ms_to_ns(62), {}, {{"order", 5}});
  const CheckResult resource = check_resource(b.history, {});
  REQUIRE(resource.status == CheckStatus::violated);
  const std::string text = explanation_text(b.history, resource);
  INFO(text);
  CHECK(contains(text, "overwriting it: its writer had read 1, the value of update 1, so it overwrote 3 updates it "
                       "never read (2 to 4)."));
}

}  // namespace
}  // namespace lockstep::reports
