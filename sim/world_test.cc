#include "sim/world.h"

#include <catch2/catch.hpp>

#include "sim/network.h"
#include "sim/wake.h"

namespace lockstep::sim {
namespace {

TEST_CASE("events run in time order - ties in scheduling order") {
  World w(1);
  auto p = w.add_process("p");
  std::vector<int> order;
  w.schedule_at(TrueTime(milliseconds(5)), p, [&] { order.push_back(2); });
  w.schedule_at(TrueTime(milliseconds(1)), p, [&] { order.push_back(1); });
  w.schedule_at(TrueTime(milliseconds(5)), p, [&] { order.push_back(3); });
  w.run_until(TrueTime(seconds(1)));
  REQUIRE(order == std::vector<int>{1, 2, 3});
  REQUIRE(w.now() == TrueTime(seconds(1)));
}

TEST_CASE("a paused process's events wait and run in order on resume") {
  World w(1);
  auto p = w.add_process("p");
  std::vector<std::int64_t> ran_at_ms;
  auto note = [&] { ran_at_ms.push_back(to_ms(w.now().time_since_epoch())); };
  w.schedule_at(TrueTime(milliseconds(10)), p, note);
  w.schedule_at(TrueTime(milliseconds(20)), p, note);
  w.schedule_at(TrueTime(milliseconds(5)), kWorldProcess, [&] { w.pause(p); });
  w.schedule_at(TrueTime(milliseconds(100)), kWorldProcess, [&] { w.resume(p); });
  w.run_until(TrueTime(seconds(1)));
  REQUIRE(ran_at_ms == std::vector<std::int64_t>{100, 100});
}

TEST_CASE("a crash drops pending events - a restart starts a new incarnation") {
  World w(1);
  auto p = w.add_process("p");
  int ran = 0, restarted = 0;
  w.set_restart_hook(p, [&] { ++restarted; });
  w.schedule_at(TrueTime(milliseconds(10)), p, [&] { ++ran; });
  w.schedule_at(TrueTime(milliseconds(5)), kWorldProcess, [&] { w.crash(p); });
  w.schedule_at(TrueTime(milliseconds(20)), kWorldProcess, [&] {
    w.restart(p);
    w.schedule_after(milliseconds(1), p, [&] { ++ran; });
  });
  w.run_until(TrueTime(seconds(1)));
  REQUIRE(ran == 1);
  REQUIRE(restarted == 1);
}

TEST_CASE("process clocks follow offset and drift - sleeps last on the local clock") {
  World w(1);
  auto p = w.add_process("slow");
  w.process(p).monotonic = ProcessClock(seconds(100), 500'000);  // half speed, +100 s
  w.run_until(TrueTime(seconds(10)));
  REQUIRE(w.local_monotonic(p) == seconds(105));
  bool fired = false;
  w.schedule_after_local(seconds(1), p, [&] { fired = true; });
  w.run_until(TrueTime(seconds(11) + milliseconds(999)));
  REQUIRE_FALSE(fired);
  w.run_until(TrueTime(seconds(12)));
  REQUIRE(fired);
}

TEST_CASE("clock jumps move the local clock only") {
  ProcessClock c;
  c.jump(TrueTime(seconds(1)), -milliseconds(300));
  REQUIRE(c.local_at(TrueTime(seconds(2))) == milliseconds(1700));
  c.set_rate(TrueTime(seconds(2)), 2'000'000);
  REQUIRE(c.local_at(TrueTime(seconds(3))) == milliseconds(3700));
}

TEST_CASE("the network is FIFO per link and drops messages across a partition") {
  World w(3);
  auto a = w.add_process("a");
  auto b = w.add_process("b");
  Network net(w, w.rng_for("net"), LatencyConfig{milliseconds(1), milliseconds(5)});
  std::vector<int> got;
  for (int i = 0; i < 50; ++i) net.send(a, b, [&, i] { got.push_back(i); });
  w.run_until(TrueTime(seconds(1)));
  REQUIRE(got.size() == 50);
  REQUIRE(std::is_sorted(got.begin(), got.end()));

  LinkRule cut;
  cut.from = {a};
  cut.to = {b};
  cut.blocked = true;
  auto id = net.add_rule(cut);
  net.send(a, b, [&] { got.push_back(99); });
  bool reverse = false;
  net.send(b, a, [&] { reverse = true; });  // one-way: b -> a still works
  w.run_until(TrueTime(seconds(2)));
  REQUIRE(got.size() == 50);
  REQUIRE(reverse);
  net.remove_rule(id);
  net.send(a, b, [&] { got.push_back(100); });
  w.run_until(TrueTime(seconds(3)));
  REQUIRE(got.back() == 100);
}

TEST_CASE("the same seed gives the same latencies") {
  auto trace = [](std::uint64_t seed) {
    World w(seed);
    auto a = w.add_process("a");
    auto b = w.add_process("b");
    Network net(w, w.rng_for("net"), LatencyConfig{milliseconds(1), milliseconds(5)});
    std::vector<std::int64_t> at;
    for (int i = 0; i < 20; ++i) {
      w.schedule_at(TrueTime(milliseconds(i * 10)), a, [&] {
        net.send(a, b, [&] { at.push_back(w.now().time_since_epoch().count()); });
      });
    }
    w.run_until(TrueTime(seconds(1)));
    return at;
  };
  REQUIRE(trace(7) == trace(7));
  REQUIRE(trace(7) != trace(8));
}

}  // namespace
}  // namespace lockstep::sim
