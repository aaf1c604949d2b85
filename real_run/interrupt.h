// InterruptGuard: Ctrl-C (SIGINT) and SIGTERM during a real run ask the run to stop, so it
// can stop its etcd cluster and remove its data directories instead of dying half-way.
//
// Contract: while a guard lives, the first SIGINT/SIGTERM only sets requested() (an
// async-signal-safe store); the handler is installed with SA_RESETHAND, so a second signal
// has the default effect (the process dies; the members die with it through
// PR_SET_PDEATHSIG, but data directories may remain). The destructor restores the previous
// handlers. One guard at a time.
#pragma once

#include <atomic>

namespace lockstep {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  static bool requested();
  // The flag itself, for code that polls it (e.g. LocalClusterOptions::should_abort).
  static const std::atomic<bool>& flag();
  // For tests: as if a signal had arrived.
  static void request();
};

}  // namespace lockstep
