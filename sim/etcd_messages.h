// The messages of the simulated etcd: what a client sends a member, what it gets back, and
// what members replicate in their log. In-process values, never serialised.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <variant>

#include "lockstep/kv/result.h"
#include "lockstep/kv/types.h"
#include "lockstep/sim/world.h"

namespace lockstep::sim {

struct WatchCancelRequest {
  std::int64_t watch_id = 0;
};

// gRPC's cancellation of a call whose deadline passed (RST_STREAM on the call's stream): the
// call is the one its ReplyRoute names. No reply.
struct CallCancel {};

using ClientRequest =
    std::variant<RangeRequest, PutRequest, DeleteRangeRequest, TxnRequest, CompactionRequest,
                 LeaseGrantRequest, LeaseRevokeRequest, LeaseKeepAliveRequest,
                 LeaseTimeToLiveRequest, WatchCreateRequest, WatchCancelRequest, CallCancel,
                 LockRequest, UnlockRequest>;

using ClientResponse =
    std::variant<RangeResponse, PutResponse, DeleteRangeResponse, TxnResponse, CompactionResponse,
                 LeaseGrantResponse, LeaseRevokeResponse, LeaseKeepAliveResponse,
                 LeaseTimeToLiveResponse, WatchResponse, LockResponse, UnlockResponse>;

// Where a reply goes: the client process and its call id, and when the client sent the call
// (true time; the history's truth events name it as the cause of what the call changed).
struct ReplyRoute {
  ProcessId client = 0;
  std::uint64_t call_id = 0;
  std::int64_t sent_ns = 0;
  // The deadline gRPC sends with the call (grpc-timeout), relative to its arrival; 0: none.
  // Only the lock service's waits use it (see lock_service.h).
  std::int64_t timeout_ns = 0;
  // The client call this one was made for: the lock service's requests to its own member
  // name the Lock or Unlock call they serve (for_client 0: none).
  ProcessId for_client = 0;
  std::uint64_t for_call_id = 0;
  const char* for_request = "";  // "lock" or "unlock" (a static string)
};

// A replicated write. Lease ids are chosen by the proposing member, so every member applies
// the same entry the same way.
using LogOp = std::variant<PutRequest, DeleteRangeRequest, TxnRequest, CompactionRequest,
                           LeaseGrantRequest, LeaseRevokeRequest>;

// Why a lease-expiry revoke was proposed: the leader's lessor found the lease expired on the
// leader's clock. The history's truth events name these as the cause of the keys it deletes.
struct LeaseExpiryCause {
  int leader = -1;                 // the member that proposed the revoke
  std::uint64_t term = 0;          // its term then
  std::int64_t found_ns = 0;       // when its lessor found the lease expired (true time)
  std::int64_t renewed_ns = -1;    // its last renewal of the lease (true time; -1: unknown)
  const char* renewed_by = "";     // "keep-alive", "grant" or "leader-election"
};

struct LogEntry {
  std::uint64_t term = 0;
  LogOp op;
  int origin_member = -1;          // the member whose client waits for the result
  std::uint64_t origin_request = 0;  // that member's pending-request id
  // The client call the entry carries (call_id 0: none, e.g. a lessor's revoke); the member
  // that received it is origin_member.
  ReplyRoute client_call;
  bool from_lease_expiry = false;  // a revoke the leader's lessor proposed, with its cause
  LeaseExpiryCause expiry;
};

// A log entry once the leader appended it: immutable, and shared by every member's log and
// every append message that carries it, instead of a copy of the request in each.
// Counted without atomics, in the same block as the entry. Why not shared_ptr<const
// LogEntry>: its count is atomic once the program has threads (explore runs worlds in
// parallel), and each append copies and drops several; an entry never leaves its world,
// and a world runs on one thread.
class SharedLogEntry {
 public:
  SharedLogEntry() noexcept = default;
  explicit SharedLogEntry(LogEntry&& entry) : counted_(new Counted{std::move(entry), 1}) {}
  SharedLogEntry(const SharedLogEntry& other) noexcept : counted_(other.counted_) {
    if (counted_) ++counted_->refs;
  }
  SharedLogEntry(SharedLogEntry&& other) noexcept : counted_(other.counted_) {
    other.counted_ = nullptr;
  }
  SharedLogEntry& operator=(SharedLogEntry other) noexcept {
    std::swap(counted_, other.counted_);
    return *this;
  }
  ~SharedLogEntry() {
    if (counted_ && --counted_->refs == 0) delete counted_;
  }

  const LogEntry& operator*() const { return counted_->entry; }
  const LogEntry* operator->() const { return &counted_->entry; }

 private:
  struct Counted {
    LogEntry entry;
    std::uint64_t refs;
  };
  Counted* counted_ = nullptr;
};

}  // namespace lockstep::sim
