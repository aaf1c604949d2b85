#include "lockstep/real_etcd/event_loop.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "lockstep/real_etcd/loop_core.h"
#include "lockstep/real_etcd/timer.h"

namespace lockstep::real {

struct EventLoop::Root {
  EventLoop* loop;
  std::uint64_t id;
  std::string name;
  RootTask task;
  bool started = false;
  bool finished = false;
  Root(EventLoop* l, std::uint64_t i, std::string n, Task<void> t)
      : loop(l), id(i), name(std::move(n)), task(std::move(t)) {}
};

EventLoop::EventLoop() : core_(std::make_unique<LoopCore>()) {}

EventLoop::~EventLoop() {
  // Destroy every tree first: their awaitables cancel alarms and calls, so the events still
  // in flight come back promptly and free their states while the queue drains.
  while (!roots_.empty()) {
    std::unique_ptr<Root> doomed = std::move(roots_.begin()->second);
    roots_.erase(roots_.begin());
    doomed.reset();  // may cancel other roots through their SpawnHandles
  }
  if (!core_->shutdown_and_drain(seconds(10))) {
    std::fprintf(stderr,
                 "lockstep EventLoop: %zu gRPC operations still pending at destruction "
                 "(a client or stream outlived its loop)\n",
                 core_->in_flight());
    std::abort();
  }
}

void EventLoop::on_root_done(void* root) {
  // Called from inside the root's final resume: the tree cannot be destroyed here, so it is
  // only marked and reaped on the next turn.
  auto* r = static_cast<Root*>(root);
  r->finished = true;
  r->loop->finished_.push_back(r->id);
}

std::uint64_t EventLoop::spawn(Task<void> task, std::string name) {
  const std::uint64_t id = next_id_++;
  auto root = std::make_unique<Root>(this, id, std::move(name), std::move(task));
  root->task.set_done_hook(&EventLoop::on_root_done, root.get());
  roots_.emplace(id, std::move(root));
  to_start_.push_back(id);
  return id;
}

void EventLoop::cancel_spawned(std::uint64_t id) {
  auto it = roots_.find(id);
  if (it == roots_.end()) return;
  // Move the root out before destroying it: its destructors may spawn or cancel other roots.
  std::unique_ptr<Root> doomed = std::move(it->second);
  roots_.erase(it);
  doomed.reset();
}

bool EventLoop::spawned_done(std::uint64_t id) const {
  auto it = roots_.find(id);
  return it == roots_.end() || it->second->finished;
}

Task<void> EventLoop::store_done(Task<void> task, bool* out) {
  co_await std::move(task);
  *out = true;
}

void EventLoop::reap_finished() {
  while (!finished_.empty()) {
    std::vector<std::uint64_t> ids;
    ids.swap(finished_);
    for (auto id : ids) {
      auto it = roots_.find(id);
      if (it == roots_.end()) continue;
      std::unique_ptr<Root> done = std::move(it->second);
      roots_.erase(it);
      try {
        done->task.rethrow_if_failed();
      } catch (...) {
        if (!bug_) bug_ = std::current_exception();
      }
    }
  }
  if (bug_) std::rethrow_exception(std::exchange(bug_, nullptr));
}

bool EventLoop::turn(Duration max_wait) {
  if (!to_start_.empty()) {
    std::vector<std::uint64_t> ids;
    ids.swap(to_start_);
    for (auto id : ids) {
      auto it = roots_.find(id);
      if (it == roots_.end() || it->second->started) continue;
      it->second->started = true;
      it->second->task.start();
    }
    reap_finished();
    return true;
  }
  if (core_->in_flight() == 0) return false;
  core_->wait_and_dispatch(max_wait);
  reap_finished();
  return true;
}

void EventLoop::run_until_done(std::uint64_t id) {
  while (!spawned_done(id)) {
    if (!turn(Duration(-1))) {
      throw std::logic_error("EventLoop::run: the task waits but nothing is in flight "
                             "(deadlock: no timer, call or stream can wake it)");
    }
  }
  reap_finished();
}

void EventLoop::run_for(Duration real_duration) {
  const auto end = std::chrono::steady_clock::now() + real_duration;
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= end) break;
    if (!turn(std::chrono::duration_cast<Duration>(end - now))) break;
  }
}

Task<void> EventLoop::sleep_real(Duration real_duration) {
  co_await SleepAwaiter(*core_, real_duration);
}

}  // namespace lockstep::real
