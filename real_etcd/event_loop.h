// EventLoop: the real-time executor for lockstep coroutines.
//
// Contract:
//   - Single-threaded: every coroutine, timer and gRPC completion of this loop runs on the
//     thread that calls run()/run_for(). Several nodes (RealNodeContext) and clients
//     (EtcdKvClient) may share one loop. Nothing here is thread-safe.
//   - Roots: spawn() registers a Task<void> as a root; it starts on the next turn of the loop
//     (not inside the caller). Cancelling a root (SpawnHandle, cancel_spawned) destroys its
//     whole coroutine tree at once; the leaf awaitables cancel their alarms and RPCs. A task
//     must not cancel the root it is running in.
//   - A bug (an exception escaping a root) is rethrown from run()/run_for().
//   - Destroy every client and node that uses the loop before the loop itself.
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "lockstep/kv/node_context.h"
#include "lockstep/kv/task.h"
#include "lockstep/kv/time.h"

namespace lockstep::real {

class LoopCore;  // gRPC completion queue and operation count (private to real_etcd/)

class EventLoop final : public SpawnOwner {
 public:
  EventLoop();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Registers `task` as a root; it first runs on the next turn of the loop.
  std::uint64_t spawn(Task<void> task, std::string name);
  // SpawnOwner: ids are never reused; unknown or finished ids are ignored.
  void cancel_spawned(std::uint64_t id) override;
  bool spawned_done(std::uint64_t id) const override;
  std::size_t live_roots() const { return roots_.size(); }

  // Runs `task` as a root until it finishes, serving every other root meanwhile, and
  // returns its result. Throws std::logic_error if it waits while nothing can wake it.
  template <typename T>
  T run(Task<T> task);

  // Serves events for `real_duration`, or until nothing at all is pending.
  void run_for(Duration real_duration);

  // Suspends for `real_duration` of the machine's monotonic time.
  Task<void> sleep_real(Duration real_duration);

  LoopCore& core() { return *core_; }

 private:
  struct Root;
  static void on_root_done(void* root);
  template <typename T>
  static Task<void> store_result(Task<T> task, std::optional<T>* out);
  static Task<void> store_done(Task<void> task, bool* out);

  void run_until_done(std::uint64_t id);
  // One turn: starts queued roots, or waits up to `max_wait` for one event and dispatches it.
  // Returns false if nothing was pending at all.
  bool turn(Duration max_wait);
  void reap_finished();

  std::unique_ptr<LoopCore> core_;
  std::map<std::uint64_t, std::unique_ptr<Root>> roots_;  // ordered: cancel in spawn order
  std::vector<std::uint64_t> to_start_;
  std::vector<std::uint64_t> finished_;
  std::uint64_t next_id_ = 1;
  std::exception_ptr bug_;
};

template <typename T>
Task<void> EventLoop::store_result(Task<T> task, std::optional<T>* out) {
  T value = co_await std::move(task);
  out->emplace(std::move(value));
}

template <typename T>
T EventLoop::run(Task<T> task) {
  if constexpr (std::is_void_v<T>) {
    bool done = false;
    run_until_done(spawn(store_done(std::move(task), &done), "run"));
  } else {
    std::optional<T> out;
    run_until_done(spawn(store_result(std::move(task), &out), "run"));
    return std::move(*out);
  }
}

}  // namespace lockstep::real
