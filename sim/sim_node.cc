#include "lockstep/sim/sim_node.h"

#include "lockstep/sim/wake.h"

namespace lockstep::sim {

SimNode::SimNode(World& world, ProcessId pid, KvClient& kv, Rng rng)
    : world_(world), pid_(pid), kv_(kv), rng_(rng) {}

SimNode::~SimNode() { destroy_all_tasks(); }

Task<void> SimNode::sleep_for(Duration duration) {
  co_await sleep_local(world_, pid_, duration);
}

SpawnHandle SimNode::spawn(Task<void> task, std::string_view /*name*/) {
  const std::uint64_t id = next_root_id_++;
  auto root = std::make_unique<Root>();
  root->task = std::make_unique<RootTask>(std::move(task));
  root->node = this;
  root->id = id;
  root->task->set_done_hook(&SimNode::on_root_done, root.get());
  roots_[id] = std::move(root);
  // Started by an event, not inline: the spawner keeps running first, deterministically.
  world_.post(pid_, [this, id] {
    auto it = roots_.find(id);
    if (it != roots_.end()) it->second->task->start();
  });
  return SpawnHandle(this, id);
}

void SimNode::on_root_done(void* context) {
  auto* root = static_cast<Root*>(context);
  SimNode* node = root->node;
  const std::uint64_t id = root->id;
  // The frame cannot be destroyed from inside its own completion: reap it in a later event.
  node->world_.post(node->pid_, [node, id] {
    auto it = node->roots_.find(id);
    if (it == node->roots_.end()) return;
    it->second->task->rethrow_if_failed();
    node->roots_.erase(it);
  });
}

void SimNode::cancel_spawned(std::uint64_t id) {
  auto it = roots_.find(id);
  if (it == roots_.end()) return;
  auto root = std::move(it->second);
  roots_.erase(it);
  root.reset();  // destroys the frame tree; its awaiters unregister themselves
}

bool SimNode::spawned_done(std::uint64_t id) const {
  auto it = roots_.find(id);
  return it == roots_.end() || it->second->task->done();
}

void SimNode::destroy_all_tasks() {
  // Newest first: a child spawned by an older task goes before its spawner.
  while (!roots_.empty()) {
    auto it = std::prev(roots_.end());
    auto root = std::move(it->second);
    roots_.erase(it);
    root.reset();
  }
}

void SimNode::trace(std::string_view message) {
  if (auto* obs = world_.observer())
    obs->on_trace(world_.now(), node_name(), world_.local_monotonic(pid_), std::string(message));
}

}  // namespace lockstep::sim
