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

void World::schedule_at(TrueTime at, ProcessId owner, std::function<void()> fn) {
  if (at < now_) at = now_;
  const Process& p = process(owner);
  queue_.push_back(Event{at.time_since_epoch().count(), next_seq_++, owner, p.incarnation,
                         std::move(fn)});
  std::push_heap(queue_.begin(), queue_.end(), Later{});
}

void World::schedule_after_local(Duration local_delay, ProcessId owner, std::function<void()> fn) {
  schedule_at(now_ + process(owner).monotonic.true_duration_for(local_delay), owner,
              std::move(fn));
}

bool World::step() {
  if (queue_.empty()) return false;
  std::pop_heap(queue_.begin(), queue_.end(), Later{});
  Event e = std::move(queue_.back());
  queue_.pop_back();
  assert(e.at_ns >= now_.time_since_epoch().count() && "time never goes backwards");
  now_ = TrueTime(Duration(e.at_ns));
  run_event(e);
  return true;
}

void World::run_event(Event& e) {
  Process& p = process(e.owner);
  if (p.incarnation != e.incarnation || p.crashed) return;  // scheduled before a crash
  if (p.paused) {
    p.held.push_back(std::move(e.fn));
    return;
  }
  ++events_run_;
  const ProcessId previous = current_;
  current_ = e.owner;
  e.fn();
  current_ = previous;
}

void World::run_until(TrueTime until) {
  while (!queue_.empty() && queue_.front().at_ns <= until.time_since_epoch().count()) step();
  if (now_ < until) now_ = until;
}

void World::record_fault(const std::string& process, const std::string& op,
                         const nlohmann::json& args) {
  if (observer_) observer_->on_fault(now_, process, op, args);
}
void World::record_truth(const std::string& process, const std::string& op,
                         const nlohmann::json& args) {
  if (observer_) observer_->on_truth(now_, process, op, args);
}

}  // namespace lockstep::sim
