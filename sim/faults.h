// The fault catalogue and the injector that applies a fault schedule to a simulated run.
//
// Contract: a fault is a FaultSpec of one of the classes in fault_catalogue(), with a start
// (true time since the run began) and a duration. The injector applies it at its start and
// reverts it at its end (instant faults such as leader-change and compaction have duration
// 0), recording a `fault` event in the history at each edge ({"phase": "start"|"end", ...}),
// so that checkers and reports see exactly what was injected and when. Processes are named
// ("client-0", "member-2", "resource"); a spec naming an unknown process is refused by
// validate_fault().
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lockstep/kv/rng.h"
#include "lockstep/kv/time.h"
#include "lockstep/sim/etcd_cluster.h"
#include "lockstep/sim/network.h"
#include "lockstep/sim/world.h"

namespace lockstep::sim {

struct FaultClass {
  const char* name;
  const char* description;
};

// Every fault class, in a fixed order; their names are used everywhere (CLI, files, reports).
const std::vector<FaultClass>& fault_catalogue();
bool is_fault_class(const std::string& name);
// leader-change and compaction happen at their start: their duration is 0.
bool is_instant_fault(const std::string& kind);

// The fastest clock a clock fault may set: 100 times nominal (1000000 ppm).
constexpr std::int64_t kMaxClockRatePpm = 100'000'000;

struct FaultSpec {
  std::string kind;                   // a fault class name
  Duration start{0};                  // since the run's start, true time
  Duration duration{0};
  // Network faults (partition, delay, loss, duplicate, reorder): messages from `from` to
  // `to`, and back as well when `symmetric`.
  std::vector<std::string> from;
  std::vector<std::string> to;
  bool symmetric = true;
  // Process faults (pause, crash, clock, lease-drop): the processes hit.
  std::vector<std::string> targets;
  double probability = 0;             // loss, duplicate
  Duration amount{0};                 // delay: extra latency; reorder: window; clock: jump;
                                      // slow-revoke: revoke delay
  std::int64_t rate_ppm = 0;          // clock: drift rate while it lasts (0: unchanged)
  std::string clock = "monotonic";    // clock: "monotonic", "wall" or "both"
  std::int64_t revision = 0;          // compaction: 0 = the current revision at the start

  bool operator==(const FaultSpec&) const = default;
};

nlohmann::json fault_to_json(const FaultSpec& fault);
// The arguments of the history's fault event for one phase ("start" or "end"): the fault's
// fields without its kind (the event's op names it) and the phase.
nlohmann::json fault_event_args(const FaultSpec& fault, const char* phase);

class FaultInjector {
 public:
  FaultInjector(World& world, Network& network, EtcdCluster& cluster, TrueTime run_start);

  // Registers a process the faults may name.
  void add_process(const std::string& name, ProcessId pid);
  // An error message naming what is wrong with the spec, or nullopt.
  std::optional<std::string> validate(const FaultSpec& fault) const;
  void schedule(const std::vector<FaultSpec>& faults);

  // How many times each fault class started (coverage).
  const std::map<std::string, int>& started() const { return started_; }

 private:
  void begin(std::size_t index);
  void end(std::size_t index);
  std::set<ProcessId> pids(const std::vector<std::string>& names) const;
  // Overlapping faults of one kind on one target nest: only the first start and the last
  // end change anything. Returns true on those edges.
  bool first_start(const std::string& key) { return ++active_[key] == 1; }
  bool last_end(const std::string& key) { return --active_[key] == 0; }

  World& world_;
  Network& network_;
  EtcdCluster& cluster_;
  TrueTime run_start_;
  Rng rng_;
  std::map<std::string, ProcessId> processes_;
  std::vector<FaultSpec> faults_;
  std::map<std::size_t, std::vector<std::uint64_t>> rules_;  // network rules per fault
  std::map<std::string, int> started_;
  std::map<std::string, int> active_;
};

}  // namespace lockstep::sim
