// The liveness check: once faults heal, the lock keeps being granted.
//
// Contract: the healing point is the true time of the last `fault` event (the end of the last
// fault). After it, three things must hold, each judged only when the history extends far
// enough past the healing point to tell:
//   - no waiter waits for ever: an acquire still open at the end of the history, invoked
//     after healing and older than `bound`, is a violation;
//   - no lock is held for ever (by a crashed client or anyone): if acquires are still being
//     invoked `bound` after healing, at least one acquire invoked after healing succeeded;
//   - no missed wake-up: an acquire invoked after healing that did not succeed must not have
//     waited through `idle_bound` during which no client believed it held the lock.
// Holding beliefs are those of the mutex check (believed_holding_intervals).
#pragma once

#include <cstdint>

#include "lockstep/checker/check_result.h"
#include "lockstep/checker/history.h"

namespace lockstep {

struct LivenessOptions {
  std::int64_t bound_ns = 60'000'000'000;
  std::int64_t idle_bound_ns = 60'000'000'000;
};

CheckResult check_liveness(const History& history, const LivenessOptions& options);

}  // namespace lockstep
