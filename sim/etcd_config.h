// Settings of a simulated etcd cluster, with etcd's defaults.
#pragma once

#include <cstdint>
#include <string>

#include "lockstep/kv/time.h"

namespace lockstep::sim {

// The etcd release whose behaviour the simulated members follow where releases differ.
enum class EtcdVersion {
  // Debian's etcd-server. Its lessor revokes without checking leadership: a leader that
  // stalled and was deposed still revokes the leases whose renewals it missed (etcd issue
  // 15247).
  v3_4_23,
  // A release with the fix (3.5.13, and 3.4.31): the lessor confirms it leads before it
  // revokes.
  v3_5_13,
};
// "3.4.23" or "3.5.13".
const char* etcd_version_name(EtcdVersion version);
// Parses a name of etcd_version_name(); false when unknown.
bool parse_etcd_version(const std::string& name, EtcdVersion& out);

struct EtcdConfig {
  EtcdVersion version = EtcdVersion::v3_4_23;
  int members = 1;
  Duration heartbeat_interval = milliseconds(100);
  Duration election_timeout = milliseconds(1000);
  // ceil(1.5 x election timeout) in whole seconds, as etcd computes its minimum lease TTL.
  std::int64_t min_lease_ttl_seconds = 2;
  Duration lease_check_interval = milliseconds(500);
  // How long a member holds a client request it cannot serve before failing it.
  Duration server_request_timeout = seconds(7);
  int max_txn_ops = 128;
  std::uint64_t cluster_id = 0x1000;
  // The `slow-revoke` fault: how long the leader waits before proposing an expired lease's
  // revocation.
  Duration lease_revoke_delay{0};
  // How often a request that a paused (or cut-off) member reads together with its client's
  // cancellation still runs. gRPC's server hands a request to its handler as soon as it reads
  // the request's headers and cancels the handler's context only when it reads the
  // cancellation after them; etcd proposes if the handler gets there first. Measured on etcd
  // 3.4.23 (real_etcd_tests "[.measure]"): 8 of 60 puts to a paused member, cancelled by their
  // 500 ms deadline, were applied when it resumed.
  double held_cancel_race_probability = 0.13;
};

}  // namespace lockstep::sim
