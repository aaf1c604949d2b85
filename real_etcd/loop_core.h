// LoopCore: the gRPC side of the EventLoop (private to real_etcd/).
//
// Contract:
//   - Every pointer handed to gRPC as a completion tag is a CqTag. The loop calls
//     on_cq_event(ok) exactly once per operation started with that tag, on the loop's thread.
//   - A CqTag must stay valid until its event came back, even if the coroutine that started
//     the operation was destroyed: so tags live in heap "call state" objects that free
//     themselves from on_cq_event once no operation is outstanding (see Timer, UnaryCall,
//     BidiStream). Destroying a suspended frame only marks its state abandoned and cancels
//     the operation (Alarm::Cancel, ClientContext::TryCancel), which makes the event come
//     back soon.
//   - issue() counts operations in flight, so the loop can tell a deadlock (a root waiting
//     while nothing is in flight) from an idle wait.
#pragma once

#include <grpcpp/completion_queue.h>

#include <cstddef>

#include "lockstep/kv/time.h"

namespace lockstep::real {

class CqTag {
 public:
  virtual void on_cq_event(bool ok) = 0;

 protected:
  ~CqTag() = default;
};

class LoopCore {
 public:
  LoopCore() = default;
  LoopCore(const LoopCore&) = delete;
  LoopCore& operator=(const LoopCore&) = delete;

  grpc::CompletionQueue* cq() { return &cq_; }

  // Call when passing `tag` to a gRPC operation; returns it as the void* gRPC wants.
  void* issue(CqTag* tag) {
    ++in_flight_;
    return tag;
  }
  std::size_t in_flight() const { return in_flight_; }

  // Waits for one event up to `max_wait` (negative: for ever) and dispatches it.
  // Returns false on timeout or when the queue was shut down and drained.
  bool wait_and_dispatch(Duration max_wait);

  // Shuts the queue down and dispatches every event still in flight (all of them belong to
  // abandoned states by then, which just free themselves). Gives up after `max_wait`.
  bool shutdown_and_drain(Duration max_wait);

 private:
  grpc::CompletionQueue cq_;
  std::size_t in_flight_ = 0;
};

// gpr deadline `d` from now on the monotonic clock, for Alarm::Set and ClientContext.
gpr_timespec monotonic_deadline(Duration d);

}  // namespace lockstep::real
