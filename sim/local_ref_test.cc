#include <catch2/catch.hpp>
#include <utility>
#include <vector>

#include "lockstep/sim/local_ref.h"

namespace lockstep::sim {
namespace {

// Counts its own destructions into *destroyed.
struct Base : LocalCounted {
  explicit Base(int* destroyed) : destroyed(destroyed) {}
  ~Base() override { ++*destroyed; }
  int* destroyed;
};
struct Derived : Base {
  Derived(int* destroyed, std::vector<int> payload) : Base(destroyed), payload(std::move(payload)) {}
  std::vector<int> payload;  // owns memory: a delete through Base must free it (ASan checks)
};

TEST_CASE("local ref: the object goes with its last reference, copies and moves counted right") {
  int destroyed = 0;
  LocalRef<Base> kept;
  {
    LocalRef<Base> first = make_local<Base>(&destroyed);
    LocalRef<Base> copy = first;
    LocalRef<Base> moved = std::move(copy);
    REQUIRE_FALSE(copy);  // NOLINT(bugprone-use-after-move): a moved-from reference is empty
    REQUIRE(moved.get() == first.get());
    kept = moved;
  }
  REQUIRE(destroyed == 0);  // `kept` still holds it
  LocalRef<Base> other = kept;
  kept.reset();
  REQUIRE(destroyed == 0);
  other = LocalRef<Base>();
  REQUIRE(destroyed == 1);
}

TEST_CASE("local ref: a reference seen as its base keeps the derived object, and deletes it whole") {
  int destroyed = 0;
  LocalRef<Base> as_base;
  {
    LocalRef<Derived> derived = make_local<Derived>(&destroyed, std::vector<int>{1, 2, 3});
    as_base = derived;
  }
  REQUIRE(destroyed == 0);
  REQUIRE(static_cast<Derived&>(*as_base).payload.size() == 3);
  as_base.reset();
  REQUIRE(destroyed == 1);
}

TEST_CASE("local ref: self-assignment and swaps keep the count") {
  int destroyed = 0;
  LocalRef<Base> a = make_local<Base>(&destroyed);
  LocalRef<Base> b = make_local<Base>(&destroyed);
  Base* const a_object = a.get();
  LocalRef<Base>& same = a;
  a = same;  // self-assignment, through a reference
  REQUIRE(a.get() == a_object);
  a.swap(b);
  REQUIRE(b.get() == a_object);
  b.reset();
  REQUIRE(destroyed == 1);
  a.reset();
  REQUIRE(destroyed == 2);
}

}  // namespace
}  // namespace lockstep::sim
