// RecordingKvClient: the real backend's call records, checked over the simulated cluster.
#include "lockstep/harness/recording_kv_client.h"

#include <catch2/catch.hpp>

#include "lockstep/sim/etcd_cluster.h"
#include "lockstep/sim/network.h"
#include "lockstep/sim/sim_kv_client.h"
#include "lockstep/sim/sim_node.h"

namespace lockstep {
namespace {

struct Recorded {
  std::string op;
  nlohmann::json args;
};

Task<void> calls(KvClient* kv, bool* done) {
  PutRequest put;
  put.key = "k";
  put.value = "v";
  (void)co_await kv->put(std::move(put));
  LeaseKeepAliveRequest keep_alive;
  keep_alive.id = 42;  // no such lease: etcd answers it with TTL 0 (an answer, not an error)
  (void)co_await kv->lease_keep_alive(keep_alive);
  *done = true;
}

TEST_CASE("the recording client records each call's send and end with the member it went to") {
  sim::World world(3);
  sim::Network network(world, world.rng_for("network"), sim::LatencyConfig{});
  sim::EtcdConfig config;
  config.members = 3;
  sim::EtcdCluster cluster(world, network, config);
  world.run_until(TrueTime(config.election_timeout * 3));
  const auto pid = world.add_process("client-0");
  sim::SimClientOptions options;
  options.preferred_member = 1;
  sim::SimKvClient sim_kv(world, cluster, pid, options);
  std::vector<Recorded> records;
  RecordingKvClient kv(
      sim_kv, [&] { return "member-" + std::to_string(sim_kv.connected_member()); },
      [&](const std::string& op, nlohmann::json args) { records.push_back({op, std::move(args)}); });
  sim::SimNode node(world, pid, kv, world.rng_for("client"));
  bool done = false;
  auto handle = node.spawn(calls(&kv, &done), "calls");
  world.run_until(world.now() + seconds(5));
  REQUIRE(done);
  REQUIRE(records.size() == 4);
  CHECK(records[0].op == "kv-send");
  CHECK(records[0].args == nlohmann::json{{"call", 1}, {"request", "put"}, {"member", "member-1"}, {"key", "k"}});
  CHECK(records[1].op == "kv-end");
  CHECK(records[1].args == nlohmann::json{{"call", 1}, {"outcome", "ok"}});
  CHECK(records[2].args == nlohmann::json{{"call", 2}, {"request", "lease_keep_alive"}, {"member", "member-1"}, {"lease", 42}});
  CHECK(records[3].args.value("call", 0) == 2);
}

}  // namespace
}  // namespace lockstep
