// What `lockstep demo` asks of each algorithm of the catalogue: the checks that judge it and
// whether it is expected to hold them.
//
// Contract: a pure function of the algorithm's AlgorithmInfo (no table of names, so an
// algorithm added to the catalogue is planned too):
//   - An algorithm that fences its protected resource (capabilities.fencing) or keeps the
//     protected data in etcd behind guarded txns (capabilities.guarded_writes) claims that the
//     resource loses no update and the lock stays live under every fault, although two clients
//     may briefly both believe they hold the lock. It is judged by the resource and liveness
//     checks and expected to hold them, as harness/catalogue_verdicts_test.cc pins over 500
//     seeds; the demo reports it loudly if it does not.
//   - Every other algorithm is judged by every check and expected to break under some fault:
//     a lease alone cannot survive a holder paused past its TTL.
#pragma once

#include <string>
#include <vector>

#include "lockstep/algorithms/registry.h"

namespace lockstep::cli {

struct DemoPlan {
  std::vector<std::string> checks;  // the checks to run; empty: every check
  bool expected_to_hold = false;    // a violation is a bug, not a lesson
  std::string claim;                // for people: what is expected and why
};

DemoPlan demo_plan(const AlgorithmInfo& info);

// The checks joined by ", "; for an empty list (every check), every check name.
std::string checks_text(const std::vector<std::string>& checks);

}  // namespace lockstep::cli
