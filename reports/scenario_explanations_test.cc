// Every violated scenario of the catalogue is explained by its real cause: the test replays
// each file of scenarios/ and asserts the explanation's cause class and what it holds
// responsible (the lease and the fault, the request, or the client), as read from the history.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "lockstep/harness/replay.h"
#include "lockstep/harness/run_files.h"
#include "lockstep/harness/scenario.h"
#include "lockstep/reports/explain.h"

namespace lockstep::reports {
namespace {

struct ExpectedCause {
  std::string check;        // the violated check explained
  std::string cause_class;  // cause["class"]
  std::string process;      // cause["process"]: who lost its protection (or holds the key)
  std::string fault;        // "kind target": a fault named as a cause ("" when none must be)
  std::string request;      // cause["request"]["request"] ("" when no request is responsible)
  bool deposed_leader = false;  // the lease's revoke came from a deposed leader (etcd 15247)
  // The holder renewed no lease though no fault stopped it (a fixed TTL): not the limit of
  // leases under a fault.
  bool never_renewed = false;
};

// What each violated scenario really shows, checked by hand against its history.
const std::map<std::string, ExpectedCause>& expected_causes() {
  static const std::map<std::string, ExpectedCause> causes = {
      // client-2 waited while its keep-alives were dropped; its key went with its lease, and
      // etcd-mutex-3.4 granted it without looking at its key again (etcd issue 11456).
      {"etcd-mutex-3.4-waiter-lease-expired-while-waiting",
       {"mutex", "grantee-key-gone", "client-2", "lease-drop client-2", ""}},
      // The same with both waiters paused (a fault an external client can get): client-2's
      // lease expired while it was paused, and the 3.4 Mutex granted it without its key.
      {"etcd-mutex-3.4-waiters-paused-past-their-lease",
       {"mutex", "grantee-key-gone", "client-2", "pause client-2", ""}},
      // No client fault: member-2, the leader, was paused and deposed; on resume its lessor
      // revoked client-1's lease, which the new leader had kept alive (etcd issue 15247).
      {"etcd-mutex-deposed-leader-revokes-held-lease",
       {"mutex", "lease-expired", "client-1", "pause member-2", "", true}},
      {"etcd-mutex-holder-paused-between-read-and-write",
       {"mutex", "lease-expired", "client-1", "pause client-1", ""}},
      {"etcd-mutex-holder-paused-past-ttl", {"mutex", "lease-expired", "client-1", "pause client-1", ""}},
      // No fault: client-1's 5 s of work outlasted the 3 s lease nothing renews.
      // No fault: client-0 gave its lock call 4 up at its 5 s deadline and called Lock again;
      // member-0's lock service, the old call's context ended, deleted the key the new call
      // had found, and the new call was granted without it (etcd 3.4.23's server Mutex).
      {"etcd-lock-rpc-retried-lock-loses-key-no-faults", {"mutex", "grantee-key-gone", "client-0", "", ""}},
      {"fixed-ttl-no-renewal-work-outlasts-ttl-no-faults",
       {"mutex", "lease-expired", "client-1", "", "", false, true}},
      // No fault: client-0's plain put replaced client-1's key.
      {"naive-get-put-check-then-act-race-no-faults", {"mutex", "key-overwritten", "client-1", "", "put"}},
      // Both keys stood: the algorithm woke client-0 on a waiter's departure.
      // client-0 (revision 20) rightly follows the crashed holder; client-2 (revision 23),
      // woken by the expiry of a waiter's key (22), jumps the queue.
      {"prefix-watch-lock-predecessor-waiter-leaves",
       {"mutex", "granted-while-key-held", "client-2", "", ""}},
      {"reentrant-holder-paused-past-ttl", {"mutex", "lease-expired", "client-1", "pause client-1", ""}},
      {"rw-lock-reader-and-writer-inside-no-faults", {"mutex", "granted-while-key-held", "client-0", "", ""}},
      {"setnx-no-ttl-crashed-holder-blocks-forever", {"liveness", "key-without-lease", "client-1", "", ""}},
      // client-0's SETNX created the key; its EXPIRE went to member-0 as it crashed, and its
      // release was lost while no member led: the key kept no lease.
      {"setnx-then-expire-crash-between-setnx-and-expire",
       {"liveness", "release-lost", "client-0", "crash member-0", ""}},
      {"txn-retry-lock-holder-paused-past-ttl", {"mutex", "lease-expired", "client-1", "pause client-1", ""}},
      {"txn-retry-lock-release-deletes-next-holders-key",
       {"mutex", "lease-expired", "client-1", "pause client-1", ""}},
      {"txn-try-lock-holder-paused-past-ttl", {"mutex", "lease-expired", "client-1", "pause client-1", ""}},
      // The acquire's txn committed but its reply was cut: client-0 holds a key it never knew of.
      {"txn-try-lock-lost-acquire-reply-blocks-forever",
       {"liveness", "unknown-holder-key", "client-0", "", "txn"}},
      {"zk-recipe-holder-paused-past-ttl", {"mutex", "lease-expired", "client-1", "pause client-1", ""}},
  };
  return causes;
}

// "kind target" of each fault the cause names (by its start event).
std::set<std::string> named_faults(const History& history, const nlohmann::json& cause) {
  std::set<std::string> out;
  const nlohmann::json* faults = cause.contains("faults") ? &cause["faults"] : nullptr;
  if (faults == nullptr && cause.contains("lost")) faults = &cause["lost"]["faults"];
  if (faults == nullptr || !faults->is_array()) return out;
  for (const auto& i : *faults) {
    const HistoryEvent& e = history.events.at(i.get<std::size_t>());
    REQUIRE(e.kind == EventKind::fault);
    for (const auto& t : e.args.value("targets", nlohmann::json::array())) out.insert(e.op + " " + t.get<std::string>());
    for (const auto& t : e.args.value("from", nlohmann::json::array())) out.insert(e.op + " " + t.get<std::string>());
  }
  return out;
}

TEST_CASE("every violated scenario's explanation names its real cause") {
  std::set<std::string> seen;
  for (const auto& entry : std::filesystem::directory_iterator(LOCKSTEP_SOURCE_DIR "/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    const std::string name = entry.path().stem().string();
    Scenario scenario;
    REQUIRE(load_scenario_file(entry.path(), scenario) == "");
    const ReplayOutcome outcome = replay_scenario(scenario);
    if (outcome.verdict != "violated") continue;
    seen.insert(name);
    INFO(name);
    const auto expected = expected_causes().find(name);
    REQUIRE(expected != expected_causes().end());  // a new violated scenario needs its cause here
    const ExpectedCause& want = expected->second;
    const nlohmann::json verdict = verdict_to_json(scenario, outcome.result, "lockstep replay scenarios/" + name + ".json");
    const auto explanations = explain_checks(outcome.result.history, verdict);
    const CheckExplanation* x = nullptr;
    for (const auto& e : explanations)
      if (e.check == want.check) x = &e;
    REQUIRE(x != nullptr);
    INFO(x->cause.dump());
    CHECK(x->cause.value("class", "") == want.cause_class);
    CHECK(x->cause.value("process", "") == want.process);
    const auto faults = named_faults(outcome.result.history, x->cause);
    if (want.fault.empty()) {
      CHECK(faults.empty());
    } else {
      CHECK(faults.count(want.fault) == 1);
    }
    if (!want.request.empty()) {
      REQUIRE(x->cause.contains("request"));
      CHECK(x->cause["request"].value("request", "") == want.request);
    }
    // A lease named as the cause is the one the history shows expiring, by a revoke that
    // committed.
    const nlohmann::json& lease_cause = x->cause.contains("lost") ? x->cause["lost"] : x->cause;
    CHECK(lease_cause.value("deposed_leader", false) == want.deposed_leader);
    // etcd's bug is not the limit of leases: a deposed lessor's revoke is never called that.
    if (want.deposed_leader) CHECK_FALSE(x->cause.value("inherent_lease_limit", false));
    // And what kept the deposed leader out of the election is named (here, its pause).
    if (want.deposed_leader) {
      REQUIRE(lease_cause.contains("deposed_while"));
      const auto deposing = named_faults(outcome.result.history, {{"faults", lease_cause["deposed_while"]}});
      CHECK(deposing.count("pause " + lease_cause.value("leader", std::string())) == 1);
    }
    CHECK(x->cause.value("never_renewed", false) == want.never_renewed);
    if (want.never_renewed) CHECK_FALSE(x->cause.value("inherent_lease_limit", false));
    if (lease_cause.value("class", "") == "lease-expired") {
      bool committed = false;
      for (const auto& e : outcome.result.history.events)
        if (e.kind == EventKind::truth && e.op == "lease-expired" &&
            e.args.value("lease", std::int64_t{0}) == lease_cause.value("lease", std::int64_t{-1}))
          committed = true;
      CHECK(committed);
    }
    REQUIRE(x->spans.size() == x->sentences.size());
  }
  CHECK(seen.size() == expected_causes().size());  // no stale entry in the table
}

// The explanations of a violated history kept in reports/testdata/ (a failure from a review,
// shrunk), replayed.
std::vector<CheckExplanation> testdata_explanations(const std::string& file) {
  Scenario scenario;
  REQUIRE(load_scenario_file(LOCKSTEP_SOURCE_DIR "/reports/testdata/" + file, scenario) == "");
  const ReplayOutcome outcome = replay_scenario(scenario);
  REQUIRE(outcome.verdict == "violated");
  const nlohmann::json verdict = verdict_to_json(scenario, outcome.result, "lockstep replay x.json");
  return explain_checks(outcome.result.history, verdict);
}

// Every sentence of every explanation, one per line.
std::string all_sentences(const std::vector<CheckExplanation>& explanations) {
  std::string all;
  for (const auto& x : explanations)
    for (const auto& s : x.sentences) all += s + "\n";
  return all;
}

// A release lost across a leader change (checked by hand against the history): client-0's
// compare-and-delete went to member-0 at 3.518 s while member-0 was cut off from the leader
// member-2 (3.450 s to 4.150 s), and member-0 forwarded it to member-2. The held messages came
// through at TCP's retransmission after the heal, about 4.9 s; member-0, which had campaigned
// at 4.797 s meanwhile, answered member-2's heartbeats with its newer term, member-2 stepped
// down at 4.920 s, and the forwarded release, stepped after that news, found no leader and was
// dropped. member-2 was elected again at 5.935 s (term 3); the release reached its deadline at
// 8.518 s and the key, with no lease, stayed.
TEST_CASE("a release lost across a leader change names the election it was pending through") {
  const auto explanations = testdata_explanations("setnx-no-ttl-release-lost-across-leader-change.json");
  REQUIRE(explanations.size() == 1);
  const CheckExplanation& x = explanations[0];
  CHECK(x.check == "liveness");
  CHECK(x.cause.value("class", "") == "release-lost");
  CHECK(x.cause.value("process", "") == "client-0");
  const std::string all = all_sentences(explanations);
  INFO(all);
  CHECK(all.find("client-0 released the lock at 3.518 s (indeterminate: timeout), and the key stayed") !=
        std::string::npos);
  CHECK(all.find("no member led the cluster from 4.920 s to 5.935 s") != std::string::npos);
  // Why member-2 stepped down, from the step-down's recorded reason and the link's release.
  CHECK(all.find("member-2 stepped down at 4.920 s on seeing term 2 in member-0's heartbeat-reply: the links between "
                 "member-2 and member-0 were cut (their messages held) from 3.450 s to 4.150 s, member-0 had "
                 "campaigned once at 4.797 s (term 2) and the heartbeat-reply came with what the link from member-0 to member-2 had held since 3.519 s, released "
                 "at TCP's retransmission at 4.920 s") != std::string::npos);
  CHECK(all.find("it had no lease, so nothing would ever delete it") != std::string::npos);
}

// Keys whose sessions their clients abandoned stood past the heal at 79.9 s because each new
// leader extended every lease (checked by hand: the revokes at 142.23 s name renewed_by
// leader-election at 81.227 s).
TEST_CASE("an abandoned lease kept alive by leader promotions is said to be") {
  const std::string all =
      all_sentences(testdata_explanations("etcd-mutex-abandoned-leases-renewed-by-elections.json"));
  INFO(all);
  CHECK(all.find("(revision 72) created at 10.386 s for client-2 stood when the last fault healed at "
                 "79.900 s, until it was deleted at 142.231 s with its lease (a lease of TTL 60 s, last "
                 "renewed at 81.227 s by member-1's promotion to leader, not by a keep-alive") !=
        std::string::npos);
}

// Every lease lost at once: no leader from 27.230 s to 32.634 s, longer than the 5 s TTL; the
// clients' keep-alives went unanswered for a whole TTL and they gave their leases up; the late
// answers renewed them once more (checked by hand).
TEST_CASE("a lease given up during a leaderless span says its keep-alives went unanswered for a TTL") {
  const std::string all = all_sentences(testdata_explanations("txn-try-lock-leaderless-longer-than-ttl.json"));
  INFO(all);
  CHECK(all.find("client-1's keep-alives for it had stopped: the last was sent at 31.373 s (call 126), and "
                 "none of the 6 it sent from 28.873 s had been answered by then; a session gives its lease up "
                 "once a whole TTL (5 s) has passed since it sent the last keep-alive that was answered (call "
                 "119, sent at 26.738 s, answered at 27.207 s), and it gave this one up at its next check, about "
                 "31.873 s; no member led the cluster from "
                 "28.873 s to 31.373 s (none was elected in that time: member-0 campaigned twice from 29.997 s to "
                 "31.144 s (terms 9 to 10): member-1 refused both because member-0's log was behind its own") !=
        std::string::npos);
}

// The key's owner renewed it only through keep-alives answered late, then moved to a new session
// (checked by hand: calls 137 to 141 sent 60.5 s to 62.5 s, answered at 65.217 s; a lease
// granted at 65.216 s; no keep-alive for the old lease after).
TEST_CASE("a key left by a session its client moved on from says when the client took a new lease") {
  const std::string all =
      all_sentences(testdata_explanations("zk-recipe-key-left-by-an-abandoned-session.json"));
  INFO(all);
  CHECK(all.find("client-0 kept the key's lease alive (5 keep-alives answered after the key was created, "
                 "the last sent at 62.500 s and answered at 65.217 s), and took a new lease at 65.216 s, "
                 "sending no keep-alive for this one after") != std::string::npos);
}

// A keep-alive lost before the lease's last renewal stopped nothing: the leader renewed the lease
// at 22.702 s for a later one (calls 144 to 146 answered), so member-2's first crash (17.696 s to
// 18.896 s, while call 143 was out) is not a cause; its second (21.444 s to 27.544 s), while
// client-0's keep-alives went to it, is (checked by hand against the history).
TEST_CASE("a keep-alive sent before a later answered one is not counted against the lease") {
  const auto explanations = testdata_explanations("txn-try-lock-keep-alive-before-last-renewal.json");
  const std::string all = all_sentences(explanations);
  INFO(all);
  CHECK(all.find("client-0 sent 7 keep-alives for it after 22.702 s; none was answered in time: 7 were still "
                 "unanswered at 28.141 s.") != std::string::npos);
  CHECK(all.find("In that time member-2 crashed from 21.444 s to 27.544 s; client-0's keep-alives went to member-2.") !=
        std::string::npos);
  CHECK(all.find("17.696 s") == std::string::npos);
  REQUIRE(explanations.size() == 1);
  CHECK(explanations[0].cause.value("class", "") == "lease-expired");
  CHECK(explanations[0].cause["faults"].size() == 1);
}

// client-2's keep-alives went to member-2 and on to member-1, the leader: member-2's delayed links
// held them, member-0's did not (its delay, 23.403 s to 31.504 s, is on member-0's links only).
// After its session gave the lease up, client-2 sent no keep-alive, so the delay still active
// then held none (checked by hand against the history).
TEST_CASE("a link fault on no keep-alive's way is not named as what stopped the renewals") {
  const auto explanations = testdata_explanations("txn-try-lock-delay-off-the-keep-alive-way.json");
  const std::string all = all_sentences(explanations);
  INFO(all);
  CHECK(all.find("since it sent the last keep-alive that was answered (call 110, sent at 24.365 s, answered at "
                 "26.462 s), and it gave this one up at its next check, about 29.629 s; meanwhile messages "
                 "between member-2 and each of member-0 and member-1 were delayed by 752 ms from 22.106 s to "
                 "33.606 s and messages from member-2 to member-0 and member-1 were delayed by 590 ms from "
                 "23.513 s to 30.113 s.") != std::string::npos);
  CHECK(all.find("delayed by 171 ms") == std::string::npos);
  CHECK(all.find("In that time") == std::string::npos);
  CHECK(all.find("No keep-alive of it was on its way between 32.139 s and 35.733 s to be held by the faults "
                 "then active") != std::string::npos);
}

// Three clients' leases gone, each for its own reason (checked by hand against the history):
// client-1's and client-2's sessions gave theirs up while no member led (8.190 s to 13.380 s) and
// member-2 revoked them at 18.383 s (no leader was elected in that time: member-0, its log behind, campaigned
// and each refusal restarted the others' election timers); member-1's isolation (15.600 s to 17.700 s) stopped client-0's
// keep-alives, sent to member-1, and is not named as what stopped the others', who sent none then.
// The explanation's cause is the client whose failing acquires ended first (client-2).
TEST_CASE("each client whose lease is gone gets the reason its own lease expired") {
  const auto explanations = testdata_explanations("txn-try-lock-leases-lost-for-different-reasons.json");
  REQUIRE(explanations.size() == 1);
  CHECK(explanations[0].cause.value("class", "") == "lease-gone");
  CHECK(explanations[0].cause.value("process", "") == "client-2");
  const std::string all = all_sentences(explanations);
  INFO(all);
  CHECK(all.find("client-2's keep-alives for it had stopped: the last was sent at 11.348 s (call 59), and none of "
                 "the 7 it sent from 8.348 s had been answered by then; a session gives its lease up once a "
                 "whole TTL (5 s) has passed since it sent the last keep-alive that was answered, or since the "
                 "lease's grant at 6.685 s when none was, and it gave this one up at its next check, about "
                 "11.848 s; no member led the cluster from 8.348 s to 11.348 s (none was elected in that time: "
                 "member-0 campaigned twice from 9.496 s to 10.802 s (terms 3 to 4): member-1 refused both because "
                 "member-0's log was behind its own (last entries: index 108 of term 1 against index 140 of term 1; "
                 "each request's newer term restarted member-1's election timer); member-2 refused both because "
                 "member-0's log was behind its own") != std::string::npos);
  CHECK(all.find("client-1's keep-alives for it had stopped: the last was sent at 11.314 s (call 62), and none of "
                 "the 7 it sent from 8.314 s had been answered by then; a session gives its lease up once a "
                 "whole TTL (5 s) has passed since it sent the last keep-alive that was answered (call 39, sent "
                 "at 6.646 s, answered at 6.648 s), and it gave this one up at its next check, about 11.814 s; "
                 "no member led the cluster from 8.314 s to 11.314 s (none was elected in that time: member-0 "
                 "campaigned twice") != std::string::npos);
  CHECK(all.find("client-0's keep-alives for it had stopped: the last was sent at 19.894 s (call 70)") !=
        std::string::npos);
  // The lease outlived client-0's last keep-alive by more than its TTL: the last keep-alives,
  // answered 4.1 s late, renewed it then (checked against the history: calls 69 and 70 ended ok
  // at 24.001 s; the lessor's last renewal, in the expiry's cause, at 23.999 s).
  CHECK(all.find("had expired at 29.001 s (member-0's lessor revoked it, having last renewed it at 23.999 s, for "
                 "client-0's keep-alives sent to member-1 at 19.394 s and 19.894 s (calls 69 and 70), answered at "
                 "24.001 s, 4.107 s after the last was sent)") != std::string::npos);
  // The cut is named once as a cause (client-0's), never in an "In that time" sentence.
  CHECK(all.find("In that time") == std::string::npos);
  CHECK(all.find("; meanwhile the links between member-1") == all.rfind("; meanwhile the links between member-1"));
}

// A waiter woken by the deletion of the key just ahead of its own (revision 51, deleted at
// 8.320 s), whose watch event a cut of its links to member-0 held until TCP's retransmission
// after the heal; client-0's later keys (revision 58 and on), queued behind client-1's, are not
// what it woke on (checked by hand against the history: the grant at 11.322 s; client-1's
// keep-alive sent at 8.550 s answered at 11.552 s).
TEST_CASE("a late grant names the key ahead of the grantee's own and the fault that held the news") {
  const std::string all = all_sentences(testdata_explanations("prefix-watch-lock-wake-held-by-cut.json"));
  INFO(all);
  CHECK(all.find("The last lock key ahead of client-1's own (revision 53) deleted while it waited was client-0's key "
                 "/lockstep/lock/be29abebc1d85772beef202364c2c720 (revision 51), at 8.320 s by a delete_range that "
                 "client-0 sent to member-0 at 8.320 s (call 66), 3.001 s before the grant; in between, the links "
                 "between client-1 and each of member-0 and the resource were cut (their messages held) from 8.300 s "
                 "to 10.000 s.") != std::string::npos);
  CHECK(all.find("(revision 58)") == std::string::npos);
}

// etcd issue 11456, as the history shows it: the waiter's key went with its lease at 8.019 s,
// the waiter's one request until its grant was its range over the lock's keys, sent right
// after client-1's release deleted the key before it (checked by hand against the history).
TEST_CASE("a grant after the grantee's key went says what it sent meanwhile and what went last") {
  Scenario scenario;
  REQUIRE(load_scenario_file(LOCKSTEP_SOURCE_DIR "/scenarios/etcd-mutex-3.4-waiter-lease-expired-while-waiting.json",
                             scenario) == "");
  const ReplayOutcome outcome = replay_scenario(scenario);
  REQUIRE(outcome.verdict == "violated");
  const nlohmann::json verdict = verdict_to_json(scenario, outcome.result, "");
  const CheckExplanation* x = nullptr;
  const auto explanations = explain_checks(outcome.result.history, verdict);
  for (const auto& e : explanations)
    if (e.check == "mutex") x = &e;
  REQUIRE(x != nullptr);
  std::string text;
  for (const auto& sentence : x->sentences) text += sentence + "\n";
  INFO(text);
  CHECK(text.find("client-2 sent 1 request between its key's deletion at 8.019 s and the grant at "
                  "12.018 s: range of the keys from /lockstep/lock/ to /lockstep/lock0 (call 12, at "
                  "12.013 s).") != std::string::npos);
  CHECK(text.find("The last lock key ahead of client-2's own (revision 3) deleted while it waited was client-1's key "
                  "/lockstep/lock/212906ad56f14 (revision 2), at 12.011 s by a delete_range that "
                  "client-1 sent to member-1 at 12.009 s (call 8), 6 ms before the grant.") != std::string::npos);
  // The range covers client-2's own key, so nothing is claimed about whether it was read.
  CHECK(text.find("none of them read its own key") == std::string::npos);
}

}  // namespace
}  // namespace lockstep::reports

namespace lockstep::reports {
namespace {

// The lock service's request is named for the client call it served, and the client's giving
// up on that call is the cause, not a request the client sent.
TEST_CASE("a key deleted by a lock service's clean-up names the lock call its client gave up") {
  Scenario scenario;
  REQUIRE(load_scenario_file(LOCKSTEP_SOURCE_DIR "/scenarios/etcd-lock-rpc-retried-lock-loses-key-no-faults.json",
                             scenario) == "");
  const ReplayOutcome outcome = replay_scenario(scenario);
  REQUIRE(outcome.verdict == "violated");
  const nlohmann::json verdict = verdict_to_json(scenario, outcome.result, "replay");
  const auto explanations = explain_checks(outcome.result.history, verdict);
  REQUIRE_FALSE(explanations.empty());
  const nlohmann::json& lost = explanations.front().cause["lost"];
  INFO(lost.dump());
  CHECK(lost.value("class", "") == "key-deleted-by-request");
  const nlohmann::json& by = lost["request"];
  CHECK(by.value("request", "") == "delete_range");
  CHECK(by.value("client", "") == "client-0");
  CHECK(by.value("lock_service", "") == "member-0");
  CHECK(by.value("for_request", "") == "lock");
  CHECK(by.contains("abandoned_ns"));
  bool says_cleanup = false;
  for (const auto& sentence : explanations.front().sentences)
    says_cleanup = says_cleanup || sentence.find("the clean-up of that lock call") != std::string::npos;
  CHECK(says_cleanup);
}

// A key whose creating call was answered, yet whose acquire went on as if refused (checked by
// hand against the history): client-3's SETNX txn (call 147) was sent while its messages to
// member-0 were duplicated; the first copy created the key with no lease, the second was
// refused, and that refusal, reordered, reached client-3 first. Not "never had its answer".
TEST_CASE("a key created by a duplicated call whose refusal came back says the acquire went on as if refused") {
  const std::string all = all_sentences(testdata_explanations("setnx-then-expire-duplicated-setnx-refused.json"));
  CHECK_THAT(all, Catch::Contains("a txn that client-3 sent to member-0 at 11.788 s (call 147) created it"));
  CHECK_THAT(all, Catch::Contains("although that call was answered at 11.837 s: the acquire went on as if refused"));
  CHECK_THAT(all, Catch::Contains("it was sent while messages from client-3 to member-0 were duplicated from 10.591 s"));
  CHECK_THAT(all, Catch::Contains("messages between client-3 and member-0 were reordered"));
  CHECK_THAT(all, !Catch::Contains("never had its answer"));
  CHECK_THAT(all, Catch::Contains("it had no lease, so nothing would ever delete it"));
}

// A lost update whose two writers both believed they held the lock (checked by hand against
// the history): client-3's keep-alives were dropped from 23.000 s to 63.000 s, its lease expired
// at 63.428 s and client-0 took the lock; both had read 18 from the paused resource. The
// resource's explanation says why two clients held the lock, as the mutex check would.
TEST_CASE("a lost update between two believed holders says why both held the lock") {
  const auto explanations = testdata_explanations("etcd-mutex-safe-unlock-lost-update-of-two-holders.json");
  const CheckExplanation* resource = nullptr;
  for (const auto& x : explanations)
    if (x.check == "resource") resource = &x;
  REQUIRE(resource != nullptr);
  CHECK(resource->cause.value("class", "") == "lost-update");
  REQUIRE(resource->cause.contains("overlap"));
  CHECK(resource->cause["overlap"].value("class", "") == "lease-expired");
  CHECK(resource->cause["overlap"].value("process", "") == "client-3");
  const std::string all = all_sentences({*resource});
  CHECK_THAT(all, Catch::Contains("client-0 acquired the lock at 63.432 s (key revision 76) while client-3 still "
                                  "believed it held the lock since 61.506 s (key revision 74)."));
  CHECK_THAT(all, Catch::Contains("client-3's lease 1048bff092fea expired at 63.428 s"));
  CHECK_THAT(all, Catch::Contains("client-3's lease keep-alives were dropped from 23.000 s to 63.000 s"));
}

// A session that gave its lease up, then late answers that renewed the lease once more
// (checked by hand against the history): client-4's keep-alive call 14, sent at 6.935 s, was its
// last answered before the run of unanswered ones; the session's rule counts the TTL from that
// send. Calls 19 to 22, delayed on client-4's links, were answered together at 13.398 s and had
// renewed the lease at 12.834 s, which is why it lived until 17.935 s.
TEST_CASE("a session's give-up is worded as sessions count it and a late-answered renewal is named") {
  const std::string all = all_sentences(testdata_explanations("txn-try-lock-session-gave-up-then-renewed-late.json"));
  INFO(all);
  CHECK_THAT(all, Catch::Contains("a session gives its lease up once a whole TTL (5 s) has passed since it sent the "
                                  "last keep-alive that was answered (call 14, sent at 6.935 s, answered at 8.635 s)"));
  CHECK_THAT(all, Catch::Contains("member-0's lessor had last renewed it at 12.834 s (for client-4's keep-alives sent "
                                  "to member-1 at 10.301 s, 10.801 s, 11.301 s and 11.801 s (calls 19, 20, 21 and 22), "
                                  "answered at 13.398 s, 1.597 s after the last was sent)"));
  CHECK_THAT(all, !Catch::Contains("when a whole TTL passes without an answer"));
  // Its next acquire put its key under that lease after the lessor had counted it out.
  CHECK_THAT(all, Catch::Contains("client-4 created its lock key at 18.002 s on a lease that had already run out: its "
                                  "lessor had last renewed it at 12.834 s, with a TTL of 5 s, so until 17.834 s. The "
                                  "lock was lost before it was taken."));
}

// A lock call given up (checked by hand against the history): client-0's lock call 8 waited
// behind client-3's key (revision 27), which stood until client-3's unlock at 11.445 s; the
// lock service's clean-up then deleted client-0's key, which its next lock call was granted
// on. Meanwhile member-1, cut from member-2 from 3.000 s to 4.500 s, got its held messages
// through at TCP's retransmission at 6.002 s, and member-2, which had campaigned meanwhile,
// answered with term 2: member-1 stepped down (leader-stepped-down, reason higher-term).
TEST_CASE("a lock call given up says which key it waited behind and what held it") {
  const std::string all = all_sentences(testdata_explanations("etcd-lock-rpc-lock-call-given-up-behind-a-key.json"));
  INFO(all);
  CHECK_THAT(all, Catch::Contains("client-0's lock call 8 (sent to member-0 at 5.614 s) had no answer by its deadline "
                                  "at 10.614 s: it waited behind client-3's key (revision 27), which stood until "
                                  "11.445 s; in its wait, client-3 held the lock from 5.933 s to 6.136 s; meanwhile no member led the cluster from 6.003 s to 7.484 s (member-1 "
                                  "stepped down at 6.003 s on seeing term 2 in member-2's append-reply: the links from "
                                  "member-1 to member-2 were cut (their messages held) from 3.000 s to 4.500 s, member-2 "
                                  "had campaigned once at 4.598 s (term 2) and member-1's messages to member-2, held since 3.001 s, got through at TCP's "
                                  "retransmission at 6.002 s)."));
}

// Requests dropped by a member that had stepped down (checked against the history, and by an
// instrumented replay in review): member-1 still took member-2 for the leader and passed it
// client-0's lease grant (call 2) and client-1's unlock, as its lock service's delete; member-2,
// which had stepped down at 8.055 s, knew no leader and dropped both. Neither was proposed
// again: client-0's acquire waited to its deadline, and client-1's key stayed until its next
// unlock at 13.516 s.
TEST_CASE("requests dropped by a member that had stepped down are named where they were lost") {
  const auto explanations = testdata_explanations("etcd-lock-rpc-requests-dropped-by-a-stepped-down-leader.json");
  const std::string all = all_sentences(explanations);
  INFO(all);
  CHECK_THAT(all, Catch::Contains("client-0's acquire sent a lease_grant (call 2) to member-1 at 8.100 s, which reached "
                                  "its deadline at 13.100 s: member-2 dropped it at 8.101 s (member-1 passed it on to "
                                  "member-2 as the leader, but member-2 no longer led and knew no leader; etcd does not "
                                  "propose a dropped request again, so only the caller's deadline ends it)."));
  CHECK_THAT(all, Catch::Contains("client-1 released the lock at 8.205 s (indeterminate: timeout), and the key stayed "
                                  "(its calls went to member-1); member-2 dropped the delete_range that member-1's lock "
                                  "service made for its unlock (call 35) at 8.207 s"));
  CHECK_THAT(all, Catch::Contains("member-2 stepped down at 8.055 s on seeing term 4 in member-0's heartbeat-reply"));
}

// A lessor's clock that jumped (checked by hand against the history): member-0's monotonic clock
// jumped forward 2.829 s at 32.000 s, so the lease granted at 31.281 s with a 5 s TTL ran out,
// as member-0 counted it, at 33.452 s; client-0 created its key at 33.468 s.
TEST_CASE("a lease its lessor's jumped clock ran out before the key was created is lost before it was taken") {
  const auto explanations = testdata_explanations("txn-try-lock-lessor-clock-jump-runs-lease-out.json");
  const std::string all = all_sentences(explanations);
  INFO(all);
  CHECK_THAT(all, Catch::Contains("client-0 created its lock key at 33.468 s on a lease that had already run out: its "
                                  "lessor had last renewed it at 31.281 s, with a TTL of 5 s, so until 33.452 s (in true "
                                  "time, as member-0's faulted clock counted the TTL: member-0's monotonic clock jumped "
                                  "forward by 2.829 s at 32.000 s). The lock was lost before it was taken."));
  CHECK_THAT(all, !Catch::Contains("inherent limit"));
}

}  // namespace
}  // namespace lockstep::reports
