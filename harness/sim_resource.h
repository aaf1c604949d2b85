// The protected resource as a simulated service: its own process on the simulated network,
// so its messages can be delayed, lost and partitioned like any other.
//
// Contract: SimResourceService holds the counter, the highest token seen, and (when fenced)
// rejects stale tokens. It records every call it serves as a `truth` event
// ("resource-read" / "resource-write", with client, token, base, value, accepted, order), the
// resource's own view that the resource checker judges. SimResourceClient is a client
// process's stub: one request, one reply, an indeterminate timeout after request_timeout.
#pragma once

#include <map>
#include <memory>

#include "lockstep/harness/counter_resource.h"
#include "lockstep/harness/resource.h"
#include "lockstep/sim/network.h"
#include "lockstep/sim/wake.h"
#include "lockstep/sim/world.h"

namespace lockstep {

class SimResourceService {
 public:
  SimResourceService(sim::World& world, sim::Network& network, bool fenced);
  sim::ProcessId pid() const { return pid_; }

  using Reply = CounterResource::Reply;
  // Runs on the resource process when a request arrives.
  Reply serve(sim::ProcessId client, bool is_write, std::int64_t base, std::int64_t value,
              std::int64_t token);

 private:
  sim::World& world_;
  sim::ProcessId pid_;
  CounterResource counter_;
};

class SimResourceClient : public ProtectedResource {
 public:
  SimResourceClient(sim::World& world, sim::Network& network, SimResourceService& service,
                    sim::ProcessId client, Duration request_timeout);

  Task<Result<ResourceRead>> read(std::int64_t token) override;
  Task<Result<ResourceWrite>> write(std::int64_t base, std::int64_t value, std::int64_t token) override;

 private:
  Task<Result<SimResourceService::Reply>> call(bool is_write, std::int64_t base,
                                               std::int64_t value, std::int64_t token);

  sim::World& world_;
  sim::Network& network_;
  SimResourceService& service_;
  sim::ProcessId client_;
  Duration request_timeout_;
};

}  // namespace lockstep
