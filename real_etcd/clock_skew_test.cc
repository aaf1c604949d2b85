#include "lockstep/real_etcd/clock_skew.h"

#include <catch2/catch.hpp>

namespace lockstep::real {
namespace {

TEST_CASE("an unskewed clock is the real clock") {
  ClockSkew c;
  REQUIRE(c.local(seconds(5)) == seconds(5));
  REQUIRE(c.real_duration_for(milliseconds(250)) == milliseconds(250));
}

TEST_CASE("a jump moves the clock at once - forwards or backwards") {
  ClockSkew c;
  c.jump(seconds(3));
  REQUIRE(c.local(seconds(1)) == seconds(4));
  c.jump(-seconds(10));
  REQUIRE(c.local(seconds(1)) == -seconds(6));
}

TEST_CASE("drift scales elapsed time from the moment it is set - without a jump") {
  ClockSkew c;
  c.set_drift_rate(0.5, seconds(10));  // from real 10 s on, the clock runs 1.5x fast
  REQUIRE(c.local(seconds(10)) == seconds(10));
  REQUIRE(c.local(seconds(12)) == seconds(13));
  // Sleeping 3 s on this clock takes 2 s of real time.
  REQUIRE(c.real_duration_for(seconds(3)) == seconds(2));
  c.set_drift_rate(-0.5, seconds(12));  // now half speed, continuing from 13 s
  REQUIRE(c.local(seconds(12)) == seconds(13));
  REQUIRE(c.local(seconds(16)) == seconds(15));
}

}  // namespace
}  // namespace lockstep::real
