// rapidcheck generators of scenarios (RunConfig), for properties such as "for every scenario
// with faults below the TTL, etcd-mutex keeps mutual exclusion".
//
// Contract:
//   - gen_run_config(options) generates configs that pass validate_run_config() and that the
//     scenario format writes exactly (whole milliseconds, canonical faults): a counterexample
//     printed by rapidcheck is a scenario file `lockstep replay` runs.
//   - rapidcheck shrinks a failing config towards fewer faults, fewer clients, shorter load
//     and shorter, earlier faults.
//   - Header-only, so that lockstep's libraries do not depend on rapidcheck; include it from
//     test code that links rapidcheck.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "lockstep/harness/run_config.h"
#include "lockstep/harness/scenario.h"
#include "lockstep/harness/sim_runner.h"

namespace lockstep {

struct ScenarioGenOptions {
  std::string algorithm = "etcd-mutex";
  AlgorithmOptions algorithm_options;     // unset options take the algorithm's defaults
  std::set<std::string> fault_classes;    // empty: every class of the catalogue
  int min_clients = 2;
  int max_clients = 5;
  std::vector<int> members = {3};         // drawn from these (1, 3 or 5)
  Duration min_duration = seconds(2);     // the load
  Duration max_duration = seconds(10);
  int max_faults = 4;
  Duration max_fault_duration = seconds(5);  // e.g. below the lease TTL
  std::vector<std::string> checks;        // empty: every check
  // Runs go on for this long after the last fault heals (see sim_runner.cc): short keeps
  // properties fast.
  Duration liveness_bound = seconds(5);
  Duration drain_timeout = seconds(10);
};

namespace scenario_gen_detail {

inline std::string client(int i) { return "client-" + std::to_string(i); }
inline std::string member(int i) { return "member-" + std::to_string(i); }

inline std::vector<std::string> all_members(int members) {
  std::vector<std::string> v;
  for (int i = 0; i < members; ++i) v.push_back(member(i));
  return v;
}

inline std::int64_t pick(std::int64_t lo, std::int64_t hi_inclusive) {
  return *rc::gen::inRange<std::int64_t>(lo, hi_inclusive + 1);
}

// Any process of the run: clients first, so that shrinking moves faults onto client-0.
inline std::string any_process(int clients, int members) {
  const auto i = static_cast<int>(pick(0, clients + members - 1));
  return i < clients ? client(i) : member(i - clients);
}

// One fault of `kind`, in the canonical form that fault_to_json and the scenario reader
// round-trip.
inline sim::FaultSpec fault_of(const std::string& kind, int clients, int members,
                               Duration run_length, Duration max_fault_duration) {
  sim::FaultSpec f;
  f.kind = kind;
  f.start = milliseconds(pick(0, std::max<std::int64_t>(0, to_ms(run_length) - 1)));
  const std::int64_t max_ms = std::max<std::int64_t>(1, to_ms(max_fault_duration));
  f.duration = milliseconds(pick(1, max_ms));
  if (kind == "partition" || kind == "delay" || kind == "loss" || kind == "duplicate" ||
      kind == "reorder") {
    if (members > 1 && *rc::gen::arbitrary<bool>()) {
      const auto m = static_cast<int>(pick(0, members - 1));
      f.from = {member(m)};
      for (int i = 0; i < members; ++i)
        if (i != m) f.to.push_back(member(i));
    } else {
      f.from = {client(static_cast<int>(pick(0, clients - 1)))};
      f.to = all_members(members);
    }
    f.symmetric = !*rc::gen::arbitrary<bool>();  // shrinks towards symmetric
    if (kind == "loss") f.probability = static_cast<double>(pick(5, 50)) / 100.0;
    if (kind == "duplicate") f.probability = static_cast<double>(pick(5, 30)) / 100.0;
    if (kind == "delay") f.amount = milliseconds(pick(5, 800));
    if (kind == "reorder") f.amount = milliseconds(pick(1, 50));
  } else if (kind == "pause" || kind == "crash") {
    f.targets = {any_process(clients, members)};
  } else if (kind == "lease-drop") {
    f.targets = {client(static_cast<int>(pick(0, clients - 1)))};
  } else if (kind == "clock") {
    f.targets = {any_process(clients, members)};
    f.clock = *rc::gen::element<std::string>("monotonic", "wall", "both");
    if (*rc::gen::arbitrary<bool>()) {
      f.rate_ppm = *rc::gen::element<std::int64_t>(500'000, 900'000, 1'100'000, 2'000'000);
    } else {
      f.amount = milliseconds(pick(-3000, 3000));
    }
  } else if (kind == "leader-change" || kind == "compaction") {
    f.duration = Duration(0);
  } else if (kind == "slow-revoke") {
    f.amount = milliseconds(pick(500, 5000));
  }
  return f;
}

}  // namespace scenario_gen_detail

inline rc::Gen<RunConfig> gen_run_config(const ScenarioGenOptions& o) {
  return rc::gen::exec([o] {
    namespace d = scenario_gen_detail;
    RunConfig c = default_run_config();
    c.algorithm = o.algorithm;
    c.algorithm_options = o.algorithm_options;
    // Not shrunk: a smaller seed is no simpler scenario, and trying them costs many runs.
    c.seed = *rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>());
    c.workload.clients = static_cast<int>(d::pick(o.min_clients, o.max_clients));
    c.etcd.members = *rc::gen::elementOf(o.members);
    c.workload.duration = milliseconds(d::pick(to_ms(o.min_duration), to_ms(o.max_duration)));
    c.workload.drain_timeout = o.drain_timeout;
    c.liveness_bound = o.liveness_bound;
    c.checks = o.checks;
    std::vector<std::string> classes;
    for (const auto& fc : sim::fault_catalogue())
      if (o.fault_classes.empty() || o.fault_classes.count(fc.name)) classes.push_back(fc.name);
    const auto count = static_cast<int>(d::pick(0, classes.empty() ? 0 : o.max_faults));
    for (int i = 0; i < count; ++i) {
      const std::string kind = *rc::gen::elementOf(classes);
      c.faults.push_back(d::fault_of(kind, c.workload.clients, c.etcd.members,
                                     c.workload.duration, o.max_fault_duration));
    }
    // Checked here so that a bad option fails loudly instead of as a property violation.
    if (auto err = validate_run_config(c); !err.empty())
      throw std::invalid_argument("gen_run_config: " + err);
    return c;
  });
}

// How rapidcheck prints a counterexample: the scenario file to save and replay.
inline void showValue(const RunConfig& config, std::ostream& os) {
  os << "scenario (save it as a file and run `lockstep replay FILE`):\n"
     << scenario_to_text(Scenario{config, "", "", ""});
}

}  // namespace lockstep
