// DeadlineTimer: one action of a process, due at a deadline that mostly moves later.
//
// Contract:
//   - arm_at_local(t) makes the action due when the owner's monotonic clock reads `t` (now if
//     it does already), replacing the deadline of an earlier arming; disarm() withdraws it.
//     The deadline is on the owner's clock: a later change of the clock's rate or a jump
//     moves it (World::set_monotonic_rate). An armed action runs once, as an
//     event of the owner (so a pause holds it and a crash drops it, as any event of the owner),
//     at its deadline, and is then disarmed.
//   - Moving an armed deadline later queues nothing: the event already queued for the earlier
//     deadline finds the later one and queues itself again for it. Moving it earlier cancels
//     that event and queues a new one.
//     Why: a follower's election timeout moves later with every message from its leader, and
//     a request's deadline is nearly always overtaken by its reply. One event cancelled and
//     one queued for each cost about 7 % of a simulated KV request's instructions.
//   - An event held by a pause runs after its deadline. It then queues itself once more, at
//     the same time, so that the events held with it (messages that came during the pause)
//     run first and may move the deadline, as they would have before the deadline came.
//   - The timer must outlive the events it queued: destroying it cancels them.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

#include "lockstep/kv/time.h"
#include "lockstep/sim/world.h"

namespace lockstep::sim {

class DeadlineTimer {
 public:
  DeadlineTimer(World& world, ProcessId owner, std::function<void()> action)
      : world_(world), owner_(owner), action_(std::move(action)) {}
  ~DeadlineTimer() { world_.cancel(event_); }
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;

  void arm_at_local(Duration local_deadline);
  // Due at true time `at`, as the owner's clock reads it now.
  void arm_at(TrueTime at) { arm_at_local(world_.process(owner_).monotonic.local_at(at)); }
  // Due after `local_delay` on the owner's monotonic clock.
  void arm_after_local(Duration local_delay) {
    arm_at_local(world_.local_monotonic(owner_) + local_delay);
  }
  // Due at `local_deadline` unless already armed for an earlier one: for a timer that serves
  // the earliest of several deadlines.
  void arm_no_later_than_local(Duration local_deadline) {
    if (!armed_ || local_deadline < deadline_) arm_at_local(local_deadline);
  }
  void disarm() { armed_ = false; }  // a queued event finds nothing to do
  bool armed() const { return armed_; }
  Duration deadline() const { return deadline_; }  // on the owner's monotonic clock

 private:
  void queue(Duration local_due);
  void on_event();

  World& world_;
  const ProcessId owner_;
  std::function<void()> action_;
  bool armed_ = false;
  Duration deadline_{0};
  // The queued event, if any: the owner's clock reading it comes due at, and the owner's
  // incarnation it was queued in (a crash drops it without telling the timer).
  bool queued_ = false;
  World::EventId event_;
  Duration event_due_{0};
  std::uint64_t event_incarnation_ = 0;
};

}  // namespace lockstep::sim
