// Explanations hold to the truth over many failures: every algorithm of the catalogue is run on
// seeds drawing every fault class, and each violation's explanation is checked against its own
// history for the claims a wrong explanation would make:
//   - it never says a lease expired when no revoke of it committed;
//   - it never says "no fault hit X" before a moment when a fault on X came before it;
//   - it never calls a slowed clock fast, nor a quickened one slow;
//   - on a simulated run (which records causes) it always finds a cause, and the inherent
//     limit of leases only for a holder whose key went with its lease while it held the lock.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "lockstep/algorithms/registry.h"
#include "lockstep/harness/checks.h"
#include "lockstep/harness/run_files.h"
#include "lockstep/harness/run_request.h"
#include "lockstep/harness/sim_runner.h"
#include "lockstep/reports/explain.h"
#include "lockstep/reports/fault_bands.h"

namespace lockstep::reports {
namespace {

std::set<std::int64_t> committed_expiries(const History& h) {
  std::set<std::int64_t> out;
  for (const auto& e : h.events)
    if (e.kind == EventKind::truth && e.op == "lease-expired") out.insert(e.args.value("lease", std::int64_t{0}));
  return out;
}

// Every cause object in `cause` (the cause itself and a nested "lost" one).
std::vector<const nlohmann::json*> causes_in(const nlohmann::json& cause) {
  std::vector<const nlohmann::json*> out = {&cause};
  if (cause.is_object() && cause.contains("lost")) out.push_back(&cause["lost"]);
  return out;
}

std::int64_t parse_seconds_ns(const std::string& text) {
  return static_cast<std::int64_t>(std::stod(text) * 1e9 + 0.5);
}

void check_explanations(const RunConfig& config, const RunResult& result, int& violations) {
  const History& h = result.history;
  const nlohmann::json verdict = verdict_to_json(config, result);
  const auto expiries = committed_expiries(h);
  const auto bands = reports::fault_bands(h);
  for (const auto& x : explain_checks(h, verdict)) {
    ++violations;
    std::string text;
    for (const auto& s : x.sentences) text += s + "\n";
    INFO(config.algorithm << " seed " << config.seed << " " << x.check << "\n" << text << x.cause.dump());
    REQUIRE(x.spans.size() == x.sentences.size());
    REQUIRE(x.cause.is_object());
    for (const nlohmann::json* c : causes_in(x.cause)) {
      const std::string cls = c->value("class", "");
      CHECK(cls != "unknown");
      CHECK(cls != "key-deleted");  // the simulator records every delete's cause
      if (cls == "lease-expired") CHECK(expiries.count(c->value("lease", std::int64_t{-1})) == 1);
    }
    // "X's lease <hex> expired at": only for leases whose revoke committed. (Parsed by hand:
    // std::regex trips g++ 12's uninitialized-use warning under the sanitizers.)
    for (std::size_t at = text.find("'s lease "); at != std::string::npos; at = text.find("'s lease ", at + 1)) {
      const std::size_t hex = at + 9;
      const std::size_t space = text.find(' ', hex);
      if (space == std::string::npos || text.compare(space, 12, " expired at ") != 0) continue;
      CHECK(expiries.count(static_cast<std::int64_t>(std::stoull(text.substr(hex, space - hex), nullptr, 16))) == 1);
    }
    // "No fault hit X ... before T s" (within one sentence): no fault on X started before T;
    // "No fault hit X between the lease's grant at G s and T s": none on X was active then.
    for (std::size_t at = text.find("No fault hit "); at != std::string::npos; at = text.find("No fault hit ", at + 1)) {
      const std::size_t who_end = text.find_first_of(" ,", at + 13);
      const std::string who = text.substr(at + 13, who_end - (at + 13));
      const std::size_t end = text.find('\n', at);
      const std::string grant = " between the lease's grant at ";
      if (text.compare(who_end, grant.size(), grant) == 0) {
        const std::size_t g = who_end + grant.size();
        const std::int64_t from_ns = parse_seconds_ns(text.substr(g, text.find(' ', g) - g));
        const std::size_t and_at = text.find(" and ", g) + 5;
        const std::int64_t to_ns = parse_seconds_ns(text.substr(and_at, text.find(' ', and_at) - and_at));
        for (const auto& b : bands)
          if (b.hits(who)) CHECK((b.start_ns > to_ns || (!b.open_end && b.end_ns < from_ns)));
        continue;
      }
      const std::size_t before = text.rfind(" before ", end);
      if (before == std::string::npos || before < at) continue;
      const std::int64_t before_ns = parse_seconds_ns(text.substr(before + 8, text.find(' ', before + 8) - (before + 8)));
      for (const auto& b : bands)
        if (b.hits(who)) CHECK(b.start_ns >= before_ns);
    }
    if (x.cause.value("inherent_lease_limit", false)) CHECK(x.cause.value("class", "") == "lease-expired");
  }
  // Clock faults by their effect.
  for (const auto& b : bands) {
    if (b.kind != "clock") continue;
    const std::int64_t rate = b.args.value("rate_ppm", std::int64_t{0});
    const std::string words = reports::describe_fault(b);
    INFO(words);
    if (rate > 0 && rate < 1'000'000) CHECK((words.find("slow") != std::string::npos && words.find("fast") == std::string::npos));
    if (rate > 1'000'000) CHECK((words.find("fast") != std::string::npos && words.find("slow") == std::string::npos));
  }
}

// Release sweeps twelve seeds per algorithm; Debug and the sanitizer build, some ten to forty
// times slower, the first four of them (the sweep was a third of their suite's time).
#ifdef NDEBUG
constexpr std::uint64_t kSeedsPerAlgorithm = 12;
constexpr int kMinViolations = 30;
#else
constexpr std::uint64_t kSeedsPerAlgorithm = 4;
constexpr int kMinViolations = 15;
#endif

TEST_CASE("explanations of many failures never claim what their histories deny") {
  int violations = 0;
  for (const auto& info : algorithm_catalogue()) {
    for (std::uint64_t seed = 1; seed <= kSeedsPerAlgorithm; ++seed) {
      RunRequest request;
      request.algorithm = info.name;
      request.seed = 1000 + seed;  // other seeds than the scenarios and goldens use
      request.clients = 3;
      request.duration = seconds(20);
      request.faults = "all";
      RunConfig config;
      REQUIRE(expand_run_request(request, config) == "");
      const RunResult result = run_simulation(config);
      if (result.all_ok()) continue;
      check_explanations(config, result, violations);
    }
  }
  // The sweep must meet failures to mean anything.
  CHECK(violations >= kMinViolations);
}

}  // namespace
}  // namespace lockstep::reports
