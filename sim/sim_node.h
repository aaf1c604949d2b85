// SimNode: the NodeContext of a simulated process.
//
// Contract: clocks are the process's own (offset, drift and jumps from the world); sleeps are
// timers of the process, so a paused process oversleeps; spawned tasks are roots owned by the
// node and started by an event; crash() destroys every task of the node at once.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "lockstep/kv/node_context.h"
#include "lockstep/sim/world.h"

namespace lockstep::sim {

class SimNode : public NodeContext, public SpawnOwner {
 public:
  SimNode(World& world, ProcessId pid, KvClient& kv, Rng rng);
  ~SimNode() override;

  const std::string& node_name() const override { return world_.process(pid_).name; }
  MonoTime monotonic_now() override { return MonoTime(world_.local_monotonic(pid_)); }
  WallTime wall_now() override { return WallTime(world_.local_wall(pid_)); }
  Task<void> sleep_for(Duration duration) override;
  SpawnHandle spawn(Task<void> task, std::string_view name) override;
  Rng& rng() override { return rng_; }
  KvClient& kv() override { return kv_; }
  void trace(std::string_view message) override;

  void cancel_spawned(std::uint64_t id) override;
  bool spawned_done(std::uint64_t id) const override;

  ProcessId pid() const { return pid_; }
  // Destroys every task of this node (the process crashed).
  void destroy_all_tasks();
  std::size_t live_tasks() const { return roots_.size(); }

 private:
  struct Root {
    std::unique_ptr<RootTask> task;
    SimNode* node;
    std::uint64_t id;
  };
  static void on_root_done(void* context);

  World& world_;
  ProcessId pid_;
  KvClient& kv_;
  Rng rng_;
  std::uint64_t next_root_id_ = 1;
  std::map<std::uint64_t, std::unique_ptr<Root>> roots_;
};

}  // namespace lockstep::sim
