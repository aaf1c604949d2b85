// NodeContext: everything a lock algorithm may touch besides the KV.
//
// Contract:
//   - Clocks: monotonic_now() and wall_now() are this node's own clocks. Either may be offset,
//     drift or jump relative to true time (the simulator injects that); the monotonic clock
//     never goes backwards unless a fault says so explicitly.
//   - sleep_for(d) suspends for d as measured by this node's monotonic clock.
//   - spawn(task) runs a child task concurrently on this node. The returned SpawnHandle owns
//     it: destroying the handle cancels the child (destroys its frame), so a keep-alive loop
//     cannot outlive the lock that started it. A crash of the node cancels everything.
//   - rng() is this node's deterministic random stream; never use another source.
//   - trace() records a free-form line in the run's history.
// Like LevelDB's Env, this interface is the only door to time, concurrency and randomness, so
// the simulator can control all three.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "lockstep/kv/kv_client.h"
#include "lockstep/kv/rng.h"
#include "lockstep/kv/task.h"
#include "lockstep/kv/time.h"

namespace lockstep {

// Implemented by executors: what a SpawnHandle talks to. Ids are never reused, so a handle
// that outlives its task (or the whole node, after a crash) is harmless.
class SpawnOwner {
 public:
  virtual void cancel_spawned(std::uint64_t id) = 0;
  virtual bool spawned_done(std::uint64_t id) const = 0;

 protected:
  ~SpawnOwner() = default;
};

class [[nodiscard]] SpawnHandle {
 public:
  SpawnHandle() = default;
  SpawnHandle(SpawnOwner* owner, std::uint64_t id) : owner_(owner), id_(id) {}
  SpawnHandle(SpawnHandle&& o) noexcept
      : owner_(std::exchange(o.owner_, nullptr)), id_(std::exchange(o.id_, 0)) {}
  SpawnHandle& operator=(SpawnHandle&& o) noexcept {
    if (this != &o) {
      cancel();
      owner_ = std::exchange(o.owner_, nullptr);
      id_ = std::exchange(o.id_, 0);
    }
    return *this;
  }
  SpawnHandle(const SpawnHandle&) = delete;
  SpawnHandle& operator=(const SpawnHandle&) = delete;
  ~SpawnHandle() { cancel(); }

  bool active() const { return owner_ != nullptr; }
  bool done() const { return owner_ == nullptr || owner_->spawned_done(id_); }
  // Stops the child now if it is still running. Idempotent.
  void cancel() {
    if (owner_) owner_->cancel_spawned(id_);
    owner_ = nullptr;
  }

 private:
  SpawnOwner* owner_ = nullptr;
  std::uint64_t id_ = 0;
};

class NodeContext {
 public:
  virtual ~NodeContext() = default;

  // A stable, human-readable name for this node ("client-3"), unique within a run.
  virtual const std::string& node_name() const = 0;

  virtual MonoTime monotonic_now() = 0;
  virtual WallTime wall_now() = 0;
  virtual Task<void> sleep_for(Duration duration) = 0;

  virtual SpawnHandle spawn(Task<void> task, std::string_view name) = 0;

  virtual Rng& rng() = 0;
  virtual KvClient& kv() = 0;
  virtual void trace(std::string_view message) = 0;
};

}  // namespace lockstep
