#include "lockstep/kv/invariant.h"

#include <catch2/catch.hpp>

#include "lockstep/kv/invariant_test_support.h"

namespace lockstep {
namespace {

TEST_CASE("a broken invariant aborts with where and what, in every build type") {
  const auto end = testing::run_in_child([] {
    const int applied = 3, committed = 2;
    LOCKSTEP_INVARIANT(applied <= committed, "nothing is applied before it is committed");
  });
  CHECK(end.aborted);
  CHECK(end.stderr_text.find("invariant broken at") != std::string::npos);
  CHECK(end.stderr_text.find("invariant_test.cc") != std::string::npos);
  CHECK(end.stderr_text.find("nothing is applied before it is committed (applied <= committed)") !=
        std::string::npos);
}

TEST_CASE("a kept invariant evaluates its condition once and says nothing") {
  const auto end = testing::run_in_child([] {
    int checks = 0;
    LOCKSTEP_INVARIANT(++checks == 1, "evaluated once");
    LOCKSTEP_INVARIANT(checks == 1, "evaluated once");
  });
  CHECK(end.exited_ok);
  CHECK(end.stderr_text.empty());
}

}  // namespace
}  // namespace lockstep
