// Random fault schedules, swarm-style: each seed draws its own mix.
//
// Contract: generate_faults() is a pure function of (rng seed, options). Of the enabled
// classes, each seed switches on a random non-empty subset and draws, per class, how many
// faults, when, how long, and whom they hit, so that different seeds stress different mixes
// (swarm testing). max_fault_duration caps every fault's duration (e.g. below a lease TTL).
// With lease_ttl set (the algorithm's lease), about one pause, crash, partition and
// lease-drop in three lasts between half and one and a half TTLs (within the cap): the
// faults a lease-based lock breaks under, which durations drawn up to 15 s would never reach
// for a 60 s lease. Those draws come from their own random stream, so with lease_ttl 0 (or a
// cap below half the TTL) the schedule is exactly what it would be without the option.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "lockstep/kv/rng.h"
#include "lockstep/sim/faults.h"

namespace lockstep {

struct FaultGenOptions {
  std::set<std::string> classes;  // enabled fault classes
  Duration run_length = seconds(30);
  Duration max_fault_duration = seconds(20);
  Duration lease_ttl = Duration(0);  // 0: the algorithm holds no lease
  int clients = 3;
  int members = 3;
  bool with_resource = false;  // a "resource" process exists
};

std::vector<sim::FaultSpec> generate_faults(Rng rng, const FaultGenOptions& options);

// Parses a --faults value: a comma list of classes, "all" or "none". On error returns a
// message naming the unknown class.
std::optional<std::string> parse_fault_classes(const std::string& text, std::set<std::string>& out);

}  // namespace lockstep
