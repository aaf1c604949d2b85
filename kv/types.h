// Plain C++ mirrors of the etcd v3 request and response messages.
//
// Contract: field for field the messages of etcd's rpc.proto / kv.proto (names in snake_case,
// same defaults), so that the gRPC backend is a mechanical translation and the simulator can
// be compared with a real server response by response. Keys and values are byte strings held
// in std::string. The wire field numbers are etcd's (real_etcd/proto holds the subset lockstep
// speaks); only the fields a lock client can observe are kept.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace lockstep {

using LeaseId = std::int64_t;
using Revision = std::int64_t;

struct KeyValue {
  std::string key;
  Revision create_revision = 0;
  Revision mod_revision = 0;
  std::int64_t version = 0;
  std::string value;
  LeaseId lease = 0;
  bool operator==(const KeyValue&) const = default;
};

struct ResponseHeader {
  std::uint64_t cluster_id = 0;
  std::uint64_t member_id = 0;
  Revision revision = 0;
  std::uint64_t raft_term = 0;
  bool operator==(const ResponseHeader&) const = default;
};

// ---- Range ----
enum class SortOrder { none = 0, ascend = 1, descend = 2 };
enum class SortTarget { key = 0, version = 1, create = 2, mod = 3, value = 4 };

struct RangeRequest {
  std::string key;
  std::string range_end;  // empty: one key; "\0": every key >= key; prefix_end(key): a prefix
  std::int64_t limit = 0;
  Revision revision = 0;  // <= 0: the latest
  SortOrder sort_order = SortOrder::none;
  SortTarget sort_target = SortTarget::key;
  bool serializable = false;
  bool keys_only = false;
  bool count_only = false;
  Revision min_mod_revision = 0;
  Revision max_mod_revision = 0;
  Revision min_create_revision = 0;
  Revision max_create_revision = 0;
};

struct RangeResponse {
  ResponseHeader header;
  std::vector<KeyValue> kvs;
  bool more = false;
  std::int64_t count = 0;
  bool operator==(const RangeResponse&) const = default;
};

// ---- Put ----
struct PutRequest {
  std::string key;
  std::string value;
  LeaseId lease = 0;
  bool prev_kv = false;
  bool ignore_value = false;
  bool ignore_lease = false;
};

struct PutResponse {
  ResponseHeader header;
  std::vector<KeyValue> prev_kv;  // zero or one element (protobuf optional message)
  bool operator==(const PutResponse&) const = default;
};

// ---- DeleteRange ----
struct DeleteRangeRequest {
  std::string key;
  std::string range_end;
  bool prev_kv = false;
};

struct DeleteRangeResponse {
  ResponseHeader header;
  std::int64_t deleted = 0;
  std::vector<KeyValue> prev_kvs;
  bool operator==(const DeleteRangeResponse&) const = default;
};

// ---- Txn ----
enum class CompareResult { equal = 0, greater = 1, less = 2, not_equal = 3 };
enum class CompareTarget { version = 0, create = 1, mod = 2, value = 3, lease = 4 };

struct Compare {
  CompareResult result = CompareResult::equal;
  CompareTarget target = CompareTarget::version;
  std::string key;
  // target_union: the member matching `target` is the one compared.
  std::int64_t version = 0;
  Revision create_revision = 0;
  Revision mod_revision = 0;
  std::string value;
  LeaseId lease = 0;
  std::string range_end;

  static Compare version_of(std::string key, CompareResult r, std::int64_t v);
  static Compare create_revision_of(std::string key, CompareResult r, Revision rev);
  static Compare mod_revision_of(std::string key, CompareResult r, Revision rev);
  static Compare value_of(std::string key, CompareResult r, std::string value);
  static Compare lease_of(std::string key, CompareResult r, LeaseId lease);
};

struct TxnRequest;
struct TxnResponse;

// RequestOp's oneof. A nested txn is held through a pointer to keep the type complete.
struct RequestOp {
  std::variant<RangeRequest, PutRequest, DeleteRangeRequest, std::shared_ptr<TxnRequest>> request;
};

struct ResponseOp {
  std::variant<RangeResponse, PutResponse, DeleteRangeResponse, std::shared_ptr<TxnResponse>>
      response;
  bool operator==(const ResponseOp& other) const;
};

struct TxnRequest {
  std::vector<Compare> compare;
  std::vector<RequestOp> success;
  std::vector<RequestOp> failure;
};

struct TxnResponse {
  ResponseHeader header;
  bool succeeded = false;
  std::vector<ResponseOp> responses;
  bool operator==(const TxnResponse&) const = default;
};

inline bool ResponseOp::operator==(const ResponseOp& other) const {
  if (response.index() != other.response.index()) return false;
  if (auto* a = std::get_if<std::shared_ptr<TxnResponse>>(&response)) {
    auto& b = std::get<std::shared_ptr<TxnResponse>>(other.response);
    if (!*a || !b) return !*a && !b;
    return **a == *b;
  }
  return response == other.response;
}

// ---- Compaction ----
struct CompactionRequest {
  Revision revision = 0;
  bool physical = false;
};
struct CompactionResponse {
  ResponseHeader header;
  bool operator==(const CompactionResponse&) const = default;
};

// ---- Leases ----
struct LeaseGrantRequest {
  std::int64_t ttl_seconds = 0;  // etcd's TTL field
  LeaseId id = 0;                // 0: the server chooses
};
struct LeaseGrantResponse {
  ResponseHeader header;
  LeaseId id = 0;
  std::int64_t ttl_seconds = 0;
  std::string error;
  bool operator==(const LeaseGrantResponse&) const = default;
};

struct LeaseRevokeRequest {
  LeaseId id = 0;
};
struct LeaseRevokeResponse {
  ResponseHeader header;
  bool operator==(const LeaseRevokeResponse&) const = default;
};

struct LeaseKeepAliveRequest {
  LeaseId id = 0;
};
struct LeaseKeepAliveResponse {
  ResponseHeader header;
  LeaseId id = 0;
  std::int64_t ttl_seconds = 0;  // 0: the lease is gone
  bool operator==(const LeaseKeepAliveResponse&) const = default;
};

struct LeaseTimeToLiveRequest {
  LeaseId id = 0;
  bool keys = false;
};
struct LeaseTimeToLiveResponse {
  ResponseHeader header;
  LeaseId id = 0;
  std::int64_t ttl_seconds = 0;  // -1: unknown lease
  std::int64_t granted_ttl_seconds = 0;
  std::vector<std::string> keys;
  bool operator==(const LeaseTimeToLiveResponse&) const = default;
};

// ---- Lock service (etcd's v3lock: server/etcdserver/api/v3lock) ----
// The server runs concurrency.Mutex for the caller's lease under `name` and answers once it
// holds the lock, with the key it owns (`name/<lease hex>`); Unlock deletes that key.
struct LockRequest {
  std::string name;
  LeaseId lease = 0;
};
struct LockResponse {
  ResponseHeader header;
  std::string key;
  bool operator==(const LockResponse&) const = default;
};

struct UnlockRequest {
  std::string key;
};
struct UnlockResponse {
  ResponseHeader header;
  bool operator==(const UnlockResponse&) const = default;
};

// ---- Watch ----
enum class WatchFilter { noput = 0, nodelete = 1 };

struct WatchCreateRequest {
  std::string key;
  std::string range_end;
  Revision start_revision = 0;  // inclusive; 0: events after now
  bool progress_notify = false;
  std::vector<WatchFilter> filters;
  bool prev_kv = false;
};

enum class EventType { put = 0, del = 1 };

struct Event {
  EventType type = EventType::put;
  KeyValue kv;
  std::vector<KeyValue> prev_kv;  // zero or one element
  bool operator==(const Event&) const = default;
};

struct WatchResponse {
  ResponseHeader header;
  std::int64_t watch_id = 0;
  bool created = false;
  bool canceled = false;
  Revision compact_revision = 0;
  std::string cancel_reason;
  std::vector<Event> events;
  bool operator==(const WatchResponse&) const = default;
};

// The range end that selects every key with this prefix (etcd's GetPrefixRangeEnd).
std::string prefix_range_end(const std::string& prefix);

// Bytes as a printable, JSON-safe string: printable ASCII as is, a backslash doubled, any
// other byte as \xNN. Every file format of lockstep writes keys and values this way.
std::string escape_bytes(const std::string& bytes);

// escape_bytes reversed: a doubled backslash and \xNN (hex digits in either case) are the only
// escapes. nullopt on any other backslash, so a stray one in a hand-edited file is an error
// rather than a different key.
std::optional<std::string> unescape_bytes(const std::string& text);

}  // namespace lockstep
