#include "lockstep/cli/demo_plan.h"

#include "lockstep/harness/scenario.h"

namespace lockstep::cli {

DemoPlan demo_plan(const AlgorithmInfo& info) {
  DemoPlan plan;
  if (info.capabilities.fencing || info.capabilities.guarded_writes) {
    plan.checks = {"resource", "liveness"};
    plan.expected_to_hold = true;
    plan.claim = std::string("expected to hold: ") +
                 (info.capabilities.fencing ? "fencing tokens" : "guarded txns") +
                 " keep the protected data correct under every fault, though two clients "
                 "may briefly both believe they hold the lock";
  } else {
    plan.claim = "expected to break under some fault";
  }
  return plan;
}

std::string checks_text(const std::vector<std::string>& checks) {
  std::string out;
  for (const auto& c : checks.empty() ? known_check_names() : checks) out += (out.empty() ? "" : ", ") + c;
  return out;
}

}  // namespace lockstep::cli
