// Helpers shared by the real_etcd integration tests.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/real_etcd/etcd_kv_client.h"
#include "lockstep/real_etcd/event_loop.h"
#include "lockstep/real_etcd/local_cluster.h"

namespace lockstep::real::testing {

// One single-member etcd shared by the tests of this binary: started on first use, killed
// and removed at exit. Tests keep to their own keys (unique_prefix), so sharing is safe.
LocalCluster& shared_cluster();

// A client on `endpoints` with a short call deadline; fails the test if it cannot be made.
std::unique_ptr<EtcdKvClient> make_client(EventLoop& loop, std::vector<std::string> endpoints,
                                          Duration call_deadline = seconds(3));

// "lockstep-test/<pid>/<n>/<name>/": distinct for every call in every run.
std::string unique_prefix(std::string_view name);

}  // namespace lockstep::real::testing
