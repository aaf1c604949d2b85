// run_checks: what the checks add to the checkers' own verdicts.
#include "harness/checks.h"

#include <catch2/catch.hpp>

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

// client-1 holds from 1 s to 20 s; client-0 acquires at 12 s. Before that, pauses of
// `pause_ms` each hit client-1 at 2 s and 6 s.
History overlap_after_pauses(std::int64_t pause_ms) {
  History h;
  h.events.push_back(event("client-1", EventKind::invoke, "acquire", 999, {{"mode", "exclusive"}}));
  h.events.push_back(event("client-1", EventKind::ok, "acquire", 1000));
  for (std::int64_t start_ms : {2000, 6000})
    h.events.push_back(event("world", EventKind::fault, "pause", start_ms,
                             {{"phase", "start"}, {"duration_ms", pause_ms},
                              {"targets", {"client-1"}}}));
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

TEST_CASE("a violation is called the inherent limit of leases only after faults long enough") {
  RunConfig config = default_run_config();
  config.algorithm = "etcd-mutex";
  config.algorithm_options = {{"lease_ttl_seconds", 10}};
  config.checks = {"mutex"};
  // Two pauses of 4 s: 8 s stopped, over 2/3 of the 10 s TTL.
  const auto long_faults = run_checks(config, overlap_after_pauses(4000));
  REQUIRE(mutex_of(long_faults).status == CheckStatus::violated);
  REQUIRE(mutex_of(long_faults).figures.value("inherent_lease_limit", false));
  REQUIRE(mutex_of(long_faults).summary.find("inherent limit of leases") != std::string::npos);
  // Two pauses of 1 s cannot make a holder that renews every TTL/3 outlive a 10 s lease:
  // that overlap is a bug of the lock (or its keep-alive), and is not excused.
  const auto short_faults = run_checks(config, overlap_after_pauses(1000));
  REQUIRE(mutex_of(short_faults).status == CheckStatus::violated);
  REQUIRE_FALSE(mutex_of(short_faults).figures.value("inherent_lease_limit", false));
  REQUIRE(mutex_of(short_faults).summary.find("inherent limit") == std::string::npos);
}

}  // namespace
}  // namespace lockstep
