// Settings of a simulated etcd cluster, with etcd's defaults.
#pragma once

#include <cstdint>

#include "kv/time.h"

namespace lockstep::sim {

struct EtcdConfig {
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
};

}  // namespace lockstep::sim
