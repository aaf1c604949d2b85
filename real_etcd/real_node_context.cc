#include "lockstep/real_etcd/real_node_context.h"

#include <algorithm>
#include <chrono>

namespace lockstep::real {

RealNodeContext::RealNodeContext(EventLoop& loop, std::string name, KvClient& kv,
                                 std::uint64_t rng_seed, TraceSink trace)
    : loop_(loop), name_(std::move(name)), kv_(kv), rng_(rng_seed), trace_(std::move(trace)) {}

RealNodeContext::~RealNodeContext() { crash(); }

Duration RealNodeContext::steady_real_now() {
  return std::chrono::duration_cast<Duration>(
      std::chrono::steady_clock::now().time_since_epoch());
}

Duration RealNodeContext::system_real_now() {
  return std::chrono::duration_cast<Duration>(
      std::chrono::system_clock::now().time_since_epoch());
}

MonoTime RealNodeContext::monotonic_now() { return MonoTime(mono_.local(steady_real_now())); }

WallTime RealNodeContext::wall_now() { return WallTime(wall_.local(system_real_now())); }

Task<void> RealNodeContext::sleep_for(Duration duration) {
  // The node's monotonic clock runs at (1 + drift) real speed; jumps do not shorten sleeps,
  // as with CLOCK_MONOTONIC-based timers on a real machine.
  return loop_.sleep_real(mono_.real_duration_for(duration));
}

SpawnHandle RealNodeContext::spawn(Task<void> task, std::string_view name) {
  // Forget ids of tasks that already ended so the list stays short in long runs.
  std::erase_if(spawned_, [this](std::uint64_t id) { return loop_.spawned_done(id); });
  const auto id = loop_.spawn(std::move(task), name_ + "/" + std::string(name));
  spawned_.push_back(id);
  return SpawnHandle(&loop_, id);
}

void RealNodeContext::trace(std::string_view message) {
  if (trace_) trace_(name_, monotonic_now(), message);
}

void RealNodeContext::set_drift_rate(double drift_rate) {
  mono_.set_drift_rate(drift_rate, steady_real_now());
  wall_.set_drift_rate(drift_rate, system_real_now());
}

void RealNodeContext::set_monotonic_drift_rate(double drift_rate) {
  mono_.set_drift_rate(drift_rate, steady_real_now());
}

void RealNodeContext::set_wall_drift_rate(double drift_rate) {
  wall_.set_drift_rate(drift_rate, system_real_now());
}

void RealNodeContext::crash() {
  std::vector<std::uint64_t> ids;
  ids.swap(spawned_);
  for (auto id : ids) loop_.cancel_spawned(id);
}

}  // namespace lockstep::real
