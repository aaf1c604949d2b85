// The configuration cache: a configuration is new once; one whose indeterminate set contains
// a recorded one's (same D, same state) is covered; a smaller one is recorded and covers the
// larger from then on; without indeterminate words (D, state) is the whole key.
#include "lockstep/checker/config_cache.h"

#include <catch2/catch.hpp>

namespace lockstep {

TEST_CASE("config cache: exact repeats and covered supersets are not new") {
  ConfigCache c(1, 1);
  const std::uint64_t d = 0b101;
  std::uint64_t i_small = 0b0001, i_big = 0b0011, i_other = 0b0100;
  CHECK(c.insert(42, 7, &d, &i_big));
  CHECK_FALSE(c.insert(42, 7, &d, &i_big));   // the same configuration
  CHECK(c.insert(42, 7, &d, &i_small));       // smaller: new, and covers i_big from now on
  CHECK_FALSE(c.insert(42, 7, &d, &i_big));
  std::uint64_t i_small_plus = i_small | 0b1000;
  CHECK_FALSE(c.insert(42, 7, &d, &i_small_plus));  // contains i_small
  CHECK(c.insert(42, 7, &d, &i_other));             // incomparable: new
  CHECK(c.insert(42, 8, &d, &i_big));               // another state
  const std::uint64_t d2 = 0b111;
  CHECK(c.insert(43, 7, &d2, &i_big));              // another D
  CHECK(c.size() == 5);
  CHECK(c.bytes() > 0);
}

TEST_CASE("config cache: without indeterminate operations - and through many grows") {
  ConfigCache c(2, 0);
  for (std::uint64_t k = 0; k < 100000; ++k) {
    const std::uint64_t d[2] = {k, ~k};
    // A weak hash on purpose: the table must still tell keys apart by their D words.
    REQUIRE(c.insert(k * 0x9e3779b97f4a7c15ULL, static_cast<std::uint32_t>(k % 3), d, nullptr));
  }
  for (std::uint64_t k = 0; k < 100000; k += 997) {
    const std::uint64_t d[2] = {k, ~k};
    CHECK_FALSE(c.insert(k * 0x9e3779b97f4a7c15ULL, static_cast<std::uint32_t>(k % 3), d, nullptr));
  }
  const std::uint64_t same_hash_other_d[2] = {5, 5};
  CHECK(c.insert(5 * 0x9e3779b97f4a7c15ULL, 2, same_hash_other_d, nullptr));
  CHECK(c.size() == 100001);
}

}  // namespace lockstep
