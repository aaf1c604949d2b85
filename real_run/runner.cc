#include "lockstep/real_run/runner.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "lockstep/harness/checks.h"
#include "lockstep/real_run/client.h"
#include "lockstep/real_run/cluster.h"
#include "lockstep/real_run/external_client.h"
#include "lockstep/real_etcd/server_version.h"
#include "lockstep/real_run/faults.h"
#include "lockstep/real_run/history_log.h"
#include "lockstep/real_run/resource.h"
#include "lockstep/real_run/truth_watcher.h"
#include "lockstep/real_etcd/etcd_kv_client.h"
#include "lockstep/real_etcd/event_loop.h"
#include "lockstep/real_etcd/prefixed_kv_client.h"

namespace lockstep {

namespace {

using SteadyClock = std::chrono::steady_clock;

std::string unique_prefix(const RealRunConfig& config) {
  if (!config.backend.key_prefix.empty()) return config.backend.key_prefix;
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  static std::atomic<int> counter{0};
  return "lockstep-run/" + std::to_string(::getpid()) + "-" +
         std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(now).count()) + "-" +
         std::to_string(counter++) + "-s" + std::to_string(config.run.seed) + "/";
}

bool has_link_fault(const RunConfig& c) {
  return std::any_of(c.faults.begin(), c.faults.end(),
                     [](const sim::FaultSpec& f) {
                       return f.kind == "partition" || f.kind == "delay" || f.kind == "loss";
                     });
}

// One edge of the schedule: the start or end of fault `index`, at `at` after the clients'
// start. Built in the simulator's order (start, end per fault) and stably sorted by time, so
// simultaneous edges apply in the same order as there.
// How long a fault on a client role waits for the real client of that role before it starts on
// the client it names.
constexpr Duration kRoleWait = seconds(2);

struct Edge {
  Duration at;
  std::size_t index;
  bool start;
};

std::vector<Edge> schedule_edges(const std::vector<sim::FaultSpec>& faults) {
  std::vector<Edge> edges;
  for (std::size_t i = 0; i < faults.size(); ++i) {
    edges.push_back({faults[i].start, i, true});
    edges.push_back({faults[i].start + faults[i].duration, i, false});
  }
  std::stable_sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.at < b.at; });
  return edges;
}

bool interrupted(const std::atomic<bool>* interrupt) { return interrupt && interrupt->load(); }

Task<void> delete_prefix(KvClient* kv) {
  DeleteRangeRequest d;
  d.key = std::string(1, '\0');
  d.range_end = std::string(1, '\0');
  (void)co_await kv->delete_range(d);
}

// Best effort: an existing cluster is someone else's; leave no keys of the run behind.
void remove_run_keys(const std::vector<std::string>& endpoints, const std::string& prefix,
                     const RealBackendOptions& backend) {
  real::EventLoop loop;
  real::EtcdClientOptions options;
  options.endpoints = endpoints;
  options.call_deadline = backend.call_deadline;
  options.set_security(backend.security);
  auto kv = real::EtcdKvClient::create(loop, options);
  if (!kv) return;
  {
    real::PrefixedKvClient prefixed(*kv.value(), prefix);
    loop.run(delete_prefix(&prefixed));
  }
  kv.value().reset();
}

}  // namespace

std::string validate_real_run_config(const RealRunConfig& config) {
  const bool local = config.backend.endpoints.empty();
  if (local && config.run.etcd.members != 1 && config.run.etcd.members != 3)
    return "a local etcd cluster has 1 or 3 members (--members)";
  if (config.run.workload.clients < 1) return "clients must be at least 1";
  std::set<std::string> classes = config.run.fault_classes;
  for (const auto& f : config.run.faults) classes.insert(f.kind);
  const bool external = !config.backend.client_cmd.empty();
  if (auto err = check_real_fault_classes(classes, local, external); !err.empty()) return err;
  const AlgorithmInfo* info = find_algorithm(config.run.algorithm);
  if (!info) return "unknown algorithm \"" + config.run.algorithm + "\"";
  if (external && info->capabilities.guarded_writes)
    return "an external client cannot stand for " + info->name +
           ": its critical section writes through etcd, which the client protocol has no call for";
  return {};
}

Result<std::string> existing_cluster_version(const RealBackendOptions& backend) {
  real::EtcdClientOptions options;
  options.endpoints = backend.endpoints;
  options.set_security(backend.security);
  return real::etcd_server_version(options, backend.call_deadline);
}

RealRunOutcome run_real(const RealRunConfig& config, const std::atomic<bool>* interrupt) {
  RealRunOutcome out;
  if (auto err = validate_real_run_config(config); !err.empty()) {
    out.error = err;
    return out;
  }
  const RunConfig& run = config.run;
  const AlgorithmInfo* info = find_algorithm(run.algorithm);
  const int clients_n = run.workload.clients;
  out.key_prefix = unique_prefix(config);

  const bool external = !config.backend.client_cmd.empty();
  // External clients always go through the link proxies: the endpoints they are given stay the
  // same whatever the schedule.
  auto opened = RealCluster::open(config.backend, run.etcd.members, clients_n,
                                  has_link_fault(run) || external, interrupt);
  if (!opened) {
    out.error = opened.error().message;
    out.interrupted = interrupted(interrupt);
    return out;
  }
  std::unique_ptr<RealCluster> cluster = std::move(opened.value());

  RealHistoryLog log;
  nlohmann::json meta = {{"seed", run.seed},
                         {"algorithm", run.algorithm},
                         {"backend", "etcd"},
                         {"cluster", cluster->local() ? "local" : "external"},
                         {"clients", clients_n},
                         {"members", cluster->members()},
                         {"key_prefix", escape_bytes(out.key_prefix)}};
  if (external) meta["client_cmd"] = config.backend.client_cmd;
  log.set_meta(std::move(meta));

  auto start_revision =
      RealTruthWatcher::current_revision(cluster->direct_endpoints(), config.backend.call_deadline,
                                         config.backend.security);
  if (!start_revision) {
    out.error = "cannot read from etcd at " + cluster->direct_endpoints().front() + ": " +
                start_revision.error().to_string();
    return out;
  }
  RealTruthWatcher truth(cluster->direct_endpoints(), out.key_prefix, config.backend.call_deadline,
                         config.backend.security, log);
  truth.start(start_revision.value() + 1);

  RealResourceService resource(log, info->capabilities.fencing);
  LockSetup lock_setup;
  lock_setup.lock_name = run.lock_name;
  lock_setup.options = run.algorithm_options;
  // Client rng streams as in the simulator: one per client, from the seed.
  auto client_seed = [&](int i) {
    return Rng(run.seed).fork("client").fork(static_cast<std::uint64_t>(i)).next_u64();
  };
  std::vector<std::unique_ptr<RealClientControl>> clients;
  std::vector<ExternalClient*> external_clients;
  for (int i = 0; i < clients_n && external; ++i) {
    ExternalClientSetup s;
    s.name = "client-" + std::to_string(i);
    s.command = config.backend.client_cmd;
    s.endpoints = cluster->client_endpoints(i);
    s.key_prefix = out.key_prefix;
    s.lock_name = out.key_prefix + run.lock_name;
    for (const auto& [option, value] : run.algorithm_options) s.options.emplace_back(option, value);
    s.security = config.backend.security;
    s.capabilities = info->capabilities;
    s.workload = run.workload;
    s.rng_seed = client_seed(i);
    s.log = &log;
    s.resource = &resource;
    auto c = std::make_unique<ExternalClient>(std::move(s));
    if (auto ok = c->start(); !ok) {
      out.error = ok.error().message;
      out.client_stderr[c->name()] = c->stderr_text();
      return out;
    }
    external_clients.push_back(c.get());
    clients.push_back(std::move(c));
  }
  for (int i = 0; i < clients_n && !external; ++i) {
    RealClientSetup s;
    s.name = "client-" + std::to_string(i);
    s.endpoints = cluster->client_endpoints(i);
    s.endpoint_names = cluster->client_endpoint_names(i);
    s.key_prefix = out.key_prefix;
    s.call_deadline = config.backend.call_deadline;
    s.security = config.backend.security;
    s.algorithm = info;
    s.lock_setup = lock_setup;
    s.workload = run.workload;
    s.rng_seed = client_seed(i);
    s.log = &log;
    s.resource = &resource;
    s.guarded_data_key = guarded_data_key(run);
    auto c = std::make_unique<RealClient>(std::move(s));
    if (auto ok = c->start(); !ok) {
      out.error = "client-" + std::to_string(i) + ": " + ok.error().message;
      return out;
    }
    clients.push_back(std::move(c));
  }

  RealFaultTargets targets;
  targets.cluster = cluster->local_cluster();
  targets.proxy = cluster->proxy();
  for (auto& c : clients) targets.clients[c->name()] = c.get();
  targets.endpoints = cluster->direct_endpoints();
  targets.key_prefix = out.key_prefix;
  targets.call_deadline = config.backend.call_deadline;
  targets.security = config.backend.security;
  targets.client_roles = config.client_roles;
  targets.role_held_at = config.role_held_at;
  RealFaultInjector faults(log, targets);
  std::vector<Edge> edges = schedule_edges(run.faults);

  const Duration end_of_load = load_length(run, Duration(0));

  std::string client_failure;
  auto check_clients = [&] {
    for (auto& c : clients) {
      if (auto e = c->failure()) {
        try {
          std::rethrow_exception(e);
        } catch (const BadClientError& ex) {
          out.bad_client = ex.what();
        } catch (const std::exception& ex) {
          client_failure = c->name() + " failed: " + ex.what();
        } catch (...) {
          client_failure = c->name() + " failed";
        }
        return false;
      }
    }
    return true;
  };

  std::set<std::size_t> postponed;  // faults whose start waited for a client role
  const auto t0 = SteadyClock::now();
  std::size_t next_edge = 0;
  // Faults at time 0 are in force before any client starts, as in the simulator (where they
  // are scheduled before the clients' start event).
  for (; next_edge < edges.size() && edges[next_edge].at <= Duration(0); ++next_edge) {
    const Edge& e = edges[next_edge];
    e.start ? faults.begin(run.faults[e.index]) : faults.end(run.faults[e.index]);
  }
  for (auto& c : clients) c->start_workload();
  while (!interrupted(interrupt) && check_clients()) {
    const Duration now = std::chrono::duration_cast<Duration>(SteadyClock::now() - t0);
    bool waiting_for_role = false;
    while (next_edge < edges.size() && edges[next_edge].at <= now) {
      const Edge e = edges[next_edge];
      const Duration late = now - e.at;
      // A fault on a client role waits (up to kRoleWait) for the real client of that role: the
      // run's end edge moves with it, so the fault keeps its length.
      if (e.start && late < kRoleWait && !faults.ready(run.faults[e.index])) {
        waiting_for_role = true;
        postponed.insert(e.index);
        break;
      }
      ++next_edge;
      if (!e.start) {
        faults.end(run.faults[e.index]);
        continue;
      }
      const Duration waited = postponed.count(e.index) ? late : Duration(0);
      faults.begin(run.faults[e.index], waited);
      if (waited.count() > 0) {
        for (std::size_t j = next_edge; j < edges.size(); ++j)
          if (edges[j].index == e.index && !edges[j].start) edges[j].at += waited;
        std::stable_sort(edges.begin() + static_cast<std::ptrdiff_t>(next_edge), edges.end(),
                         [](const Edge& a, const Edge& b) { return a.at < b.at; });
      }
    }
    if (now >= end_of_load && next_edge == edges.size()) break;
    Duration wait = waiting_for_role ? milliseconds(1) : milliseconds(20);
    if (next_edge < edges.size() && !waiting_for_role) wait = std::min(wait, edges[next_edge].at - now);
    std::this_thread::sleep_for(std::max(wait, Duration(0)));
  }
  // Whatever stopped the load: every fault ends, so clients can drain and members stop.
  faults.heal_all();
  for (auto& c : clients) c->request_stop();
  const auto drain_end = SteadyClock::now() + run.workload.drain_timeout;
  while (SteadyClock::now() < drain_end && !interrupted(interrupt)) {
    bool busy = false;
    for (auto& c : clients) busy = busy || !c->workload_done();
    if (!busy) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (client_failure.empty() && out.bad_client.empty()) check_clients();  // one that failed draining
  const double seconds_run =
      std::chrono::duration<double>(SteadyClock::now() - t0).count();
  for (ExternalClient* c : external_clients) out.client_stderr[c->name()] = c->stderr_text();
  external_clients.clear();
  clients.clear();  // joins every client thread; their tasks die first
  if (!truth.finish(seconds(5)))
    log.trace("etcd", Duration(0), "truth watcher: did not catch up with the end of the run");
  if (!cluster->local()) {
    remove_run_keys(cluster->direct_endpoints(), out.key_prefix, config.backend);
  }
  cluster.reset();  // stops and removes a local cluster

  out.interrupted = interrupted(interrupt);
  if (!client_failure.empty() && out.bad_client.empty()) {
    out.error = client_failure;
    return out;
  }
  out.result.history = log.take();
  out.result.stats.simulated_seconds = seconds_run;  // real seconds here
  out.result.checks = run_checks(run, out.result.history);
  return out;
}

}  // namespace lockstep
