// Timer: a one-shot callback on the loop after a real (monotonic) delay, backed by
// grpc::Alarm on the loop's completion queue. Private to real_etcd/.
//
// Contract:
//   - Timer::start() arms a heap-allocated alarm; `fire(arg)` runs on the loop thread when it
//     expires, unless cancel() came first. After fire ran, the TimerHandle is stale: the
//     callback must forget its handle (see SleepAwaiter).
//   - The alarm's state frees itself when its event comes back (expired or cancelled), so a
//     cancelled timer never leaves a dangling tag in the queue.
#pragma once

#include <grpcpp/alarm.h>

#include <coroutine>
#include <utility>

#include "lockstep/kv/time.h"
#include "lockstep/real_etcd/loop_core.h"

namespace lockstep::real {

class TimerHandle;

class Timer final : public CqTag {
 public:
  using Fire = void (*)(void* arg);

  static TimerHandle start(LoopCore& core, Duration delay, Fire fire, void* arg);

  void on_cq_event(bool /*ok*/) override {
    // ok is false when cancelled; `cancelled_` also covers an expiry racing a cancel.
    const Fire fire = fire_;
    void* arg = arg_;
    const bool run = !cancelled_;
    delete this;
    if (run) fire(arg);  // last: the callback may resume a coroutine that starts new timers
  }

 private:
  friend class TimerHandle;
  Timer(Fire fire, void* arg) : fire_(fire), arg_(arg) {}
  ~Timer() = default;

  grpc::Alarm alarm_;
  Fire fire_;
  void* arg_;
  bool cancelled_ = false;
};

// Owner's side of an armed timer: cancel() is idempotent; the callback must call forget()
// (or the owner must otherwise drop the handle) once the timer fired.
class TimerHandle {
 public:
  TimerHandle() = default;
  explicit TimerHandle(Timer* t) : timer_(t) {}
  TimerHandle(TimerHandle&& o) noexcept : timer_(std::exchange(o.timer_, nullptr)) {}
  TimerHandle& operator=(TimerHandle&& o) noexcept {
    if (this != &o) {
      cancel();
      timer_ = std::exchange(o.timer_, nullptr);
    }
    return *this;
  }
  ~TimerHandle() { cancel(); }

  bool armed() const { return timer_ != nullptr; }
  void cancel() {
    if (timer_) {
      timer_->cancelled_ = true;
      timer_->alarm_.Cancel();
      timer_ = nullptr;
    }
  }
  void forget() { timer_ = nullptr; }

 private:
  Timer* timer_ = nullptr;
};

inline TimerHandle Timer::start(LoopCore& core, Duration delay, Fire fire, void* arg) {
  auto* t = new Timer(fire, arg);
  if (delay < Duration::zero()) delay = Duration::zero();
  t->alarm_.Set(core.cq(), monotonic_deadline(delay), core.issue(t));
  return TimerHandle(t);
}

// co_await SleepAwaiter{core, d}: resumes after d of real time. Destroying the awaiting
// frame cancels the alarm.
class SleepAwaiter {
 public:
  SleepAwaiter(LoopCore& core, Duration delay) : core_(core), delay_(delay) {}
  SleepAwaiter(const SleepAwaiter&) = delete;
  SleepAwaiter& operator=(const SleepAwaiter&) = delete;

  // A sleep of nothing does not go round the completion queue (an alarm's round trip is a few
  // hundred microseconds: a lock cycle with no hold or think time spent a third of its time there).
  bool await_ready() const noexcept { return delay_ <= Duration(0); }
  void await_suspend(std::coroutine_handle<> h) {
    waiter_ = h;
    timer_ = Timer::start(core_, delay_, &SleepAwaiter::fired, this);
  }
  void await_resume() noexcept {}

 private:
  static void fired(void* self) {
    auto* s = static_cast<SleepAwaiter*>(self);
    s->timer_.forget();
    s->waiter_.resume();
  }

  LoopCore& core_;
  Duration delay_;
  std::coroutine_handle<> waiter_;
  TimerHandle timer_;  // destroyed with the frame: cancels a pending alarm
};

}  // namespace lockstep::real
