// Wake: how simulated I/O resumes a coroutine safely.
//
// A suspended coroutine parks its handle in a shared Wake cell. Whoever completes the wait
// (a timer, a reply message) calls fire(), which posts the resumption as an event of the
// owning process, so pause and crash apply to it. If the waiting frame is destroyed first
// (its task was cancelled or its process crashed), the WakeGuard in that frame marks the cell
// cancelled and the late event does nothing: no event ever resumes a freed frame.
#pragma once

#include <cassert>
#include <coroutine>
#include <optional>
#include <utility>

#include "lockstep/sim/local_ref.h"
#include "lockstep/sim/world.h"

namespace lockstep::sim {

struct WakeCell : LocalCounted {
  std::coroutine_handle<> handle;
  bool fired = false;
  bool cancelled = false;
};

// Fires a cell: resumes its coroutine through an event of `owner`. Idempotent. `cell` by
// value: the event keeps it (callers hand over wake_of's temporary, which is moved).
inline void fire_wake(World& world, ProcessId owner, LocalRef<WakeCell> cell) {
  if (cell->fired || cell->cancelled) return;
  cell->fired = true;
  if (!cell->handle) return;  // fired before the coroutine suspended: await_ready sees it
  world.post(owner, [cell = std::move(cell)] {
    if (!cell->cancelled) cell->handle.resume();
  });
}

// Fires a cell from inside an event of its owner: resumes its coroutine at once, in this
// event. Why: a reply's delivery is already an event of the waiting process (so pause and crash
// applied to it), and posting the resumption as an event of its own cost about 4 % of a
// simulated KV request's instructions. The caller keeps the cell alive across the call.
inline void fire_wake_now(World& world, ProcessId owner, WakeCell& cell) {
  assert(world.current_process() == owner && "resumed only inside an event of its owner");
  (void)world;
  (void)owner;
  if (cell.fired || cell.cancelled) return;
  cell.fired = true;
  if (cell.handle) cell.handle.resume();
}

// Awaits a cell. Must live in the waiting coroutine's frame (as a local or temporary).
class WakeAwaiter {
 public:
  explicit WakeAwaiter(LocalRef<WakeCell> cell) : cell_(std::move(cell)) {}
  WakeAwaiter(const WakeAwaiter&) = delete;
  WakeAwaiter& operator=(const WakeAwaiter&) = delete;
  ~WakeAwaiter() { cell_->cancelled = true; }

  bool await_ready() const noexcept { return cell_->fired; }
  void await_suspend(std::coroutine_handle<> h) noexcept { cell_->handle = h; }
  void await_resume() const noexcept {}

 private:
  LocalRef<WakeCell> cell_;
};

// A one-shot result slot shared between a waiting coroutine and whoever produces the value.
// It is its own wake cell (wake_of shares it), so a slot is one allocation, not two.
template <typename T>
struct Slot : WakeCell {
  std::optional<T> value;
};

// The slot's wake cell, sharing ownership of the slot.
template <typename T>
LocalRef<WakeCell> wake_of(const LocalRef<Slot<T>>& slot) {
  return slot;
}

// Suspends the current coroutine for `local_delay` of the owner's monotonic clock.
inline auto sleep_local(World& world, ProcessId owner, Duration local_delay) {
  auto cell = make_local<WakeCell>();
  world.schedule_after_local(local_delay, owner, [cell] {
    if (cell->cancelled || cell->fired) return;
    cell->fired = true;
    if (cell->handle) cell->handle.resume();
  });
  return WakeAwaiter(std::move(cell));
}

}  // namespace lockstep::sim
