// The protected resource of a real run: an in-process counter service shared by the client
// threads (the simulator's SimResourceService, without a network in between).
//
// Contract: same rules and same history as the simulated resource: a fenced service rejects
// any call whose token is below the highest it has seen; every call it serves is recorded as
// a `truth` event "resource-read" / "resource-write" with the same args (client, token,
// accepted, fenced, base, value, order, reason), which the resource check judges. A call is
// served the moment the client makes it (no latency, no faults: `resource` is not a
// process the real backend can pause or partition). Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "lockstep/harness/counter_resource.h"
#include "lockstep/real_run/history_log.h"
#include "lockstep/harness/resource.h"

namespace lockstep {

class RealResourceService {
 public:
  RealResourceService(RealHistoryLog& log, bool fenced) : log_(log), counter_(fenced) {}

  using Reply = CounterResource::Reply;
  Reply serve(const std::string& client, bool is_write, std::int64_t base, std::int64_t value,
              std::int64_t token);

 private:
  RealHistoryLog& log_;
  std::mutex mu_;
  CounterResource counter_;
};

class RealResourceClient final : public ProtectedResource {
 public:
  RealResourceClient(RealResourceService& service, std::string client)
      : service_(service), client_(std::move(client)) {}

  Task<Result<ResourceRead>> read(std::int64_t token) override;
  Task<Result<ResourceWrite>> write(std::int64_t base, std::int64_t value,
                                    std::int64_t token) override;

 private:
  RealResourceService& service_;
  std::string client_;
};

}  // namespace lockstep
