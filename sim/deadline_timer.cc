#include "lockstep/sim/deadline_timer.h"

namespace lockstep::sim {

void DeadlineTimer::arm_at_local(Duration local_deadline) {
  const Duration local_now = world_.local_monotonic(owner_);
  if (local_deadline < local_now) local_deadline = local_now;
  deadline_ = local_deadline;
  armed_ = true;
  const bool still_queued =
      queued_ && event_incarnation_ == world_.process(owner_).incarnation;
  if (still_queued && event_due_ <= local_deadline) return;  // it will find the later deadline
  if (still_queued) world_.cancel(event_);
  queue(local_deadline);
}

void DeadlineTimer::queue(Duration local_due) {
  queued_ = true;
  event_due_ = local_due;
  event_incarnation_ = world_.process(owner_).incarnation;
  event_ = world_.schedule_at_local(local_due, owner_, [this] { on_event(); });

}

void DeadlineTimer::on_event() {
  queued_ = false;
  if (!armed_) return;
  const Duration local_now = world_.local_monotonic(owner_);
  if (world_.running_held()) {
    queue(local_now);  // held by a pause: let the events held with it run first
    return;
  }
  if (local_now < deadline_) {
    queue(deadline_);
    return;
  }
  armed_ = false;
  action_();
}

}  // namespace lockstep::sim
