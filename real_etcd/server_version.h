// The version of etcd a cluster runs, as its members report it.
//
// Contract: asks each endpoint in turn (Maintenance.Status, which needs no login) and returns
// the first answer's version ("3.4.23"); an error naming the last endpoint tried when none
// answers within `deadline` each. Blocking: call it outside any EventLoop.
#pragma once

#include <string>

#include "lockstep/kv/result.h"
#include "lockstep/kv/time.h"
#include "lockstep/real_etcd/etcd_client_options.h"

namespace lockstep::real {

Result<std::string> etcd_server_version(const EtcdClientOptions& options, Duration deadline);

}  // namespace lockstep::real
