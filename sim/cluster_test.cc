#include <catch2/catch.hpp>

#include "sim/etcd_cluster.h"
#include "sim/sim_kv_client.h"
#include "sim/sim_node.h"

namespace lockstep::sim {
namespace {

// A world with a cluster and one client node, and a way to run a coroutine to completion.
struct Rig {
  World world;
  Network network;
  EtcdCluster cluster;
  ProcessId client_pid;
  SimKvClient kv;
  SimNode node;

  explicit Rig(int members, std::uint64_t seed = 1)
      : world(seed),
        network(world, world.rng_for("net")),
        cluster(world, network, [members] {
          EtcdConfig c;
          c.members = members;
          return c;
        }()),
        client_pid(world.add_process("client-0")),
        kv(world, cluster, client_pid, SimClientOptions{}),
        node(world, client_pid, kv, world.rng_for("client")) {
    world.run_until(TrueTime(seconds(3)));  // elect a leader
  }

  template <typename Fn>
  void run(Fn fn, Duration limit = seconds(60)) {
    bool finished = false;
    auto handle = node.spawn(fn(&node, &finished), "test");
    const TrueTime until = world.now() + limit;
    while (!finished && world.now() < until) world.run_until(world.now() + milliseconds(10));
    REQUIRE(finished);
  }
};

TEST_CASE("a one-member cluster elects itself and serves puts and ranges over the network") {
  Rig rig(1);
  REQUIRE(rig.cluster.leader() == 0);
  Revision put_revision = 0;
  std::string read_value;
  rig.run([&](SimNode* n, bool* done) -> Task<void> {
    PutRequest put;
    put.key = "k";
    put.value = "v1";
    auto p = co_await n->kv().put(put);
    REQUIRE(p.ok());
    put_revision = p.value().header.revision;
    RangeRequest get;
    get.key = "k";
    auto g = co_await n->kv().range(get);
    REQUIRE(g.ok());
    REQUIRE(g.value().kvs.size() == 1);
    read_value = g.value().kvs[0].value;
    *done = true;
  });
  REQUIRE(put_revision == 2);
  REQUIRE(read_value == "v1");
}

TEST_CASE("a three-member cluster has one leader and every member applies the writes") {
  Rig rig(3, 5);
  const int leader = rig.cluster.leader();
  REQUIRE(leader >= 0);
  int leaders = 0;
  for (int i = 0; i < 3; ++i) leaders += rig.cluster.member(i).is_leader() ? 1 : 0;
  REQUIRE(leaders == 1);
  rig.run([&](SimNode* n, bool* done) -> Task<void> {
    for (int i = 0; i < 5; ++i) {
      PutRequest put;
      put.key = "k" + std::to_string(i);
      put.value = "v";
      auto p = co_await n->kv().put(put);
      REQUIRE(p.ok());
    }
    *done = true;
  });
  rig.world.run_until(rig.world.now() + seconds(1));
  for (int i = 0; i < 3; ++i) REQUIRE(rig.cluster.member(i).store().all_live_keys().size() == 5);
}

TEST_CASE("a lease expires on the leader and its keys are deleted") {
  Rig rig(1);
  LeaseId lease = 0;
  rig.run([&](SimNode* n, bool* done) -> Task<void> {
    LeaseGrantRequest grant;
    grant.ttl_seconds = 2;
    auto g = co_await n->kv().lease_grant(grant);
    REQUIRE(g.ok());
    lease = g.value().id;
    PutRequest put;
    put.key = "leased";
    put.lease = lease;
    REQUIRE((co_await n->kv().put(put)).ok());
    *done = true;
  });
  const TrueTime granted_at = rig.world.now();
  REQUIRE(rig.cluster.member(0).store().all_live_keys().size() == 1);
  rig.world.run_until(granted_at + milliseconds(1900));
  REQUIRE(rig.cluster.member(0).store().all_live_keys().size() == 1);  // never early
  rig.world.run_until(granted_at + milliseconds(2700));
  REQUIRE(rig.cluster.member(0).store().all_live_keys().empty());
}

TEST_CASE("a watch from a past revision sees the delete of a key") {
  Rig rig(1);
  bool saw_delete = false;
  rig.run([&](SimNode* n, bool* done) -> Task<void> {
    PutRequest put;
    put.key = "w";
    auto p = co_await n->kv().put(put);
    REQUIRE(p.ok());
    DeleteRangeRequest del;
    del.key = "w";
    REQUIRE((co_await n->kv().delete_range(del)).ok());
    WatchCreateRequest wreq;
    wreq.key = "w";
    wreq.start_revision = p.value().header.revision;
    auto stream = co_await n->kv().watch(wreq);
    REQUIRE(stream.ok());
    for (int i = 0; i < 2 && !saw_delete; ++i) {
      auto next = co_await stream.value()->next(seconds(1));
      REQUIRE(next.ok());
      for (const auto& e : next.value().events) saw_delete = saw_delete || e.type == EventType::del;
    }
    *done = true;
  });
  REQUIRE(saw_delete);
}

}  // namespace
}  // namespace lockstep::sim
