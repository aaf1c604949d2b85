// StreamWait: wait for a BidiStream's next message (or its end) with a time limit. Private.
//
// Contract: `co_await StreamWait<S>(core, stream, max_wait)` returns true at once if the
// stream has a message or ended, true when one arrives, false once max_wait passed. The
// stream's single listener slot belongs to the waiter while it waits. Destroying the waiting
// frame unhooks the listener and cancels the timer; the stream must outlive the wait.
#pragma once

#include <coroutine>
#include <utility>

#include "lockstep/real_etcd/loop_core.h"
#include "lockstep/real_etcd/timer.h"

namespace lockstep::real {

template <typename Stream>
class StreamWait {
 public:
  StreamWait(LoopCore& core, Stream& stream, Duration max_wait)
      : core_(core), stream_(stream), max_wait_(max_wait) {}
  StreamWait(const StreamWait&) = delete;
  StreamWait& operator=(const StreamWait&) = delete;
  ~StreamWait() {
    if (waiter_) stream_.set_listener(nullptr, nullptr);
  }

  bool await_ready() const { return stream_.has_message() || stream_.ended(); }
  void await_suspend(std::coroutine_handle<> h) {
    waiter_ = h;
    stream_.set_listener(&StreamWait::on_stream, this);
    timer_ = Timer::start(core_, max_wait_, &StreamWait::on_timer, this);
  }
  bool await_resume() const noexcept { return !timed_out_; }

 private:
  static void on_stream(void* self) {
    auto* w = static_cast<StreamWait*>(self);
    w->stream_.set_listener(nullptr, nullptr);
    w->timer_.cancel();
    std::exchange(w->waiter_, {}).resume();
  }
  static void on_timer(void* self) {
    auto* w = static_cast<StreamWait*>(self);
    w->timer_.forget();
    w->stream_.set_listener(nullptr, nullptr);
    w->timed_out_ = true;
    std::exchange(w->waiter_, {}).resume();
  }

  LoopCore& core_;
  Stream& stream_;
  Duration max_wait_;
  std::coroutine_handle<> waiter_;
  TimerHandle timer_;
  bool timed_out_ = false;
};

}  // namespace lockstep::real
