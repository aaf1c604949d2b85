#include "lockstep/sim/event_fn.h"

#include <array>
#include <catch2/catch.hpp>
#include <memory>
#include <utility>

namespace lockstep::sim {
namespace {

// Counts live copies of itself, so a test sees every construction and destruction.
struct Counted {
  int* live;
  explicit Counted(int* l) : live(l) { ++*live; }
  Counted(const Counted& o) : live(o.live) { ++*live; }
  Counted(Counted&& o) noexcept : live(o.live) { ++*live; }
  ~Counted() { --*live; }
};

TEST_CASE("EventFn runs small and large callables, and destroys each exactly once", "[event_fn]") {
  int live = 0;
  int calls = 0;
  {
    Counted small(&live);
    EventFn a = [c = small, &calls] { calls += 1; };  // fits inline
    std::array<char, 200> big{};
    big[199] = 5;
    EventFn b = [c = small, big, &calls] { calls += big[199]; };  // on the heap
    REQUIRE(live == 3);
    a();
    b();
    REQUIRE(calls == 6);

    EventFn moved_a = std::move(a);
    EventFn moved_b = std::move(b);
    REQUIRE(!a);
    REQUIRE(!b);
    REQUIRE(live == 3);  // moving relocates, it does not copy
    moved_a();
    moved_b();
    REQUIRE(calls == 12);

    moved_a = nullptr;
    REQUIRE(live == 2);
    moved_b = std::move(moved_a);  // an empty one replaces the heap one: its callable dies
    REQUIRE(live == 1);
    REQUIRE(!moved_b);
  }
  REQUIRE(live == 0);
}

TEST_CASE("EventFn holds move-only callables and keeps their state between calls", "[event_fn]") {
  auto owned = std::make_unique<int>(41);
  const int* observed = owned.get();
  EventFn f = [p = std::move(owned)]() mutable { ++*p; };
  f();
  EventFn g = std::move(f);
  g();
  REQUIRE(*observed == 43);  // one int, incremented before and after the move
}

}  // namespace
}  // namespace lockstep::sim
