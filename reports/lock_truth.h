// What really happened in etcd, from the history's `truth` events (facts only the simulator
// knows): when each lock key existed, each lease's life, and who led the cluster.
//
// Contract (event shapes as sim/etcd_cluster.cc and sim/etcd_member.cc record them):
//   - "key-put" {key, revision, create_revision, lease, value?} and "key-delete" {key,
//     revision, lease_expired?} from process "etcd". A key lives from the put that created it
//     (revision == create_revision, or the first put seen while the key was absent) until its
//     delete. Its owner is the client whose `ok` acquire reported that key and key_revision ==
//     create_revision, else the client named by the put's value, else nobody ("").
//   - "lease-expired" {lease} from the leader member that found it expired on its clock.
//   - "leader-elected" / "leader-stepped-down" {member, term} from that member.
// Times are true_ns. Histories without truth events (a real cluster, a foreign file) give
// empty lists.
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/history.h"

namespace lockstep::reports {

constexpr std::int64_t kStillOpen = INT64_MAX;

struct KeyLifetime {
  std::string key;
  std::int64_t create_revision = 0;
  std::int64_t lease = 0;
  std::string owner;                       // a client process, or ""
  std::int64_t start_ns = 0;
  std::int64_t end_ns = kStillOpen;        // kStillOpen: still there at the end
  std::int64_t put_event = 0;
  std::int64_t delete_event = -1;
  std::int64_t delete_revision = 0;
  bool deleted_by_lease_expiry = false;
};

struct LeaseLifetime {
  std::int64_t lease = 0;
  std::string owner;                       // the client that used it, or ""
  std::int64_t first_seen_ns = 0;          // its grant where recorded (the simulator), else
                                           // its first use

  std::int64_t last_seen_ns = 0;           // its revocation or expiry, or the last key under
                                           // it deleted
  std::optional<std::int64_t> expired_ns;  // when the leader expired it
  std::string expired_by;                  // the member that expired it
  std::int64_t expired_event = -1;
};

struct LeaderTerm {
  std::string member;
  std::int64_t term = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = kStillOpen;
};

struct LockTruth {
  std::vector<KeyLifetime> keys;           // in creation order
  std::vector<LeaseLifetime> leases;       // in first-seen order
  std::vector<LeaderTerm> leaders;         // in election order
  std::map<std::int64_t, std::size_t> lease_index;  // lease id -> position in `leases`

  const LeaseLifetime* find_lease(std::int64_t lease) const;
};

LockTruth extract_lock_truth(const History& history);

}  // namespace lockstep::reports
