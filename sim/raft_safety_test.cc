#include "lockstep/sim/raft_safety.h"

#include <catch2/catch.hpp>

#include "lockstep/kv/invariant_test_support.h"

namespace lockstep::sim {
namespace {

TEST_CASE("raft safety: a consistent run passes") {
  const auto end = testing::run_in_child([] {
    RaftSafety safety;
    safety.elected(1, 0);
    safety.elected(1, 0);  // the same member reporting again
    safety.elected(2, 1);
    safety.applied(1, 1, 1);
    safety.applied(2, 1, 2);
    safety.applied(1, 1, 1);  // another member catches up
    safety.applied(2, 1, 2);
    safety.applied(3, 2, 2);  // a no-op entry moves no revision
  });
  CHECK(end.exited_ok);
  CHECK(end.stderr_text.empty());
}

TEST_CASE("raft safety: each broken rule aborts and is named") {
  struct Case {
    const char* rule;
    void (*run)(RaftSafety&);
  };
  const Case cases[] = {
      {"one leader per term", [](RaftSafety& s) { s.elected(3, 0); s.elected(3, 2); }},
      {"every member applies the same entry at an index",
       [](RaftSafety& s) { s.applied(1, 1, 2); s.applied(1, 2, 2); }},
      {"every member's store is at the same revision after the same entries",
       [](RaftSafety& s) { s.applied(1, 1, 2); s.applied(1, 1, 3); }},
      {"store revisions only grow along the log",
       [](RaftSafety& s) { s.applied(1, 1, 5); s.applied(2, 1, 4); }},
      {"entries are applied in log order", [](RaftSafety& s) { s.applied(2, 1, 1); }},
  };
  for (const auto& c : cases) {
    CAPTURE(c.rule);
    const auto end = testing::run_in_child([&] {
      RaftSafety safety;
      c.run(safety);
    });
    CHECK(end.aborted);
    CHECK(end.stderr_text.find(c.rule) != std::string::npos);
  }
}

}  // namespace
}  // namespace lockstep::sim
