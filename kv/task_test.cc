#include "lockstep/kv/task.h"

#include <catch2/catch.hpp>
#include <coroutine>
#include <vector>

namespace lockstep {
namespace {

Task<int> immediate(int x) { co_return x + 1; }

Task<long> sum_immediate(int n) {
  long total = 0;
  for (int i = 0; i < n; ++i) total += co_await immediate(i);
  co_return total;
}

// A hand-driven "executor": awaiting Suspend parks the coroutine in `parked`.
struct Parking {
  std::vector<std::coroutine_handle<>> parked;
};

struct Suspend {
  Parking* parking;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) { parking->parked.push_back(h); }
  void await_resume() const noexcept {}
};

Task<int> parks_then_returns(Parking* p, int x) {
  co_await Suspend{p};
  co_return x * 2;
}

Task<int> nested(Parking* p) {
  int a = co_await parks_then_returns(p, 3);
  int b = co_await immediate(a);
  int c = co_await parks_then_returns(p, b);
  co_return c;
}

struct Tracker {
  int* destroyed;
  ~Tracker() { ++*destroyed; }
};

Task<void> holds_tracker(Parking* p, int* destroyed) {
  Tracker t{destroyed};
  co_await Suspend{p};
}

Task<void> outer_holds_tracker(Parking* p, int* destroyed) {
  Tracker t{destroyed};
  co_await holds_tracker(p, destroyed);
}

void drive(Parking& p) {
  while (!p.parked.empty()) {
    auto h = p.parked.back();
    p.parked.pop_back();
    h.resume();
  }
}

TEST_CASE("a million immediately-completing awaits in one loop do not overflow the stack") {
  const int n = 1'000'000;
  long result = 0;
  RootTask counted([](long* out, int count) -> Task<void> {
    *out = co_await sum_immediate(count);
  }(&result, n));
  counted.start();
  REQUIRE(counted.done());
  // sum of (i + 1) for i in [0, n)
  REQUIRE(result == static_cast<long>(n) * (n + 1) / 2);
}

TEST_CASE("a task that suspends resumes its parent when it finishes") {
  Parking p;
  int result = 0;
  bool hook_called = false;
  RootTask root([](Parking* park, int* out) -> Task<void> { *out = co_await nested(park); }(&p, &result));
  root.set_done_hook([](void* flag) { *static_cast<bool*>(flag) = true; }, &hook_called);
  root.start();
  REQUIRE_FALSE(root.done());
  REQUIRE(p.parked.size() == 1);
  drive(p);
  REQUIRE(root.done());
  REQUIRE(hook_called);
  REQUIRE(result == 14);  // 3*2=6, +1=7, 7*2=14
}

TEST_CASE("a root finishing synchronously still calls its done hook") {
  bool hook_called = false;
  RootTask root([]() -> Task<void> { co_return; }());
  root.set_done_hook([](void* flag) { *static_cast<bool*>(flag) = true; }, &hook_called);
  root.start();
  REQUIRE(root.done());
  REQUIRE(hook_called);
}

TEST_CASE("destroying a suspended tree destroys every frame in it") {
  Parking p;
  int destroyed = 0;
  {
    RootTask root(outer_holds_tracker(&p, &destroyed));
    root.start();
    REQUIRE(p.parked.size() == 1);
    REQUIRE(destroyed == 0);
  }
  REQUIRE(destroyed == 2);
}

TEST_CASE("exceptions escaping a task reach the awaiter") {
  auto thrower = []() -> Task<int> {
    throw std::runtime_error("bug");
    co_return 1;
  };
  bool caught = false;
  RootTask root([](bool* c, auto make) -> Task<void> {
    try {
      (void)co_await make();
    } catch (const std::runtime_error&) {
      *c = true;
    }
  }(&caught, thrower));
  root.start();
  REQUIRE(root.done());
  REQUIRE(caught);
}

}  // namespace
}  // namespace lockstep
