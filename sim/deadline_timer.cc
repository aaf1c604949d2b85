#include "sim/deadline_timer.h"

namespace lockstep::sim {

void DeadlineTimer::arm_at(TrueTime at) {
  if (at < world_.now()) at = world_.now();
  deadline_ = at;
  armed_ = true;
  const bool still_queued =
      queued_ && event_incarnation_ == world_.process(owner_).incarnation;
  if (still_queued && event_at_ <= at) return;  // it will find the later deadline
  if (still_queued) world_.cancel(event_);
  queue(at);
}

void DeadlineTimer::queue(TrueTime at) {
  queued_ = true;
  event_at_ = at;
  event_incarnation_ = world_.process(owner_).incarnation;
  event_ = world_.schedule_at(at, owner_, [this] { on_event(); });
}

void DeadlineTimer::on_event() {
  queued_ = false;
  if (!armed_) return;
  const TrueTime now = world_.now();
  if (now > event_at_) {
    queue(now);  // held by a pause: let the events held with it run first
    return;
  }
  if (now < deadline_) {
    queue(deadline_);
    return;
  }
  armed_ = false;
  action_();
}

}  // namespace lockstep::sim
