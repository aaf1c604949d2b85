// RealCluster: the etcd a real run talks to, and the links between its processes.
//
// Contract:
//   - Local (no endpoints given): starts `members` etcd processes on 127.0.0.1 (LocalCluster)
//     and, when `with_link_proxy`, puts a LinkProxy on every link: each client reaches each
//     member through its own listener, and members reach each other through a listener in
//     front of each member (its advertised peer URL), so partitions can cut any of them.
//   - External: checks the endpoints (loopback unless allow_remote) and uses them directly.
//   - Destruction stops and removes everything local: the cluster first (its members still
//     reach each other through the proxy while the leader hands over), then the proxy.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "lockstep/real_run/run_config.h"
#include "lockstep/kv/result.h"
#include "lockstep/real_etcd/link_proxy.h"
#include "lockstep/real_etcd/local_cluster.h"

namespace lockstep {

class RealCluster {
 public:
  static Result<std::unique_ptr<RealCluster>> open(const RealBackendOptions& options, int members,
                                                   int clients, bool with_link_proxy,
                                                   const std::atomic<bool>* interrupt);
  ~RealCluster();

  bool local() const { return cluster_ != nullptr; }
  real::LocalCluster* local_cluster() { return cluster_.get(); }
  real::LinkProxy* proxy() { return proxy_.get(); }
  // Every member's own client endpoint (control traffic: the truth watcher, compaction).
  const std::vector<std::string>& direct_endpoints() const { return direct_; }
  // What client `i` dials, starting with member i % members (so clients spread over members).
  std::vector<std::string> client_endpoints(int client) const;
  // What each of client_endpoints(client) is: "member-M" on a local cluster, else the endpoint.
  std::vector<std::string> client_endpoint_names(int client) const;
  int members() const { return static_cast<int>(direct_.size()); }

 private:
  RealCluster() = default;
  std::unique_ptr<real::LinkProxy> proxy_;     // destroyed after the cluster
  std::unique_ptr<real::LocalCluster> cluster_;
  std::vector<std::string> direct_;
  std::vector<std::vector<std::string>> per_client_;  // [client][member], unrotated
};

}  // namespace lockstep
