#include "lockstep/sim/world.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>

#include "lockstep/sim/box.h"
#include "lockstep/sim/network.h"
#include "lockstep/sim/wake.h"

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

TEST_CASE("near and far events, some cancelled, run in (time, scheduling) order - none lost") {
  // Times from microseconds to beyond the far ring's reach (17 s), scheduled from inside
  // events too, with many ties; a third are cancelled. Expected order: sort by (time, seq).
  World w(7);
  auto p = w.add_process("p");
  Rng rng(99);
  struct Planned {
    std::int64_t at_ns;
    std::uint64_t seq;
    bool cancelled;
  };
  std::vector<Planned> planned;
  std::vector<World::EventId> ids;
  std::vector<std::uint64_t> ran;
  std::uint64_t next = 0;
  std::function<void(int)> plan = [&](int depth) {
    const std::uint64_t seq = next++;
    const std::int64_t spans_ns[] = {1'000, 2'000'000, 300'000'000, 5'000'000'000, 40'000'000'000};
    const std::int64_t span = spans_ns[rng.below(5)];
    // Rounded to 1 ms half of the time, so that ties in time are common.
    std::int64_t delay = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(span)));
    if (rng.chance(0.5)) delay -= delay % 1'000'000;
    const std::int64_t at = w.now().time_since_epoch().count() + delay;
    planned.push_back({at, seq, false});
    ids.push_back(w.schedule_at(TrueTime(Duration(at)), p, [&, seq, depth] {
      ran.push_back(seq);
      if (depth < 3 && rng.chance(0.5)) plan(depth + 1);
      if (!ids.empty() && rng.chance(0.3)) {  // cancel a random pending one
        const std::size_t victim = rng.below(ids.size());
        if (!planned[victim].cancelled &&
            std::find(ran.begin(), ran.end(), planned[victim].seq) == ran.end()) {
          planned[victim].cancelled = true;
          w.cancel(ids[victim]);
        }
      }
    }));
  };
  for (int i = 0; i < 400; ++i) plan(0);
  w.run_until(TrueTime(seconds(200)));
  REQUIRE(w.idle());
  // Every event not cancelled ran exactly once, in (time, seq) order.
  std::vector<Planned> expected;
  for (const auto& e : planned)
    if (!e.cancelled) expected.push_back(e);
  std::sort(expected.begin(), expected.end(), [](const Planned& a, const Planned& b) {
    return a.at_ns != b.at_ns ? a.at_ns < b.at_ns : a.seq < b.seq;
  });
  REQUIRE(ran.size() == expected.size());
  for (std::size_t i = 0; i < ran.size(); ++i) REQUIRE(ran[i] == expected[i].seq);
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

TEST_CASE("the network is FIFO per link, and a one-way cut holds one direction only") {
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
  REQUIRE(got.size() == 50);  // held by the cut
  REQUIRE(reverse);
  net.remove_rule(id);
  net.send(a, b, [&] { got.push_back(100); });
  w.run_until(TrueTime(seconds(5)));
  REQUIRE(got.size() == 52);
  REQUIRE(got[50] == 99);  // what the cut held comes first
  REQUIRE(got.back() == 100);
}

TEST_CASE("an event runs in its slot: it may schedule thousands more and cancel itself") {
  // Events are built and run in place; scheduling adds slot chunks while one runs, which must
  // not move it (ASan would see the closure's string read after a move freed it).
  World w(5);
  auto p = w.add_process("p");
  std::vector<int> later;
  std::string seen;
  World::EventId self;
  self = w.schedule_at(TrueTime(milliseconds(1)), p, [&, text = std::string(100, 'x')] {
    for (int i = 0; i < 5000; ++i)
      w.schedule_at(TrueTime(milliseconds(2 + i % 7)), p, [&later, i] { later.push_back(i); });
    w.cancel(self);  // the running event is no longer pending: a no-op
    seen = text;
  });
  w.run_until(TrueTime(seconds(1)));
  REQUIRE(seen == std::string(100, 'x'));
  REQUIRE(later.size() == 5000);
  REQUIRE(std::is_sorted(later.begin(), later.end(), [](int a, int b) { return a % 7 < b % 7; }));
  REQUIRE(w.idle());
}

// Events numbered i at 30 s + (i * 7919 % 1000) ms: beyond the far ring (17 s), so their keys
// go straight into the heap, and many share a time.
struct FarEvents {
  explicit FarEvents(std::uint64_t seed) : w(seed), p(w.add_process("p")) {}
  static TrueTime time_of(int i) { return TrueTime(seconds(30) + milliseconds((i * 7919) % 1000)); }
  void schedule(int i) {
    ids.push_back(w.schedule_at(time_of(i), p, [this, i] { ran.push_back(i); }));
  }
  // `numbers` in the order they should run: by time, ties in scheduling (number) order.
  static std::vector<int> in_time_order(std::vector<int> numbers) {
    std::stable_sort(numbers.begin(), numbers.end(),
                     [](int a, int b) { return time_of(a) < time_of(b); });
    return numbers;
  }
  World w;
  ProcessId p;
  std::vector<int> ran;
  std::vector<World::EventId> ids;
};

TEST_CASE("cancelled events beyond the far ring leave the heap, the rest run in order") {
  // Cancelling 900 of 1000 leaves more stale keys than live ones, which rebuilds the heap.
  FarEvents f(6);
  for (int i = 0; i < 1000; ++i) f.schedule(i);
  std::vector<int> kept;
  for (int i = 0; i < 1000; ++i) {
    if (i % 10 == 3) {
      kept.push_back(i);
    } else {
      f.w.cancel(f.ids[static_cast<std::size_t>(i)]);
    }
  }
  f.w.run_until(TrueTime(seconds(40)));
  REQUIRE(f.ran == FarEvents::in_time_order(kept));
  REQUIRE(f.w.idle());
}

TEST_CASE("an event that rebuilds the heap by cancelling, then schedules, keeps the order") {
  // The running event's key stays at the heap's root until the event's first schedule (see
  // World::run_front); a rebuild inside the event must not take it for a live one, nor lose it.
  FarEvents f(8);
  for (int i = 0; i < 1000; ++i) f.schedule(i);
  f.w.schedule_at(TrueTime(seconds(1)), f.p, [&f] {
    f.ran.push_back(-1);
    for (int i = 0; i < 1000; ++i)
      if (i % 10 != 3) f.w.cancel(f.ids[static_cast<std::size_t>(i)]);
    for (int i = 1000; i < 1005; ++i) f.schedule(i);
  });
  std::vector<int> kept;
  for (int i = 0; i < 1005; ++i)
    if (i >= 1000 || i % 10 == 3) kept.push_back(i);
  std::vector<int> expected = FarEvents::in_time_order(kept);
  expected.insert(expected.begin(), -1);
  f.w.run_until(TrueTime(seconds(40)));
  REQUIRE(f.ran == expected);
  REQUIRE(f.w.idle());
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

TEST_CASE("a timer on a process's clock follows later rate changes and jumps of that clock") {
  World w(9);
  const ProcessId p = w.add_process("p");
  std::vector<std::int64_t> fired_ms;
  auto record = [&] { fired_ms.push_back(to_ms(w.now().time_since_epoch())); };
  w.schedule_after_local(seconds(1), p, record);                   // slowed: fires at 1500 ms
  const auto cancelled = w.schedule_after_local(seconds(1), p, record);
  w.schedule_after_local(seconds(30), p, record);                  // beyond the far ring
  w.schedule_at(TrueTime(milliseconds(500)), kWorldProcess, [&] {
    w.set_monotonic_rate(p, ProcessClock::kNominalRatePpm / 2);  // the 500 ms left take 1 s
    w.cancel(cancelled);                                          // a moved timer still cancels
  });
  w.schedule_at(TrueTime(milliseconds(2000)), kWorldProcess, [&] {
    w.set_monotonic_rate(p, ProcessClock::kNominalRatePpm);
    w.jump_monotonic(p, seconds(10));  // a jump: 10 s of the 30 s timer pass at once
  });
  w.run_until(TrueTime(seconds(60)));
  // The 30 s timer's clock reads 0.5 s at 500 ms, 1.25 s at 2 s, 11.25 s after the jump; the
  // 18.75 s left run at nominal speed: it fires at 20.75 s.
  REQUIRE(fired_ms == std::vector<std::int64_t>{1500, 20750});
  REQUIRE(w.idle());
}

}  // namespace
}  // namespace lockstep::sim
