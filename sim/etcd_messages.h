// The messages of the simulated etcd: what a client sends a member, what it gets back, and
// what members replicate in their log. In-process values, never serialised.
#pragma once

#include <cstdint>
#include <memory>
#include <variant>

#include "kv/result.h"
#include "kv/types.h"
#include "sim/world.h"

namespace lockstep::sim {

struct WatchCancelRequest {
  std::int64_t watch_id = 0;
};

using ClientRequest =
    std::variant<RangeRequest, PutRequest, DeleteRangeRequest, TxnRequest, CompactionRequest,
                 LeaseGrantRequest, LeaseRevokeRequest, LeaseKeepAliveRequest,
                 LeaseTimeToLiveRequest, WatchCreateRequest, WatchCancelRequest>;

using ClientResponse =
    std::variant<RangeResponse, PutResponse, DeleteRangeResponse, TxnResponse, CompactionResponse,
                 LeaseGrantResponse, LeaseRevokeResponse, LeaseKeepAliveResponse,
                 LeaseTimeToLiveResponse, WatchResponse>;

// Where a reply goes: the client process and its call id.
struct ReplyRoute {
  ProcessId client = 0;
  std::uint64_t call_id = 0;
};

// A replicated write. Lease ids are chosen by the proposing member, so every member applies
// the same entry the same way.
using LogOp = std::variant<PutRequest, DeleteRangeRequest, TxnRequest, CompactionRequest,
                           LeaseGrantRequest, LeaseRevokeRequest>;

struct LogEntry {
  std::uint64_t term = 0;
  LogOp op;
  int origin_member = -1;          // the member whose client waits for the result
  std::uint64_t origin_request = 0;  // that member's pending-request id
  bool from_lease_expiry = false;  // a revoke the leader's lessor proposed
};

// Log entries are immutable once the leader appended them, so members' logs and append
// messages share one copy instead of copying the request in every message and every log.
using SharedLogEntry = std::shared_ptr<const LogEntry>;

}  // namespace lockstep::sim
