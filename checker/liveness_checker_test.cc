#include "lockstep/checker/liveness_checker.h"

#include <catch2/catch.hpp>

namespace lockstep {
namespace {

constexpr std::int64_t kS = 1'000'000'000;

struct Builder {
  History h;
  void add(const std::string& p, EventKind k, const std::string& op, std::int64_t t_s,
           nlohmann::json result = nlohmann::json::object()) {
    HistoryEvent e;
    e.index = static_cast<std::int64_t>(h.events.size());
    e.process = p;
    e.kind = k;
    e.op = op;
    e.true_ns = t_s * kS;
    e.result = std::move(result);
    h.events.push_back(e);
  }
};

LivenessOptions bounds(std::int64_t bound_s, std::int64_t idle_s) {
  return LivenessOptions{bound_s * kS, idle_s * kS};
}

TEST_CASE("clients that keep getting the lock after healing are live") {
  Builder b;
  b.add("world", EventKind::fault, "pause", 1);
  for (int i = 0; i < 10; ++i) {
    b.add("c", EventKind::invoke, "acquire", 2 + 3 * i);
    b.add("c", EventKind::ok, "acquire", 2 + 3 * i + 1);
    b.add("c", EventKind::invoke, "release", 2 + 3 * i + 2);
    b.add("c", EventKind::ok, "release", 2 + 3 * i + 2);
  }
  auto r = check_liveness(b.h, bounds(10, 10));
  REQUIRE(r.status == CheckStatus::ok);
  REQUIRE(r.figures["judged"] == true);
}

TEST_CASE("a lock never granted after healing is a violation") {
  Builder b;
  b.add("a", EventKind::invoke, "acquire", 0);
  b.add("a", EventKind::ok, "acquire", 1);
  b.add("world", EventKind::fault, "crash", 2);
  for (int i = 0; i < 8; ++i) {
    b.add("b", EventKind::invoke, "acquire", 3 + 5 * i);
    b.add("b", EventKind::fail, "acquire", 3 + 5 * i + 4, {{"error", "deadline-exceeded"}});
  }
  auto r = check_liveness(b.h, bounds(20, 100));
  REQUIRE(r.status == CheckStatus::violated);
  REQUIRE(r.witness["rule"] == "never-granted-after-healing");
}

TEST_CASE("a waiter giving up while nobody held the lock missed its wake-up") {
  Builder b;
  b.add("a", EventKind::invoke, "acquire", 0);
  b.add("a", EventKind::ok, "acquire", 1);
  b.add("b", EventKind::invoke, "acquire", 2);
  b.add("a", EventKind::invoke, "release", 3);
  b.add("a", EventKind::ok, "release", 3);
  b.add("b", EventKind::fail, "acquire", 12, {{"error", "deadline-exceeded"}});
  auto r = check_liveness(b.h, bounds(60, 5));
  REQUIRE(r.status == CheckStatus::violated);
  REQUIRE(r.witness["rule"] == "missed-wake-up");
  REQUIRE(r.witness["idle_ns"] == 9 * kS);
  REQUIRE(check_liveness(b.h, bounds(60, 10)).status == CheckStatus::ok);
}

TEST_CASE("a waiter still waiting long after healing waits for ever") {
  Builder b;
  b.add("b", EventKind::invoke, "acquire", 1);
  b.add("c", EventKind::invoke, "read", 100);
  auto r = check_liveness(b.h, bounds(30, 1000));
  REQUIRE(r.status == CheckStatus::violated);
  REQUIRE(r.witness["rule"] == "waits-for-ever");
}

}  // namespace
}  // namespace lockstep
