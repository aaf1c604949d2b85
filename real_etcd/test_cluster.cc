#include "lockstep/real_etcd/test_cluster.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <stdexcept>

namespace lockstep::real::testing {

LocalCluster& shared_cluster() {
  static std::unique_ptr<LocalCluster> cluster = [] {
    LocalClusterOptions options;
    options.members = 1;
    options.kill_on_stop = true;  // its data is thrown away anyway
    auto started = LocalCluster::start(options);
    if (!started) throw std::runtime_error(started.error().to_string());
    return std::move(started.value());
  }();
  return *cluster;
}

std::unique_ptr<EtcdKvClient> make_client(EventLoop& loop, std::vector<std::string> endpoints,
                                          Duration call_deadline) {
  EtcdClientOptions options;
  options.endpoints = std::move(endpoints);
  options.call_deadline = call_deadline;
  auto client = EtcdKvClient::create(loop, options);
  if (!client) FAIL(client.error().to_string());
  return std::move(client.value());
}

std::string unique_prefix(std::string_view name) {
  static int counter = 0;
  return "lockstep-test/" + std::to_string(::getpid()) + "/" + std::to_string(++counter) + "/" +
         std::string(name) + "/";
}

}  // namespace lockstep::real::testing
