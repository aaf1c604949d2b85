#include "lockstep/sim/deadline_timer.h"

#include <catch2/catch.hpp>
#include <vector>

#include "lockstep/sim/world.h"

namespace lockstep::sim {
namespace {

TrueTime at_ms(std::int64_t ms) { return TrueTime(milliseconds(ms)); }

// A world with one process and its timer, whose action notes when it ran.
struct TimerWorld {
  World w{1};
  ProcessId p = w.add_process("p");
  std::vector<TrueTime> ran;
  DeadlineTimer timer{w, p, [this] { ran.push_back(w.now()); }};
};

TEST_CASE("deadline timer: the action runs once at the latest deadline armed") {
  TimerWorld t;
  auto& [w, p, ran, timer] = t;
  timer.arm_at(at_ms(100));
  // Pushed later twice from inside events, as a leader's messages push an election timeout.
  w.schedule_at(at_ms(50), p, [&] { timer.arm_at(at_ms(150)); });
  w.schedule_at(at_ms(120), p, [&] { timer.arm_at(at_ms(300)); });
  w.run_until(at_ms(1000));
  REQUIRE(ran == std::vector<TrueTime>{at_ms(300)});
  REQUIRE_FALSE(timer.armed());
  // Moving later queued nothing new: the one event ran at 100 and 150 (and 300), plus the two
  // arming events.
  REQUIRE(w.events_run() == 5);
}

TEST_CASE("deadline timer: a deadline moved earlier runs early - the old event does nothing") {
  TimerWorld t;
  auto& [w, p, ran, timer] = t;
  timer.arm_at(at_ms(500));
  w.schedule_at(at_ms(10), p, [&] { timer.arm_at(at_ms(40)); });
  w.run_until(at_ms(1000));
  REQUIRE(ran == std::vector<TrueTime>{at_ms(40)});
  REQUIRE(w.idle());
}

TEST_CASE("deadline timer: disarmed it runs nothing - re-armed it runs at the new deadline") {
  TimerWorld t;
  auto& [w, p, ran, timer] = t;
  timer.arm_at(at_ms(100));
  w.schedule_at(at_ms(60), p, [&] { timer.disarm(); });
  w.run_until(at_ms(200));
  REQUIRE(ran.empty());
  timer.arm_at(at_ms(250));
  REQUIRE(timer.armed());
  REQUIRE(timer.deadline() == milliseconds(250));
  w.run_until(at_ms(260));
  REQUIRE(ran == std::vector<TrueTime>{at_ms(250)});
}

TEST_CASE("deadline timer: after a pause the messages held with it run first and may move it") {
  TimerWorld t;
  auto& [w, p, ran, timer] = t;
  timer.arm_at(at_ms(100));
  w.pause(p);
  // Came during the pause, after the deadline: it still runs before the timer's action.
  w.schedule_at(at_ms(150), p, [&] { timer.arm_at(w.now() + milliseconds(100)); });
  w.run_until(at_ms(400));
  REQUIRE(ran.empty());
  w.resume(p);
  w.run_until(at_ms(450));
  REQUIRE(ran.empty());  // moved to 400 + 100 by the held message
  w.run_until(at_ms(600));
  REQUIRE(ran == std::vector<TrueTime>{at_ms(500)});
}

TEST_CASE("deadline timer: a crash drops its event - armed again after a restart it runs") {
  TimerWorld t;
  auto& [w, p, ran, timer] = t;
  timer.arm_at(at_ms(100));
  w.crash(p);
  w.run_until(at_ms(200));
  REQUIRE(ran.empty());
  w.restart(p);
  // Later than the dropped event's time: the timer must not count on that event.
  timer.arm_at(at_ms(300));
  w.run_until(at_ms(400));
  REQUIRE(ran == std::vector<TrueTime>{at_ms(300)});
}

TEST_CASE("deadline timer: destroying it cancels its event") {
  World w(1);
  const auto p = w.add_process("p");
  int runs = 0;
  {
    DeadlineTimer timer(w, p, [&] { ++runs; });
    timer.arm_at(at_ms(100));
  }
  w.run_until(at_ms(200));
  REQUIRE(runs == 0);
  REQUIRE(w.events_run() == 0);
}

TEST_CASE("deadline timer: a deadline on the owner's clock follows the owner's rate") {
  TimerWorld t;
  auto& [w, p, ran, timer] = t;
  w.process(p).monotonic.set_rate(w.now(), 2 * ProcessClock::kNominalRatePpm);  // twice as fast
  timer.arm_after_local(milliseconds(100));
  w.run_until(at_ms(1000));
  REQUIRE(ran == std::vector<TrueTime>{at_ms(50)});
}

TEST_CASE("deadline timer: a rate change after arming moves the deadline, as a real timer's") {
  TimerWorld t;
  auto& [w, p, ran, timer] = t;
  timer.arm_after_local(milliseconds(100));
  // At 40 ms the clock slows to half speed: the 60 ms left on it take 120 ms.
  w.schedule_at(at_ms(40), kWorldProcess,
                [&w, pid = p] { w.set_monotonic_rate(pid, ProcessClock::kNominalRatePpm / 2); });
  w.run_until(at_ms(1000));
  REQUIRE(ran == std::vector<TrueTime>{at_ms(160)});
}

}  // namespace
}  // namespace lockstep::sim
