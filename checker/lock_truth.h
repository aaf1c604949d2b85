// What really happened in etcd, from the history's `truth` events (facts only the simulator
// knows): when each lock key existed and what changed it, each lease's life, and who led the
// cluster.
//
// Contract (event shapes as sim/etcd_cluster.cc and sim/etcd_member.cc record them, see
// docs/history-format.md):
//   - "key-put" {key, revision, create_revision, lease, value?, cause?} and "key-delete" {key,
//     revision, lease_expired?, cause?} from process "etcd". A key lives from the put that
//     created it (revision == create_revision, or the first put seen while the key was absent)
//     until its delete. Its owner is the client whose `ok` acquire reported that key and
//     key_revision == create_revision, else the client whose Lock call a lock service created
//     it for (cause.for_client), else the client named by the put's value, else nobody.
//   - "lease-expired" {lease, leader, term, found_ns, renewed_ns, renewed_by} from the leader
//     whose lessor's revoke committed: the lease is gone. "lease-revoke-attempt" (same args)
//     is a lessor's proposal, which may never commit (a deposed leader's).
//   - "leader-elected" / "leader-stepped-down" {member, term} from that member (a step-down's
//     event is kept: its `reason` says why); a `crash` fault on a leading member ends its term
//     too, and so does a newer term's election.
// Times are true_ns. Histories without truth events (a real cluster, a foreign file) give
// empty lists.
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/checker/history.h"

namespace lockstep {

constexpr std::int64_t kStillOpen = INT64_MAX;

// What made a change in etcd: a client's request, or a lessor's revoke of an expired lease.
// An empty `kind` means the history did not say (older files, the real backend).
struct ChangeCause {
  std::string kind;                        // "request", "lease-expiry" or ""
  // "request": the call, who sent it when, to which member, and whether it had given up.
  std::string request;                     // "put", "delete_range", "txn", "lease_revoke", ...
  std::string client;
  std::int64_t call = 0;
  std::string member;                      // the member that received it
  std::int64_t sent_ns = -1;
  std::optional<std::int64_t> abandoned_ns;  // the client stopped waiting for it then
  // A request a member's lock service (etcd's v3lock) made for a client's Lock or Unlock
  // call: the member whose service sent it. `client`, `call` and `abandoned_ns` then name the
  // client's Lock or Unlock call (the history's for_client, for_call, for_call_abandoned_ns).
  std::string lock_service;
  std::int64_t lock_service_call = 0;  // the service's own call id (its client's)
  std::string for_request;             // the client's call: "lock" or "unlock"
  // "lease-expiry": the lease, the leader that revoked it, and that leader's last renewal.
  std::int64_t lease = 0;
  std::string leader;
  std::int64_t term = 0;
  std::int64_t found_ns = -1;              // when the leader's lessor found it expired
  std::int64_t renewed_ns = -1;            // that leader's last renewal of it
  std::string renewed_by;                  // "keep-alive", "grant" or "leader-election"
};
ChangeCause parse_change_cause(const nlohmann::json& cause);
// The cause an event's args name (args.cause), or an empty one.
ChangeCause cause_of(const HistoryEvent& event);

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
  ChangeCause created_by;
  ChangeCause deleted_by;
  // Later puts to the key while it lived (event indices): a put over a live key keeps its
  // create revision, so this is how a lock key taken over by another client shows.
  std::vector<std::int64_t> rewrites;
};

struct LeaseLifetime {
  std::int64_t lease = 0;
  std::string owner;                       // the client that used it, or ""
  std::int64_t ttl_seconds = 0;            // from its grant, where recorded
  std::string granted_to;                  // the client whose request granted it, where recorded
  std::int64_t granted_ns = -1;
  std::int64_t first_seen_ns = 0;          // its grant where recorded (the simulator), else
                                           // its first use

  std::int64_t last_seen_ns = 0;           // its revocation or expiry, or the last key under
                                           // it deleted
  std::optional<std::int64_t> expired_ns;  // when the lessor's revoke committed
  std::string expired_by;                  // the leader whose lessor revoked it
  std::int64_t expired_event = -1;
  ChangeCause expiry;                      // kind "lease-expiry" once expired
  // Lessor revokes proposed for it (event indices of lease-revoke-attempt), committed or not.
  std::vector<std::int64_t> revoke_attempts;
};

struct LeaderTerm {
  std::string member;
  std::int64_t term = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = kStillOpen;
  // The leader-stepped-down event that ended it (its `reason` says why), or -1: still open, or
  // ended by a newer leader's election with no step-down recorded.
  std::int64_t stepped_down_event = -1;
};

struct LockTruth {
  std::vector<KeyLifetime> keys;           // in creation order
  std::vector<LeaseLifetime> leases;       // in first-seen order
  std::vector<LeaderTerm> leaders;         // in election order
  std::map<std::int64_t, std::size_t> lease_index;  // lease id -> position in `leases`
  // The cluster's election timeout (the history's meta election_timeout_ms; etcd's default
  // 1 s when it does not say): a new leader extends every lease by it.
  std::int64_t election_timeout_ns = 1'000'000'000;

  const LeaseLifetime* find_lease(std::int64_t lease) const;
  // The lock key an acquire got: owner == process and create_revision == key_revision, else
  // the last key `process` owned that was created at or before `at_ns`.
  const KeyLifetime* key_acquired(const std::string& process, std::int64_t key_revision,
                                  std::int64_t at_ns) const;
};

LockTruth extract_lock_truth(const History& history);

// How long `lease` lasts from a renewal by `renewed_by` ("grant", "keep-alive",
// "leader-election"), on its lessor's clock: its TTL, and an election timeout more after a new
// leader's promotion (etcd's lessor Promote gives every lease now + election timeout + TTL).
// 0 when the TTL is not recorded.
std::int64_t lease_span_from_renewal_ns(const LockTruth& truth, const LeaseLifetime& lease,
                                        const std::string& renewed_by);

// When the lease of `key`, deleted by a lease expiry, would have run out had its lessor's clock
// kept nominal time: the lessor's last renewal plus the lease's span from it
// (lease_span_from_renewal_ns), in true time; -1 when the history does not record both. A lessor counts a TTL on its own monotonic clock, so a revoke
// that committed before this time means that clock ran fast or jumped forward.
std::int64_t nominal_lease_end_ns(const LockTruth& truth, const KeyLifetime& key);

// Whether the mutex check's witness (its earlier and later holdings) shows the earlier holder's
// lock key deleted with its lease, by a lessor revoke that committed, before the later grant:
// the earlier holder outlived its lease, the one overlap no lease-based lock can prevent.
// False when the history records no such expiry (a real cluster records none), when the
// revoke came from a leader deposed before it committed (etcd 3.4.23's issue 15247), when the
// lease had run out before the key was made (lost before it was taken), and when the holder
// sent no keep-alive for the lease although no fault named it (it never renewed: the
// algorithm's design, not a holder outliving a lease it kept alive), and when the later grant
// came before the lease's nominal end (nominal_lease_end_ns): the lessor's clock cut the lease
// short, the holder did not outlive it.
bool lease_expired_under_holder(const History& history, const LockTruth& truth,
                                const nlohmann::json& mutex_witness);

}  // namespace lockstep
