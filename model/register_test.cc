#include "lockstep/model/register.h"

#include <catch2/catch.hpp>

#include "lockstep/model/kv_map.h"

namespace lockstep::model {

TEST_CASE("cas register: reads see the last write - cas compares") {
  CasRegister m;
  using K = CasRegister::Kind;
  CasRegister::Output none{}, read_nil{std::nullopt}, read3{3}, ok{std::nullopt, true},
      failed{std::nullopt, false};
  auto s = m.init();
  CHECK(m.step(s, {K::read}, &read_nil));
  CHECK_FALSE(m.step(s, {K::read}, &read3));
  CHECK_FALSE(m.step(s, {K::cas, 1, 0}, &ok));  // absent never equals 0
  auto w = m.step(s, {K::write, 3}, &none);
  REQUIRE(w);
  CHECK(m.step(*w, {K::read}, &read3));
  auto c = m.step(*w, {K::cas, 4, 3}, &ok);
  REQUIRE(c);
  CHECK(*c == CasRegister::Value{4});
  CHECK_FALSE(m.step(*w, {K::cas, 4, 2}, &ok));
  auto f = m.step(*w, {K::cas, 4, 2}, &failed);
  REQUIRE(f);
  CHECK(*f == CasRegister::Value{3});
  CHECK_FALSE(m.step(*w, {K::cas, 4, 3}, &failed));  // it matched, so it cannot have failed
}

TEST_CASE("cas register: an indeterminate cas applies exactly when it matches") {
  CasRegister m;
  using K = CasRegister::Kind;
  CasRegister::State three{3};
  CHECK(*m.step(three, {K::cas, 9, 3}, nullptr) == CasRegister::Value{9});
  CHECK(*m.step(three, {K::cas, 9, 1}, nullptr) == CasRegister::Value{3});
  CHECK(*m.step(three, {K::read}, nullptr) == CasRegister::Value{3});
}

TEST_CASE("kv key: get - put - append") {
  KvKey m;
  using K = KvKey::Kind;
  KvKey::Output none{}, empty{""}, ab{"ab"};
  auto s = m.init();
  CHECK(m.step(s, {K::get, ""}, &empty));
  auto a = m.step(s, {K::append, "a"}, &none);
  auto b = m.step(*a, {K::append, "b"}, &none);
  CHECK(m.step(*b, {K::get, ""}, &ab));
  CHECK_FALSE(m.step(*a, {K::get, ""}, &ab));
  CHECK(*m.step(*b, {K::put, "z"}, &none) == "z");
}

}  // namespace lockstep::model
