#include "lockstep/real_run/lock_bench.h"

#include <algorithm>
#include <map>

#include "lockstep/real_run/runner.h"

namespace lockstep {

namespace {

double percentile_ms(std::vector<std::int64_t> ns, double q) {
  if (ns.empty()) return 0;
  std::sort(ns.begin(), ns.end());
  const auto k = static_cast<std::size_t>(q * static_cast<double>(ns.size() - 1) + 0.5);
  return static_cast<double>(ns[std::min(k, ns.size() - 1)]) / 1e6;
}

}  // namespace

LockBenchResult run_lock_bench(const LockBenchCase& c) {
  RealRunConfig config;
  RunConfig& run = config.run;
  run.algorithm = c.algorithm;
  run.algorithm_options = c.options;
  if (const AlgorithmInfo* info = find_algorithm(c.algorithm)) (void)resolve_options(*info, run.algorithm_options);
  run.seed = 1;
  run.etcd.members = c.members;
  run.workload.clients = c.clients;
  run.workload.duration = c.length;
  run.workload.critical_section = Duration(0);
  run.workload.think_time = Duration(0);
  run.workload.use_resource = false;
  run.workload.drain_timeout = seconds(10);
  run.extend_load_for_liveness = false;
  run.checks = {"mutex"};
  config.backend.etcd_binary = c.etcd_binary;
  config.backend.client_cmd = c.client_cmd;

  LockBenchResult r;
  const RealRunOutcome out = run_real(config, nullptr);
  if (!out.error.empty() || !out.bad_client.empty()) {
    r.error = out.error.empty() ? out.bad_client : out.error;
    return r;
  }
  // Each client's cycles: from its acquire's invoke to the ok of the release that follows it.
  std::map<std::string, std::int64_t> acquired_from;  // client -> acquire invoke, once granted
  std::map<std::string, std::int64_t> invoked;        // client -> its open operation's invoke
  std::vector<std::int64_t> cycle_ns;
  std::int64_t first_ns = -1, last_ns = 0;
  for (const auto& e : out.result.history.events) {
    if (e.process.rfind("client-", 0) != 0) continue;
    if (e.kind == EventKind::invoke) {
      invoked[e.process] = e.true_ns;
      if (first_ns < 0) first_ns = e.true_ns;
    } else if (e.op == "acquire" && e.kind == EventKind::ok) {
      acquired_from[e.process] = invoked[e.process];
    } else if (e.op == "release" && e.kind == EventKind::ok && acquired_from.count(e.process)) {
      cycle_ns.push_back(e.true_ns - acquired_from[e.process]);
      acquired_from.erase(e.process);
      last_ns = e.true_ns;
    }
  }
  r.cycles = static_cast<std::int64_t>(cycle_ns.size());
  if (r.cycles > 0 && last_ns > first_ns)
    r.cycles_per_second = static_cast<double>(r.cycles) / (static_cast<double>(last_ns - first_ns) / 1e9);
  r.p50_ms = percentile_ms(cycle_ns, 0.50);
  r.p99_ms = percentile_ms(cycle_ns, 0.99);
  for (const auto& check : out.result.checks)
    if (check.name == "mutex") r.mutex_ok = check.status == CheckStatus::ok;
  return r;
}

}  // namespace lockstep
