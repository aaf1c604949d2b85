#include "lockstep/bench/sim_bench.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "lockstep/harness/history_recorder.h"
#include "lockstep/harness/run_request.h"
#include "lockstep/harness/sim_runner.h"
#include "lockstep/sim/etcd_cluster.h"
#include "lockstep/sim/network.h"
#include "lockstep/sim/sim_kv_client.h"
#include "lockstep/sim/sim_node.h"
#include "lockstep/sim/world.h"

namespace lockstep {

namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One client: put then range on its own key, for ever; counts completed requests.
Task<void> kv_loop(NodeContext* ctx, std::uint64_t* completed) {
  const std::string key = "/bench/" + ctx->node_name();
  for (;;) {
    PutRequest put;
    put.key = key;
    put.value = "value";
    Result<PutResponse> put_reply = co_await ctx->kv().put(std::move(put));
    (void)put_reply;
    ++*completed;
    RangeRequest range;
    range.key = key;
    Result<RangeResponse> range_reply = co_await ctx->kv().range(std::move(range));
    (void)range_reply;
    ++*completed;
  }
}

struct Client {
  std::unique_ptr<sim::SimKvClient> kv;
  std::unique_ptr<sim::SimNode> node;
  SpawnHandle loop;
};

struct KvLoad {
  std::uint64_t requests = 0;
  std::uint64_t events = 0;
  std::uint64_t messages = 0;
  History history;  // of a recorded load
};

// The KV load: `clients` clients hammering a 3-member cluster for `length` of simulated time.
// With `record`, a HistoryRecorder observes the world and records every client's KV calls
// (kv-send, kv-end), as in a `lockstep run`; the history is handed back (a run keeps it for
// its checks and files, so freeing it is no part of recording).
KvLoad kv_load(int clients, Duration length, bool record) {
  sim::World world(1);
  std::optional<HistoryRecorder> recorder;
  if (record) {
    recorder.emplace(world);
    world.set_observer(&*recorder);
  }
  sim::Network network(world, world.rng_for("network"), sim::LatencyConfig{});
  sim::EtcdConfig config;
  config.members = 3;
  sim::EtcdCluster cluster(world, network, config);
  const TrueTime start = TrueTime(config.election_timeout * 3);  // a leader by then
  world.run_until(start);
  std::uint64_t completed = 0;
  std::vector<Client> all(static_cast<std::size_t>(clients));
  for (int i = 0; i < clients; ++i) {
    auto& c = all[static_cast<std::size_t>(i)];
    const auto pid = world.add_process("client-" + std::to_string(i));
    sim::SimClientOptions options;
    options.preferred_member = i % config.members;
    options.record_calls = record;
    c.kv = std::make_unique<sim::SimKvClient>(world, cluster, pid, options);
    c.node = std::make_unique<sim::SimNode>(world, pid, *c.kv, world.rng_for("client").fork(static_cast<std::uint64_t>(i)));
    c.loop = c.node->spawn(kv_loop(c.node.get(), &completed), "kv-load");
  }
  world.run_until(start + length);
  for (auto& c : all) {  // tasks die before the world they run in
    c.loop = SpawnHandle();
    c.node->destroy_all_tasks();
  }
  world.set_observer(nullptr);
  KvLoad load{completed, world.events_run(), network.messages_sent(), {}};
  if (recorder) load.history = std::move(recorder->history());
  return load;
}

// noipa (never inlined, cloned or merged): bench/instructions.sh counts the instructions
// inside each by its name.
[[gnu::noipa]] KvLoad simulate_kv_load(int clients, Duration length) {
  return kv_load(clients, length, false);
}
[[gnu::noipa]] KvLoad simulate_recorded_kv_load(int clients, Duration length) {
  return kv_load(clients, length, true);
}
// The standard scenario's config for one seed (see sim_bench.h).
RunConfig standard_config(std::uint64_t seed, bool extend_load_for_liveness) {
  RunRequest r;
  r.algorithm = "etcd-mutex";
  r.seed = seed;
  r.clients = 5;
  r.members = 3;
  r.duration = seconds(60);
  r.faults = "all";
  // The standard scenario's faults fit in its 60 s, as they did before lease-scale faults
  // (whose 90 s pauses would make a seed simulate minutes).
  r.max_fault_duration = kDefaultMaxFaultDuration;
  r.extend_load_for_liveness = extend_load_for_liveness;
  RunConfig c;
  if (auto err = expand_run_request(r, c); !err.empty()) throw std::logic_error(err);
  c.record_kv_calls = false;  // as explore's seed search runs a seed (see RunConfig)
  return c;
}

// Two functions of their own, never inlined or merged though their bodies are the same
// (noipa), so that bench/instructions.sh can count the instructions of each kind of seed apart.
[[gnu::noipa]] RunResult run_standard_seed(const RunConfig& c) { return run_simulation(c); }
[[gnu::noipa]] RunResult run_liveness_seed(const RunConfig& c) { return run_simulation(c); }

struct SeedFigures {
  double cpu_seconds = 0, wall_seconds = 0, simulated_seconds = 0, events = 0;
};

SeedFigures time_standard_seeds(std::uint64_t seeds, bool extend_load_for_liveness) {
  SeedFigures f;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    const RunConfig c = standard_config(seed, extend_load_for_liveness);
    const double cpu0 = thread_cpu_seconds();
    const double wall0 = wall_seconds();
    const RunResult result = extend_load_for_liveness ? run_liveness_seed(c) : run_standard_seed(c);
    f.cpu_seconds += thread_cpu_seconds() - cpu0;
    f.wall_seconds += wall_seconds() - wall0;
    f.simulated_seconds += result.stats.simulated_seconds;
    f.events += static_cast<double>(result.stats.events_run);
  }
  return f;
}

}  // namespace

std::string default_checker_data_dir() { return LOCKSTEP_PORCUPINE_DATA_DIR; }

// The median of `values` (not empty); of an even count, the mean of the middle two.
double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::vector<BenchFigure> run_sim_bench(const SimBenchOptions& o) {
  std::vector<BenchFigure> out;
  const Duration kv_length(static_cast<std::int64_t>(o.kv_simulated_seconds * 1e9));
  // The KV load runs kv_runs times, plain and recorded in turn, so that a minute of other load
  // on the machine slows runs of both kinds alike; each figure is the median of its runs. A
  // simulated load is deterministic, so every run completes the same requests: a run that
  // did not would be a bug of the simulator, not noise.
  std::vector<double> rates, recorded_rates;
  KvLoad first;
  for (int run = 0; run < o.kv_runs; ++run) {
    double cpu0 = thread_cpu_seconds();
    KvLoad load = simulate_kv_load(o.kv_clients, kv_length);
    rates.push_back(static_cast<double>(load.requests) / (thread_cpu_seconds() - cpu0));
    cpu0 = thread_cpu_seconds();
    const KvLoad recorded = simulate_recorded_kv_load(o.kv_clients, kv_length);
    recorded_rates.push_back(static_cast<double>(recorded.requests) / (thread_cpu_seconds() - cpu0));
    const std::uint64_t expected = run == 0 ? load.requests : first.requests;
    for (const std::uint64_t completed : {load.requests, recorded.requests})
      if (completed != expected)
        throw std::logic_error("bench: the same KV load completed " + std::to_string(expected) +
                               " requests in one run and " + std::to_string(completed) +
                               " in another (the simulator is not deterministic)");
    if (run == 0) first = std::move(load);
  }
  const double requests = static_cast<double>(first.requests);
  const double rate = median(rates);
  out.push_back({"sim_kv_runs", static_cast<double>(o.kv_runs), "runs"});
  out.push_back({"sim_kv_requests", requests, "requests"});
  out.push_back({"sim_kv_requests_per_cpu_second", rate, "requests/s"});
  out.push_back({"sim_kv_requests_per_cpu_second_min", *std::min_element(rates.begin(), rates.end()),
                 "requests/s"});
  out.push_back({"sim_kv_requests_per_cpu_second_max", *std::max_element(rates.begin(), rates.end()),
                 "requests/s"});
  out.push_back({"sim_kv_events_per_request", static_cast<double>(first.events) / requests, "events"});
  out.push_back({"sim_kv_messages_per_request", static_cast<double>(first.messages) / requests, "messages"});
  out.push_back({"sim_events_per_cpu_second", static_cast<double>(first.events) / requests * rate,
                 "events/s"});
  out.push_back({"sim_kv_requests_per_cpu_second_recorded", median(recorded_rates), "requests/s"});
  // The standard scenario runs exactly its 60 s of load. The liveness variant is the same
  // seed with its load extended until liveness can be judged after the last fault (a run
  // checked for liveness, as `lockstep run` does by default): longer, and printed for context.
  const SeedFigures standard = time_standard_seeds(o.standard_seeds, false);
  const double n = static_cast<double>(o.standard_seeds);
  out.push_back({"standard_seeds", n, "seeds"});
  out.push_back({"standard_seeds_per_cpu_second", n / standard.cpu_seconds, "seeds/s"});
  out.push_back({"standard_seed_simulated_seconds", standard.simulated_seconds / n, "s"});
  out.push_back({"standard_seed_events", standard.events / n, "events"});
  out.push_back({"sim_to_wall_time_ratio", standard.simulated_seconds / standard.wall_seconds, "x"});
  const SeedFigures liveness = time_standard_seeds(o.standard_seeds, true);
  out.push_back({"liveness_seeds_per_cpu_second", n / liveness.cpu_seconds, "seeds/s"});
  out.push_back({"liveness_seed_simulated_seconds", liveness.simulated_seconds / n, "s"});
  return out;
}

}  // namespace lockstep
