#include "lockstep/kv/rng.h"

#include <catch2/catch.hpp>

namespace lockstep {
namespace {

TEST_CASE("the same seed gives the same stream - different seeds differ") {
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    auto x = a.next_u64();
    REQUIRE(x == b.next_u64());
    (void)c;
  }
  Rng d(42), e(43);
  int equal = 0;
  for (int i = 0; i < 100; ++i) equal += d.next_u64() == e.next_u64();
  REQUIRE(equal == 0);
}

TEST_CASE("forked streams do not depend on how much the parent drew") {
  Rng a(7), b(7);
  for (int i = 0; i < 10; ++i) (void)b.next_u64();
  REQUIRE(a.fork("net").next_u64() == b.fork("net").next_u64());
  REQUIRE(a.fork("net").next_u64() != a.fork("clock").next_u64());
}

TEST_CASE("below and between stay in range and cover it") {
  Rng r(1);
  bool seen[10] = {};
  for (int i = 0; i < 10'000; ++i) {
    auto v = r.below(10);
    REQUIRE(v < 10);
    seen[v] = true;
    auto w = r.between(-3, 3);
    REQUIRE(w >= -3);
    REQUIRE(w <= 3);
  }
  for (bool s : seen) REQUIRE(s);
}

}  // namespace
}  // namespace lockstep
