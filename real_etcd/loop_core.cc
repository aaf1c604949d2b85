#include "lockstep/real_etcd/loop_core.h"

#include <grpc/support/time.h>

#include <cassert>

namespace lockstep::real {

gpr_timespec monotonic_deadline(Duration d) {
  return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                      gpr_time_from_nanos(d.count(), GPR_TIMESPAN));
}

bool LoopCore::wait_and_dispatch(Duration max_wait) {
  void* tag = nullptr;
  bool ok = false;
  const gpr_timespec deadline =
      max_wait < Duration::zero() ? gpr_inf_future(GPR_CLOCK_MONOTONIC) : monotonic_deadline(max_wait);
  const auto status = cq_.AsyncNext(&tag, &ok, deadline);
  if (status != grpc::CompletionQueue::GOT_EVENT) return false;
  assert(in_flight_ > 0);
  --in_flight_;
  static_cast<CqTag*>(tag)->on_cq_event(ok);
  return true;
}

bool LoopCore::shutdown_and_drain(Duration max_wait) {
  const gpr_timespec deadline = monotonic_deadline(max_wait);
  // Dispatch first, with the queue still open: a cancelled stream's failed Read leads to a
  // Finish, which must not be started on a queue that is shut down.
  while (in_flight_ > 0) {
    void* tag = nullptr;
    bool ok = false;
    if (cq_.AsyncNext(&tag, &ok, deadline) != grpc::CompletionQueue::GOT_EVENT) break;
    --in_flight_;
    static_cast<CqTag*>(tag)->on_cq_event(ok);
  }
  if (in_flight_ > 0) return false;
  cq_.Shutdown();
  for (;;) {
    void* tag = nullptr;
    bool ok = false;
    const auto status = cq_.AsyncNext(&tag, &ok, deadline);
    if (status == grpc::CompletionQueue::SHUTDOWN) return true;
    if (status == grpc::CompletionQueue::TIMEOUT) return false;
    --in_flight_;
    static_cast<CqTag*>(tag)->on_cq_event(ok);
  }
}

}  // namespace lockstep::real
