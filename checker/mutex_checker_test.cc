#include "lockstep/checker/mutex_checker.h"

#include <catch2/catch.hpp>

namespace lockstep {
namespace {

struct Builder {
  History h;
  void add(const std::string& p, EventKind k, const std::string& op, std::int64_t t,
           nlohmann::json args = nlohmann::json::object()) {
    HistoryEvent e;
    e.index = static_cast<std::int64_t>(h.events.size());
    e.process = p;
    e.kind = k;
    e.op = op;
    e.true_ns = t;
    e.args = std::move(args);
    h.events.push_back(e);
  }
  void hold(const std::string& p, std::int64_t from, std::int64_t to, const char* mode = "exclusive") {
    add(p, EventKind::invoke, "acquire", from - 1, {{"mode", mode}});
    add(p, EventKind::ok, "acquire", from);
    add(p, EventKind::invoke, "release", to);
    add(p, EventKind::ok, "release", to + 1);
  }
};

void sort_by_time(History& h) {
  std::stable_sort(h.events.begin(), h.events.end(),
                   [](const HistoryEvent& a, const HistoryEvent& b) { return a.true_ns < b.true_ns; });
  for (std::size_t i = 0; i < h.events.size(); ++i) h.events[i].index = static_cast<std::int64_t>(i);
}

TEST_CASE("disjoint holdings pass") {
  Builder b;
  b.hold("a", 10, 20);
  b.hold("b", 30, 40);
  sort_by_time(b.h);
  auto r = check_mutual_exclusion(b.h);
  REQUIRE(r.status == CheckStatus::ok);
  REQUIRE(r.figures["holdings"] == 2);
}

TEST_CASE("overlapping holdings are a violation with a witness") {
  Builder b;
  b.hold("a", 10, 50);
  b.hold("b", 30, 60);
  sort_by_time(b.h);
  auto r = check_mutual_exclusion(b.h);
  REQUIRE(r.status == CheckStatus::violated);
  REQUIRE(r.witness["earlier"]["process"] == "a");
  REQUIRE(r.witness["later"]["process"] == "b");
  REQUIRE(r.witness["overlap_start_ns"] == 30);
  REQUIRE(r.witness["overlap_end_ns"] == 50);
}

TEST_CASE("shared holdings may overlap each other but not an exclusive one") {
  Builder b;
  b.hold("r1", 10, 50, "shared");
  b.hold("r2", 20, 60, "shared");
  sort_by_time(b.h);
  REQUIRE(check_mutual_exclusion(b.h).status == CheckStatus::ok);
  b.hold("w", 40, 45, "exclusive");
  sort_by_time(b.h);
  REQUIRE(check_mutual_exclusion(b.h).status == CheckStatus::violated);
}

TEST_CASE("a crash ends a holding - an indeterminate acquire gives none") {
  Builder b;
  b.add("a", EventKind::invoke, "acquire", 1);
  b.add("a", EventKind::ok, "acquire", 2);
  b.add("world", EventKind::fault, "crash", 5, {{"phase", "start"}, {"targets", {"a"}}});
  b.add("b", EventKind::invoke, "acquire", 3);
  b.add("b", EventKind::info, "acquire", 4);
  b.add("c", EventKind::invoke, "acquire", 6);
  b.add("c", EventKind::ok, "acquire", 7);
  sort_by_time(b.h);
  auto r = check_mutual_exclusion(b.h);
  REQUIRE(r.status == CheckStatus::ok);
  REQUIRE(r.figures["acquires_indeterminate"] == 1);
}

TEST_CASE("a holding open at the end overlaps every later holding") {
  Builder b;
  b.add("a", EventKind::invoke, "acquire", 1);
  b.add("a", EventKind::ok, "acquire", 2);
  b.hold("b", 10, 20);
  sort_by_time(b.h);
  REQUIRE(check_mutual_exclusion(b.h).status == CheckStatus::violated);
}

}  // namespace
}  // namespace lockstep
