#include "lockstep/model/mutex.h"

#include <catch2/catch.hpp>

namespace lockstep::model {

TEST_CASE("owner mutex: only a free lock can be acquired - only the holder releases") {
  OwnerMutex m;
  OwnerMutex::Output done;
  auto s = m.init();
  CHECK(s == 0);
  auto held = m.step(s, {OwnerMutex::Kind::acquire, 1}, &done);
  REQUIRE(held);
  CHECK(*held == 1);
  CHECK_FALSE(m.step(*held, {OwnerMutex::Kind::acquire, 2}, &done));
  CHECK_FALSE(m.step(*held, {OwnerMutex::Kind::release, 2}, &done));  // not the holder
  CHECK_FALSE(m.step(s, {OwnerMutex::Kind::release, 1}, &done));      // nobody holds it
  auto freed = m.step(*held, {OwnerMutex::Kind::release, 1}, &done);
  REQUIRE(freed);
  CHECK(*freed == 0);
}

TEST_CASE("fenced mutex: tokens strictly increase across holders") {
  FencedMutex m;
  using K = FencedMutex::Kind;
  FencedMutex::Output t5{5}, t4{4}, t6{6}, none{};
  auto s = m.init();
  auto a = m.step(s, {K::acquire, 1, {}}, &t5);
  REQUIRE(a);
  CHECK(a->token == 5);
  auto r = m.step(*a, {K::release, 1, 5}, &none);
  REQUIRE(r);
  CHECK_FALSE(m.step(*r, {K::acquire, 2, {}}, &t4));  // went backwards
  CHECK_FALSE(m.step(*r, {K::acquire, 2, {}}, &t5));  // repeated
  CHECK(m.step(*r, {K::acquire, 2, {}}, &t6));
  CHECK_FALSE(m.step(*a, {K::release, 1, 4}, &none));  // not the holder's token
  CHECK_FALSE(m.step(*a, {K::release, 2, {}}, &none));  // not the holder
}

TEST_CASE("fenced mutex: an unknown token contradicts nothing it cannot know") {
  FencedMutex m;
  using K = FencedMutex::Kind;
  FencedMutex::Output t5{5}, t6{6}, none{};
  auto a = m.step(m.init(), {K::acquire, 1, {}}, &t5);
  auto r = m.step(*a, {K::release, 1, 5}, &none);
  auto unknown = m.step(*r, {K::acquire, 2, {}}, nullptr);  // indeterminate acquire
  REQUIRE(unknown);
  CHECK(m.step(*unknown, {K::release, 2, 7}, &none));  // its token is unknown
  auto r2 = m.step(*unknown, {K::release, 2, {}}, &none);
  CHECK(m.step(*r2, {K::acquire, 3, {}}, &t6));
  CHECK_FALSE(m.step(*r2, {K::acquire, 3, {}}, &t5));  // still must exceed the last seen
}

}  // namespace lockstep::model
