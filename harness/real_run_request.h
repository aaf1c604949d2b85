// The expansion of a user's request (RunRequest: algorithm, seed, clients, members, fault
// classes) into a RealRunConfig, like expand_run_request() does for the simulator.
//
// Differences, because real processes are not simulated ones:
//   - fault classes the real backend does not support are refused (the message lists them);
//   - the random schedule draws only targets the backend can hit: no `resource` process, and
//     with --endpoints no members (clients only);
//   - clock faults drawn for a member hit a client instead (member clocks are not ours);
//   - the liveness bound defaults to the lock's lease TTL + 10 s (20 s without a TTL) instead
//     of the simulator's 60 s, so that a real run with faults does not idle for a minute.
#pragma once

#include <string>

#include "harness/real_run_config.h"
#include "harness/run_request.h"

namespace lockstep {

// Fills `out`; returns an error message naming the bad field, or empty.
std::string expand_real_run_request(const RunRequest& request, const RealBackendOptions& backend,
                                    RealRunConfig& out);

}  // namespace lockstep
