#include "lockstep/real_run/interrupt.h"

#include <signal.h>

namespace lockstep {

namespace {

std::atomic<bool> g_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "used from a signal handler");

struct sigaction g_old_int;
struct sigaction g_old_term;

extern "C" void on_interrupt(int) { g_requested.store(true); }

}  // namespace

InterruptGuard::InterruptGuard() {
  g_requested.store(false);
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // a second Ctrl-C kills at once
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

bool InterruptGuard::requested() { return g_requested.load(); }
const std::atomic<bool>& InterruptGuard::flag() { return g_requested; }
void InterruptGuard::request() { g_requested.store(true); }

}  // namespace lockstep
