// The lock workload: what each client does, on any backend.
//
// Contract: a client loops acquire (with a deadline), critical section, release, think, until
// told to stop or its cycle budget is spent. Every acquire, release, and resource read and
// write is recorded as an operation: `ok`, `fail` (definite error) or `info` (indeterminate).
//   - A try-only lock is polled every try_retry_interval until the deadline; the polling is
//     one "acquire" operation, as a caller of such a lock experiences it.
//   - A lock with shared mode is acquired in shared mode shared_percent of the time; a shared
//     holder only reads the resource.
//   - A reentrant lock is re-acquired reentrant_depth times inside the critical section and
//     released as often.
//   - The critical section reads the protected resource and writes the value plus one, with
//     the holding's fencing token, when there is a resource.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "lockstep/algorithms/lock.h"
#include "lockstep/checker/history.h"
#include "lockstep/harness/resource.h"
#include "lockstep/harness/run_config.h"
#include "lockstep/kv/node_context.h"

namespace lockstep {

class OperationLog {
 public:
  virtual ~OperationLog() = default;
  virtual void invoke(const std::string& process, const std::string& op, nlohmann::json args,
                      Duration local) = 0;
  virtual void complete(const std::string& process, EventKind kind, nlohmann::json result,
                        Duration local) = 0;
};

struct ClientStop {
  bool requested = false;
};

// `resource` may be null (no protected resource).
Task<void> run_lock_client(NodeContext* ctx, Lock* lock, ProtectedResource* resource,
                           OperationLog* log, WorkloadConfig config,
                           std::shared_ptr<ClientStop> stop);

// The result of a failed call as history fields: {"error": name, "message": ...}.
nlohmann::json error_json(const Error& error);
EventKind completion_kind(const Error& error);

}  // namespace lockstep
