// Random sequential etcd programs for the differential test (simulated etcd vs a real one):
// generation, instantiation on one side, and normalisation of responses so the two sides'
// answers can be compared field by field.
//
// A program is generated against "side-neutral" values: revisions are relative to the
// program's start revision (r >= 1 means start + r; 0 and negatives keep their meaning), and
// lease ids are references (kLeaseRefBase + k: the k-th lease this program granted, on the
// side that runs it) or fixed ids both sides use as they are (client-chosen grant ids, a
// bogus id neither side knows). instantiate() turns a request into what one side sends;
// normalise() turns a response into JSON with relative revisions and lease references, and
// without what must differ between two servers (cluster_id, member_id, raft_term).
//
// Contract: generation is a pure function of (rng, the relative revision the store is at,
// how many leases were granted so far); it only needs the sequence of prior results, which is
// the same on both sides whenever they agree.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "lockstep/kv/result.h"
#include "lockstep/kv/rng.h"
#include "lockstep/kv/types.h"

namespace lockstep::difftest {

// A lease reference: kLeaseRefBase + k is the k-th lease granted by this program.
constexpr LeaseId kLeaseRefBase = 0x4C530000;
constexpr int kMaxLeaseRefs = 64;
// A lease id no server ever granted.
constexpr LeaseId kBogusLease = 0x5EED0000DEADBEEF;

struct WatchOpen {
  WatchCreateRequest request;
};
// Drains every open watch of the program (compares the events each delivered since).
struct WatchDrain {};

using Op = std::variant<RangeRequest, PutRequest, DeleteRangeRequest, TxnRequest,
                        CompactionRequest, LeaseGrantRequest, LeaseRevokeRequest,
                        LeaseKeepAliveRequest, LeaseTimeToLiveRequest, WatchOpen, WatchDrain>;

struct GenState {
  Revision relative_revision = 0;  // the store revision now, minus the program's start
  int leases_granted = 0;          // references 0..leases_granted-1 may be used
  std::uint64_t program = 0;       // distinct per program (client-chosen lease ids)
  int watches_open = 0;
};

// One random operation.
Op generate_op(Rng& rng, const GenState& state);

// What one side knows to instantiate a program's requests.
struct SideMap {
  Revision base = 0;                 // the store revision when the program started
  std::vector<LeaseId> granted;      // the side's ids of the program's leases, in order
  Revision abs(Revision relative) const { return relative > 0 ? base + relative : relative; }
  LeaseId lease(LeaseId ref) const;  // a reference -> this side's id; others unchanged
  Revision rel(Revision absolute) const { return absolute > 0 ? absolute - base : absolute; }
  // This side's id -> the reference (or the id itself when it is not the program's).
  nlohmann::json lease_json(LeaseId id) const;
};

Op instantiate(const Op& op, const SideMap& side);

// Normalised responses (JSON), for comparison and for the report of a difference.
nlohmann::json normalise(const RangeResponse& r, const SideMap& s);
nlohmann::json normalise(const PutResponse& r, const SideMap& s);
nlohmann::json normalise(const DeleteRangeResponse& r, const SideMap& s);
nlohmann::json normalise(const TxnResponse& r, const SideMap& s);
nlohmann::json normalise(const CompactionResponse& r, const SideMap& s);
nlohmann::json normalise(const LeaseGrantResponse& r, const SideMap& s);
nlohmann::json normalise(const LeaseRevokeResponse& r, const SideMap& s);
nlohmann::json normalise(const LeaseKeepAliveResponse& r, const SideMap& s);
// ttl_seconds is left out: it is compared with a tolerance of one second (the two servers'
// clocks moved differently since the grant).
nlohmann::json normalise(const LeaseTimeToLiveResponse& r, const SideMap& s);
nlohmann::json normalise(const Event& e, const SideMap& s);
nlohmann::json normalise_error(const Error& e);

// A readable description of a request (keys escaped), for reports.
nlohmann::json describe(const Op& op);

}  // namespace lockstep::difftest
