// The etcd v3 key-value store as a sequential object: range, put, delete_range, txn (nested,
// with compares), and lease_revoke, with etcd's revision rules (see docs/etcd-semantics.md):
// a new store is at revision 1; every write that changes at least one key adds exactly 1 to the
// store revision and all changes of one txn share it; per key create_revision, mod_revision,
// version and lease.
//
// Requests and responses are the plain structs of kv/types.h, so a simulated or real etcd's
// answers can be checked as recorded. Comparison rules (what a response must match):
//   - header.revision, when it was recorded (non-zero), must be the store revision at which the
//     request was served; cluster_id, member_id and raft_term are not modelled. Only the
//     top-level header is compared (nested txn responses' headers differ across etcd versions).
//   - range: kvs, count and more, after etcd's filter -> sort -> limit order. For a sort target
//     other than the key, ties may come back in any order.
//   - put: prev_kv (when asked); delete_range: deleted and prev_kvs; txn: succeeded and each
//     response in turn.
// Not modelled: lease lifetimes (a key's lease is recorded, a put with an unknown lease is not
// rejected, expiry is not spontaneous: a history expresses an expiry as a lease_revoke, which
// may be indeterminate), ranges at a past revision (always accepted, no effect), compaction.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>

#include "lockstep/kv/types.h"
#include "lockstep/model/model.h"

namespace lockstep::model {

struct EtcdKv {
  struct State {
    Revision revision = 1;
    std::map<std::string, KeyValue> keys;
    bool operator==(const State&) const = default;
  };
  using Input = std::variant<RangeRequest, PutRequest, DeleteRangeRequest, TxnRequest,
                             LeaseRevokeRequest>;
  using Output = std::variant<RangeResponse, PutResponse, DeleteRangeResponse, TxnResponse,
                              LeaseRevokeResponse>;

  State initial;  // the store before the history starts (default: new, empty, revision 1)

  State init() const { return initial; }
  std::optional<State> step(const State& s, const Input& in, const Output* out) const;
  std::size_t hash(const State& s) const;
  std::string describe(const State& s) const;
  std::string describe(const Input& in, const Output* out) const;

  // The response a real server would give, and the state after it: the model run forwards.
  // Exposed for tests and for a simulator that wants to compare itself with the model.
  static Output apply(State& s, const Input& in);
};

}  // namespace lockstep::model
