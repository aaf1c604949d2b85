// RealNodeContext: a NodeContext for a client running against a real etcd, on an EventLoop.
//
// Contract:
//   - monotonic_now()/wall_now() read the machine's steady and system clocks, then apply this
//     node's ClockSkew (offset jumps and drift injected by clock faults); sleep_for(d) waits
//     the real time the skewed monotonic clock needs to advance by d.
//   - spawn() runs the task as a root of the shared loop; the SpawnHandle cancels it. The
//     node remembers what it spawned: crash() and the destructor cancel all of it.
//   - rng() is seeded from the constructor argument only.
//   - trace() forwards to the TraceSink with the node's name and monotonic time.
//   - kv() is the client given at construction; it must outlive the node.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/kv/node_context.h"
#include "lockstep/real_etcd/clock_skew.h"
#include "lockstep/real_etcd/event_loop.h"

namespace lockstep::real {

using TraceSink =
    std::function<void(std::string_view node, MonoTime at, std::string_view message)>;

class RealNodeContext final : public NodeContext {
 public:
  RealNodeContext(EventLoop& loop, std::string name, KvClient& kv, std::uint64_t rng_seed,
                  TraceSink trace = {});
  ~RealNodeContext() override;

  const std::string& node_name() const override { return name_; }
  MonoTime monotonic_now() override;
  WallTime wall_now() override;
  Task<void> sleep_for(Duration duration) override;
  SpawnHandle spawn(Task<void> task, std::string_view name) override;
  Rng& rng() override { return rng_; }
  KvClient& kv() override { return kv_; }
  void trace(std::string_view message) override;

  // Clock faults. Offsets are added to the node's clocks at once; the drift rate (e.g.
  // 0.001 = 1 ms fast per second) applies to both clocks from now on.
  void jump_monotonic(Duration delta) { mono_.jump(delta); }
  void jump_wall(Duration delta) { wall_.jump(delta); }
  void set_drift_rate(double drift_rate);
  void set_monotonic_drift_rate(double drift_rate);
  void set_wall_drift_rate(double drift_rate);

  // Cancels every task this node spawned (a crash of the client process).
  void crash();

 private:
  static Duration steady_real_now();
  static Duration system_real_now();

  EventLoop& loop_;
  std::string name_;
  KvClient& kv_;
  Rng rng_;
  TraceSink trace_;
  ClockSkew mono_;
  ClockSkew wall_;
  std::vector<std::uint64_t> spawned_;
};

}  // namespace lockstep::real
