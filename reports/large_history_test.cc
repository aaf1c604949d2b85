// A 100,000-event history still gives a report that is small and quick to draw.
#include <catch2/catch.hpp>

#include <chrono>

#include "lockstep/checker/mutex_checker.h"
#include "lockstep/reports/html_report.h"
#include "lockstep/reports/report_test_support.h"

namespace lockstep::reports {
namespace {

using reports_test::HistoryBuilder;

// Five clients take turns for ever; each cycle is 10 events (acquire, key put, read, write
// with its resource truth, release, key delete). Halfway, client-3 is paused while holding
// and client-4 acquires anyway: one mutual-exclusion violation in a sea of ordinary cycles.
History large_history(std::size_t target_events) {
  HistoryBuilder b;
  b.history.header.meta = {{"members", 3}, {"clients", 5}};
  std::int64_t t = 1'000'000;
  std::int64_t rev = 1;
  std::int64_t cycle = 0;
  const auto step = [&](std::int64_t ns) { return t += ns; };
  bool violated = false;
  while (b.history.events.size() < target_events) {
    const std::string c = "client-" + std::to_string(cycle % 5);
    const std::int64_t lease = 1000 + cycle;
    b.add(c, EventKind::invoke, "acquire", step(1'000'000), {{"mode", "exclusive"}});
    ++rev;
    const std::int64_t key_rev = rev;
    b.truth("etcd", "key-put", step(500'000), {{"key", "/l"}, {"revision", key_rev}, {"create_revision", key_rev}, {"lease", lease}});
    b.add(c, EventKind::ok, "acquire", step(500'000), {}, {{"token", key_rev}, {"key", "/l"}, {"key_revision", key_rev}, {"lease", lease}});
    if (!violated && b.history.events.size() > target_events / 2 && cycle % 5 == 3) {
      // client-3 is paused holding the lock; its lease expires; client-4 gets the lock.
      violated = true;
      b.fault("pause", "start", step(1'000'000), {{"targets", {"client-3"}}, {"duration_ms", 8000}});
      b.truth("member-0", "lease-expired", step(5'000'000'000), {{"lease", lease}});
      b.truth("etcd", "key-delete", step(1'000'000), {{"key", "/l"}, {"revision", ++rev}, {"lease_expired", true}});
      b.add("client-4", EventKind::invoke, "acquire", step(1'000'000));
      b.truth("etcd", "key-put", step(1'000'000), {{"key", "/l"}, {"revision", ++rev}, {"create_revision", rev}, {"lease", lease + 1'000'000}});
      b.add("client-4", EventKind::ok, "acquire", step(1'000'000), {}, {{"token", rev}, {"key", "/l"}, {"key_revision", rev}});
      b.add("client-4", EventKind::invoke, "release", step(100'000'000));
      b.truth("etcd", "key-delete", step(1'000'000), {{"key", "/l"}, {"revision", ++rev}});
      b.add("client-4", EventKind::ok, "release", step(1'000'000));
      b.fault("pause", "end", step(3'000'000'000), {{"targets", {"client-3"}}, {"duration_ms", 8000}});
      b.add(c, EventKind::invoke, "release", step(1'000'000));
      b.add(c, EventKind::info, "release", step(1'000'000), {}, {{"error", "lease-not-found"}});
      ++cycle;
      continue;
    }
    b.add(c, EventKind::invoke, "write", step(1'000'000), {{"token", key_rev}, {"base", cycle}, {"value", cycle + 1}});
    b.truth("resource", "resource-write", step(500'000), {{"client", c}, {"token", key_rev}, {"accepted", true}, {"base", cycle}, {"value", cycle + 1}, {"order", cycle + 1}});
    b.add(c, EventKind::ok, "write", step(500'000), {}, {{"order", cycle + 1}});
    b.add(c, EventKind::invoke, "release", step(20'000'000));
    b.truth("etcd", "key-delete", step(500'000), {{"key", "/l"}, {"revision", ++rev}});
    b.add(c, EventKind::ok, "release", step(500'000));
    ++cycle;
  }
  return b.history;
}

TEST_CASE("a 100 000-event history renders under 5 MB - in seconds - with detail kept at the violation") {
  const History h = large_history(100'000);
  REQUIRE(h.events.size() >= 100'000);
  const CheckResult mutex = check_mutual_exclusion(h);
  REQUIRE(mutex.status == CheckStatus::violated);
  const auto verdict = reports_test::verdict_of({mutex}, h);

  const auto started = std::chrono::steady_clock::now();
  const std::string html = render_report_html(h, verdict, {});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  INFO("rendered " << html.size() << " bytes in " << seconds << " s");
  CHECK(html.size() < 5'000'000);
  // Generous: sanitizer builds are several times slower than Release, which takes well under 1 s.
  CHECK(seconds < 30);

  const std::string open = "<script type=\"application/json\" id=\"timeline-data\">";
  const auto start = html.find(open) + open.size();
  const auto data = nlohmann::json::parse(html.substr(start, html.find("</script>", start) - start));
  // Aggregated: far fewer items than events, and the page says so.
  CHECK(data["items"].size() < 45'000);
  CHECK(html.find("timeline items were drawn as") != std::string::npos);
  // Inside the window around the violation nothing is merged: client-3's belief and
  // client-4's acquire are there on their own, with their tokens.
  REQUIRE(data["violations"].size() == 1);
  const std::int64_t a = data["violations"][0]["a"];
  int single_beliefs_at_violation = 0;
  for (const auto& it : data["items"])
    if (data["kinds"][it[2].get<int>()] == "belief" && it[5] == 1 && it[3] <= a && it[4] >= a)
      ++single_beliefs_at_violation;
  CHECK(single_beliefs_at_violation == 2);
  // Outside it, items were merged.
  bool merged = false;
  for (const auto& it : data["items"]) merged = merged || it[5].get<std::int64_t>() > 1;
  CHECK(merged);
}

}  // namespace
}  // namespace lockstep::reports
