#include "lockstep/sim/world.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>

#include "lockstep/kv/invariant.h"

namespace lockstep::sim {

World::World(std::uint64_t seed) : seed_(seed), root_rng_(seed) {
  auto world = std::make_unique<Process>();
  world->id = kWorldProcess;
  world->name = "world";
  processes_.push_back(std::move(world));
}

World::~World() = default;

ProcessId World::add_process(std::string name) {
  auto p = std::make_unique<Process>();
  p->id = static_cast<ProcessId>(processes_.size());
  p->name = std::move(name);
  processes_.push_back(std::move(p));
  return processes_.back()->id;
}

void World::pause(ProcessId id) {
  Process& p = process(id);
  if (p.paused || p.crashed) return;
  p.paused = true;
}

void World::resume(ProcessId id) {
  Process& p = process(id);
  if (!p.paused) return;
  p.paused = false;
  // Held events run now, in the order they came due, ahead of anything scheduled later.
  auto held = std::move(p.held);
  p.held.clear();
  for (auto& fn : held) slot_at(schedule_at(now_, id, std::move(fn)).slot).held = true;
}

void World::crash(ProcessId id) {
  Process& p = process(id);
  if (p.crashed) return;
  p.crashed = true;
  p.paused = false;
  p.held.clear();
  ++p.incarnation;  // pending events of the old incarnation are dropped when they come due
  if (auto it = crash_hooks_.find(id); it != crash_hooks_.end() && it->second) it->second();
  for (const auto& listener : crash_listeners_) listener(id);
}

void World::restart(ProcessId id) {
  Process& p = process(id);
  if (!p.crashed) return;
  p.crashed = false;
  ++p.incarnation;
  if (auto it = restart_hooks_.find(id); it != restart_hooks_.end() && it->second) it->second();
}

void World::set_monotonic_rate(ProcessId id, std::int64_t rate_ppm) {
  process(id).monotonic.set_rate(now_, rate_ppm);
  retime_local_timers(id);
}

void World::jump_monotonic(ProcessId id, Duration by) {
  process(id).monotonic.jump(now_, by);
  retime_local_timers(id);
}

void World::retime_local_timers(ProcessId id) {
  const ProcessClock& clock = process(id).monotonic;
  const std::int64_t local_now = clock.local_at(now_).count();
  for (std::uint32_t slot = 0; slot < slot_count_; ++slot) {
    Slot& s = slot_at(slot);
    if (s.seq == kFree || s.seq == kRunning || s.owner != id || s.local_due_ns == kNotLocal)
      continue;
    const std::int64_t at_ns =
        (now_ + clock.true_duration_for(Duration(s.local_due_ns - local_now))).time_since_epoch().count();
    if (at_ns == s.at_ns) continue;
    // The old key stays where it is, stale (its time no longer matches the slot's); the
    // event keeps its sequence number, so EventIds stay valid.
    if (s.far) {
      --far_live_;
    } else {
      ++stale_in_heap_;
    }
    enqueue(TrueTime(Duration(at_ns)), slot);
  }
}

void World::set_crash_hook(ProcessId id, std::function<void()> hook) {
  crash_hooks_[id] = std::move(hook);
}
void World::set_restart_hook(ProcessId id, std::function<void()> hook) {
  restart_hooks_[id] = std::move(hook);
}

std::uint32_t World::add_slot() {
  const std::uint32_t slot = slot_count_;
  if (slot >= (std::uint32_t{1} << kSlotBits))
    throw std::length_error("world: more than 2^24 events pending at once");
  if ((slot & (kChunkSlots - 1)) == 0)
    slot_chunks_.push_back(std::make_unique<Slot[]>(kChunkSlots));
  ++slot_count_;
  return slot;
}

// Hand-written sifts, not std::push_heap/pop_heap: std::pop_heap sifts down to a leaf and back
// up, which measured 1.4 % more instructions per KV request (bench/instructions.sh).
void World::heap_push(const Key& key) {
  if (front_taken_) {
    // The running event's key still fills the root: the new key replaces it and sifts down,
    // one sift where a pop and a push would be two.
    front_taken_ = false;
    sift_down(key);
    return;
  }
  std::size_t pos = queue_.size();
  queue_.push_back(key);
  while (pos > 0) {
    const std::size_t parent = (pos - 1) / 2;
    if (!Later{}(queue_[parent], key)) break;
    queue_[pos] = queue_[parent];
    pos = parent;
  }
  queue_[pos] = key;
}

void World::heap_pop() {
  const Key last = queue_.back();
  queue_.pop_back();
  if (!queue_.empty()) sift_down(last);
}

void World::drop_taken_front() {
  if (!front_taken_) return;
  front_taken_ = false;
  heap_pop();
}

void World::sift_down(const Key& key) {
  const std::size_t n = queue_.size();
  std::size_t pos = 0;
  for (;;) {
    std::size_t child = 2 * pos + 1;
    if (child >= n) break;
    if (child + 1 < n && Later{}(queue_[child], queue_[child + 1])) ++child;
    if (!Later{}(key, queue_[child])) break;
    queue_[pos] = queue_[child];
    pos = child;
  }
  queue_[pos] = key;
}

bool World::settle_front() {
  drop_taken_front();
  for (;;) {
    // A key whose slot holds another sequence number was cancelled (the slot may hold a later
    // event by now).
    while (!queue_.empty() && is_stale(queue_.front())) {
      heap_pop();
      --stale_in_heap_;
    }
    // A heap key in a drained bucket is earlier than every far key (they are in later
    // buckets); otherwise the next bucket may hold earlier events.
    if (far_live_ == 0 ||
        (!queue_.empty() && (queue_.front().at_ns >> kBucketShift) <= drained_bucket_))
      return !queue_.empty();
    ++drained_bucket_;
    auto& bucket = far_ring_[static_cast<std::size_t>(drained_bucket_ % kRingBuckets)];
    for (const Key& key : bucket) {
      // Stale: cancelled or moved. Not far: a timer moved back to this time, whose other key
      // was admitted already.
      if (is_stale(key) || !slot_at(key.slot()).far) continue;
      slot_at(key.slot()).far = false;
      --far_live_;
      heap_push(key);
    }
    bucket.clear();
  }
}

void World::release_slot(std::uint32_t slot) {
  Slot& s = slot_at(slot);
  s.seq = kFree;
  s.fn = nullptr;
  free_slots_.push_back(slot);
  --live_events_;
}

void World::cancel(EventId id) {
  // A default EventId (seq kFree) names nothing; otherwise the seq tells whether the slot
  // still holds that event (it ran, was dropped, or the slot holds a later event).
  if (id.seq == kFree || id.slot >= slot_count_) return;
  Slot& s = slot_at(id.slot);
  if (s.seq != id.seq) return;
  const bool in_heap = !s.far;
  if (!in_heap) --far_live_;  // its key stays in its bucket, stale, until the bucket is drained
  release_slot(id.slot);      // a heap key goes stale the same way (see settle_front)
  if (!in_heap) return;
  ++stale_in_heap_;
  if (stale_in_heap_ > 64 && stale_in_heap_ > queue_.size() / 2) {
    drop_taken_front();  // its slot is running: it would pass for stale
    // Any heap of the same keys pops them in the same order: (time, seq) is a total order.
    std::erase_if(queue_, [this](const Key& key) { return is_stale(key); });
    std::make_heap(queue_.begin(), queue_.end(), Later{});
    stale_in_heap_ = 0;
  }
}

bool World::step() {
  if (!settle_front()) return false;
  run_front();
  return true;
}

void World::run_front() {
  const Key key = queue_.front();
  front_taken_ = true;  // popped by the event's first push, or else by the next settle_front
  const std::uint32_t slot = key.slot();
  Slot& s = slot_at(slot);
  LOCKSTEP_INVARIANT(s.seq == key.seq(), "settle_front leaves a live event at the front");
  LOCKSTEP_INVARIANT(key.at_ns >= now_.time_since_epoch().count(), "time never goes backwards");
  now_ = TrueTime(Duration(key.at_ns));
  s.seq = kRunning;
  // Frees the slot after the event, also when it throws.
  struct Release {
    World& world;
    std::uint32_t slot;
    ~Release() { world.release_slot(slot); }
  } release{*this, slot};
  Process& p = process(s.owner);
  if (p.incarnation != s.incarnation || p.crashed) return;  // scheduled before a crash
  if (p.paused) {
    p.held.push_back(std::move(s.fn));
    return;
  }
  ++events_run_;
  const ProcessId previous = current_;
  const bool previous_held = running_held_;
  current_ = s.owner;
  running_held_ = s.held;
  s.fn();
  current_ = previous;
  running_held_ = previous_held;
}

void World::run_until(TrueTime until) {
  while (settle_front() && queue_.front().at_ns <= until.time_since_epoch().count()) run_front();
  if (now_ < until) now_ = until;
}

void World::record_fault(const std::string& process, const std::string& op,
                         nlohmann::json args) {
  if (observer_) observer_->on_fault(now_, process, op, std::move(args));
}
void World::record_truth(const std::string& process, const std::string& op,
                         nlohmann::json args) {
  if (observer_) observer_->on_truth(now_, process, op, std::move(args));
}
void World::record_client_event(ProcessId process, const std::string& op, nlohmann::json args) {
  if (observer_)
    observer_->on_client_event(now_, this->process(process).name, local_monotonic(process), op,
                               std::move(args));
}

}  // namespace lockstep::sim
