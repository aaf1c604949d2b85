#include "lockstep/harness/sim_runner.h"

#include <memory>
#include <set>
#include <stdexcept>

#include "lockstep/harness/checks.h"
#include "lockstep/harness/sim_resource.h"
#include "lockstep/harness/history_recorder.h"
#include "lockstep/harness/workload.h"
#include "lockstep/sim/etcd_cluster.h"
#include "lockstep/sim/faults.h"
#include "lockstep/sim/network.h"
#include "lockstep/sim/sim_kv_client.h"
#include "lockstep/sim/sim_node.h"
#include "lockstep/sim/world.h"

namespace lockstep {

bool RunResult::all_ok() const {
  for (const auto& c : checks)
    if (c.status != CheckStatus::ok) return false;
  return true;
}

std::string validate_run_config(RunConfig& config) {
  const AlgorithmInfo* info = find_algorithm(config.algorithm);
  if (!info) {
    std::string names;
    for (const auto& a : algorithm_catalogue()) names += (names.empty() ? "" : ", ") + a.name;
    return "unknown algorithm \"" + config.algorithm + "\" (known: " + names + ")";
  }
  if (auto err = resolve_options(*info, config.algorithm_options)) return *err;
  if (config.workload.clients < 1) return "clients must be at least 1";
  if (config.etcd.members != 1 && config.etcd.members != 3 && config.etcd.members != 5)
    return "members must be 1, 3 or 5";
  std::set<std::string> names;
  for (int i = 0; i < config.etcd.members; ++i) names.insert("member-" + std::to_string(i));
  for (int i = 0; i < config.workload.clients; ++i) names.insert("client-" + std::to_string(i));
  names.insert("resource");
  if (auto err = validate_checks(config.checks); !err.empty()) return err;
  for (std::size_t i = 0; i < config.faults.size(); ++i) {
    const auto& f = config.faults[i];
    for (const auto* list : {&f.from, &f.to, &f.targets})
      for (const auto& n : *list)
        if (!names.count(n))
          return "fault " + std::to_string(i) + " (" + f.kind + ") names unknown process \"" + n +
                 "\"";
  }
  return {};
}

namespace {

// One simulated client process: its KV client, node context, lock and workload task.
struct SimClient {
  sim::ProcessId pid = 0;
  std::unique_ptr<sim::SimKvClient> kv;
  std::unique_ptr<sim::SimNode> node;
  std::unique_ptr<Lock> lock;
  std::unique_ptr<ProtectedResource> resource;
  SpawnHandle loop;
};

}  // namespace

RunResult run_simulation(const RunConfig& config) {
  const AlgorithmInfo* info = find_algorithm(config.algorithm);
  sim::World world(config.seed);
  HistoryRecorder recorder(world);
  recorder.history().header.meta = {{"seed", config.seed},
                                    {"algorithm", config.algorithm},
                                    {"backend", "sim"},
                                    {"clients", config.workload.clients},
                                    {"members", config.etcd.members},
                                    {"election_timeout_ms", config.etcd.election_timeout.count() / 1'000'000}};
  world.set_observer(&recorder);
  sim::Network network(world, world.rng_for("network"), config.network);
  sim::EtcdCluster cluster(world, network, config.etcd);
  cluster.record_details(config.record_kv_calls);  // read only with the calls (see RunConfig)
  SimResourceService resource(world, network, info->capabilities.fencing);

  LockSetup setup;
  setup.lock_name = config.lock_name;
  setup.options = config.algorithm_options;
  auto stop = std::make_shared<ClientStop>();

  std::vector<std::unique_ptr<SimClient>> clients;
  for (int i = 0; i < config.workload.clients; ++i) {
    auto c = std::make_unique<SimClient>();
    c->pid = world.add_process("client-" + std::to_string(i));
    sim::SimClientOptions options;
    options.preferred_member = i % config.etcd.members;
    options.request_timeout = config.workload.request_timeout;
    options.record_calls = config.record_kv_calls;
    c->kv = std::make_unique<sim::SimKvClient>(world, cluster, c->pid, options);
    c->node = std::make_unique<sim::SimNode>(world, c->pid, *c->kv,
                                             world.rng_for("client").fork(static_cast<std::uint64_t>(i)));
    clients.push_back(std::move(c));
  }
  auto start_client = [&](SimClient& c) {
    c.lock = info->make(*c.node, setup);
    if (info->capabilities.guarded_writes) {
      c.resource = std::make_unique<GuardedEtcdResource>(*c.kv, guarded_data_key(config));
    } else {
      c.resource = std::make_unique<SimResourceClient>(world, network, resource, c.pid,
                                                       config.workload.request_timeout);
    }
    c.loop = c.node->spawn(run_lock_client(c.node.get(), c.lock.get(), c.resource.get(), &recorder,
                                           config.workload, stop),
                           "workload");
  };
  for (auto& c : clients) {
    SimClient* raw = c.get();
    world.set_crash_hook(raw->pid, [raw, &recorder, &world] {
      const std::string& name = world.process(raw->pid).name;
      recorder.complete_open(name, "crashed");
      raw->loop = SpawnHandle();
      raw->lock.reset();
      raw->node->destroy_all_tasks();
      raw->resource.reset();
      raw->kv->on_crash();
    });
    world.set_restart_hook(raw->pid, [raw, &start_client] { start_client(*raw); });
  }
  // Clients start once the cluster had time to elect a leader, like a deployment would.
  const TrueTime start = TrueTime(clients_start_time(config));
  sim::FaultInjector faults(world, network, cluster, start);
  for (int i = 0; i < cluster.size(); ++i)
    faults.add_process(world.process(cluster.member(i).pid()).name, cluster.member(i).pid());
  for (auto& c : clients) faults.add_process(world.process(c->pid).name, c->pid);
  faults.add_process("resource", resource.pid());
  for (const auto& f : config.faults) {
    if (auto err = faults.validate(f)) throw std::invalid_argument(*err);  // validated before
  }
  faults.schedule(config.faults);
  world.run_until(start);
  for (auto& c : clients) start_client(*c);

  // With faults, load goes on until liveness can be judged, with room for a last acquire
  // (unless the run has a fixed length).
  const TrueTime end_of_load = start + load_length(config, 2 * config.workload.acquire_timeout);
  world.run_until(end_of_load);
  stop->requested = true;
  // Drain: let clients finish their cycle (release what they hold), up to a bound.
  const TrueTime drain_end = end_of_load + config.workload.drain_timeout;
  while (world.now() < drain_end) {
    bool busy = false;
    for (const auto& c : clients) busy = busy || !c->loop.done();
    if (!busy) break;
    world.run_until(std::min(drain_end, world.now() + milliseconds(100)));
  }

  RunResult result;
  result.stats.events_run = world.events_run();
  result.stats.messages_sent = network.messages_sent();
  result.stats.messages_dropped = network.messages_dropped();
  result.stats.simulated_seconds = to_seconds(world.now().time_since_epoch());
  // Tasks must die before the world they run in.
  for (auto& c : clients) {
    c->loop = SpawnHandle();
    c->lock.reset();
    c->node->destroy_all_tasks();
    c->resource.reset();
  }
  world.set_observer(nullptr);
  result.history = std::move(recorder.history());
  result.checks = run_checks(config, result.history);
  return result;
}

}  // namespace lockstep
