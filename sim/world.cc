#include "sim/world.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>

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

Process& World::process(ProcessId id) {
  assert(id >= 0 && static_cast<std::size_t>(id) < processes_.size());
  return *processes_[static_cast<std::size_t>(id)];
}
const Process& World::process(ProcessId id) const {
  assert(id >= 0 && static_cast<std::size_t>(id) < processes_.size());
  return *processes_[static_cast<std::size_t>(id)];
}

Duration World::local_monotonic(ProcessId id) const { return process(id).monotonic.local_at(now_); }
Duration World::local_wall(ProcessId id) const { return process(id).wall.local_at(now_); }

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
  for (auto& fn : held) schedule_at(now_, id, std::move(fn));
}

void World::crash(ProcessId id) {
  Process& p = process(id);
  if (p.crashed) return;
  p.crashed = true;
  p.paused = false;
  p.held.clear();
  ++p.incarnation;  // pending events of the old incarnation are dropped when they come due
  if (auto it = crash_hooks_.find(id); it != crash_hooks_.end() && it->second) it->second();
}

void World::restart(ProcessId id) {
  Process& p = process(id);
  if (!p.crashed) return;
  p.crashed = false;
  ++p.incarnation;
  if (auto it = restart_hooks_.find(id); it != restart_hooks_.end() && it->second) it->second();
}

void World::set_crash_hook(ProcessId id, std::function<void()> hook) {
  crash_hooks_[id] = std::move(hook);
}
void World::set_restart_hook(ProcessId id, std::function<void()> hook) {
  restart_hooks_[id] = std::move(hook);
}

World::EventId World::schedule_at(TrueTime at, ProcessId owner, EventFn fn) {
  if (at < now_) at = now_;
  std::uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(slots_.size());
    if (slot >= (std::uint32_t{1} << kSlotBits))
      throw std::length_error("world: more than 2^24 events pending at once");
    slots_.emplace_back();
    heap_pos_.push_back(0);
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  const std::uint64_t seq = next_seq_++;
  Slot& s = slots_[slot];
  s.seq = seq;
  s.owner = owner;
  s.incarnation = process(owner).incarnation;
  s.fn = std::move(fn);
  const Key key{at.time_since_epoch().count(), (seq << kSlotBits) | slot};
  const std::int64_t bucket = key.at_ns >> kBucketShift;
  s.far = bucket > drained_bucket_ && bucket - drained_bucket_ < kRingBuckets;
  if (s.far) {
    far_ring_[static_cast<std::size_t>(bucket % kRingBuckets)].push_back(key);
    ++far_live_;
  } else {
    heap_push(key);
  }
  return EventId{slot, seq};
}

void World::heap_push(const Key& key) {
  queue_.push_back(key);
  heap_pos_[key.slot()] = static_cast<std::uint32_t>(queue_.size() - 1);
  heap_sift_up(queue_.size() - 1);
}

void World::admit_far_events() {
  // A heap key in a drained bucket is earlier than every far key (they are in later buckets).
  while (far_live_ > 0 &&
         (queue_.empty() || (queue_.front().at_ns >> kBucketShift) > drained_bucket_)) {
    ++drained_bucket_;
    auto& bucket = far_ring_[static_cast<std::size_t>(drained_bucket_ % kRingBuckets)];
    for (const Key& key : bucket) {
      Slot& s = slots_[key.slot()];
      if (s.seq != key.seq()) continue;  // cancelled (the slot may hold another event)
      s.far = false;
      --far_live_;
      heap_push(key);
    }
    bucket.clear();
  }
}

World::EventId World::schedule_after_local(Duration local_delay, ProcessId owner, EventFn fn) {
  return schedule_at(now_ + process(owner).monotonic.true_duration_for(local_delay), owner,
                     std::move(fn));
}

void World::release_slot(std::uint32_t slot) {
  slots_[slot].seq = kFree;
  slots_[slot].fn = nullptr;
  free_slots_.push_back(slot);
}

void World::cancel(EventId id) {
  // A default EventId (seq kFree) names nothing; otherwise the seq tells whether the slot
  // still holds that event (it ran, was dropped, or the slot holds a later event).
  if (id.seq == kFree || id.slot >= slots_.size() || slots_[id.slot].seq != id.seq) return;
  if (slots_[id.slot].far) {
    --far_live_;  // its key stays in its bucket, stale, until the bucket is drained
  } else {
    heap_remove(heap_pos_[id.slot]);
  }
  release_slot(id.slot);
}

void World::heap_place(std::size_t pos, const Key& key) {
  queue_[pos] = key;
  heap_pos_[key.slot()] = static_cast<std::uint32_t>(pos);
}

void World::heap_sift_up(std::size_t pos) {
  const Key key = queue_[pos];
  while (pos > 0) {
    const std::size_t parent = (pos - 1) / 2;
    if (!Later{}(queue_[parent], key)) break;
    heap_place(pos, queue_[parent]);
    pos = parent;
  }
  heap_place(pos, key);
}

void World::heap_sift_down(std::size_t pos) {
  const Key key = queue_[pos];
  const std::size_t n = queue_.size();
  for (;;) {
    std::size_t child = 2 * pos + 1;
    if (child >= n) break;
    if (child + 1 < n && Later{}(queue_[child], queue_[child + 1])) ++child;
    if (!Later{}(key, queue_[child])) break;
    heap_place(pos, queue_[child]);
    pos = child;
  }
  heap_place(pos, key);
}

void World::heap_remove(std::size_t pos) {
  const std::size_t last = queue_.size() - 1;
  if (pos != last) {
    heap_place(pos, queue_[last]);
    queue_.pop_back();
    heap_sift_down(pos);
    heap_sift_up(pos);
  } else {
    queue_.pop_back();
  }
}

bool World::step() {
  admit_far_events();
  if (queue_.empty()) return false;
  run_front();
  return true;
}

void World::run_front() {
  const Key key = queue_.front();
  heap_remove(0);
  Slot& slot = slots_[key.slot()];
  assert(slot.seq == key.seq() && "the heap holds live events only");
  assert(key.at_ns >= now_.time_since_epoch().count() && "time never goes backwards");
  now_ = TrueTime(Duration(key.at_ns));
  EventFn fn = std::move(slot.fn);
  const ProcessId owner = slot.owner;
  const std::uint64_t incarnation = slot.incarnation;
  release_slot(key.slot());  // before running: fn may schedule (and reuse the slot)
  run_event(owner, incarnation, fn);
}

void World::run_event(ProcessId owner, std::uint64_t incarnation, EventFn& fn) {
  Process& p = process(owner);
  if (p.incarnation != incarnation || p.crashed) return;  // scheduled before a crash
  if (p.paused) {
    p.held.push_back(std::move(fn));
    return;
  }
  ++events_run_;
  const ProcessId previous = current_;
  current_ = owner;
  fn();
  current_ = previous;
}

void World::run_until(TrueTime until) {
  for (;;) {
    admit_far_events();
    if (queue_.empty() || queue_.front().at_ns > until.time_since_epoch().count()) break;
    run_front();
  }
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

}  // namespace lockstep::sim
