// Concurrent KV histories from a real 3-member etcd pass the `etcd` linearizability model
// (model/etcd_kv.h through checker/linearizability_check.h), including the indeterminate operations a
// paused member causes; and the same history with one read's answer changed does not.
//
// Catch2's assertion macros may evaluate their argument more than once under g++ 12:
// never co_await inside REQUIRE/CHECK.
#include <catch2/catch.hpp>
#include <filesystem>

#include "lockstep/checker/linearizability_check.h"
#include "lockstep/kv_json/etcd_json.h"
#include "lockstep/real_run/history_log.h"
#include "lockstep/real_etcd/etcd_kv_client.h"
#include "lockstep/real_etcd/event_loop.h"
#include "lockstep/real_etcd/local_cluster.h"

namespace lockstep {
namespace {

const std::vector<std::string> kKeys = {"x", "y", "z"};

model::EtcdKv::Input random_request(Rng& rng) {
  const std::string key = kKeys[rng.below(kKeys.size())];
  const std::string value = std::to_string(rng.below(4));
  switch (rng.below(5)) {
    case 0: {
      RangeRequest r;
      r.key = key;
      if (rng.chance(0.3)) r.range_end = std::string(1, '\0');  // every key >= key
      return r;
    }
    case 1:
    case 2: {
      PutRequest p;
      p.key = key;
      p.value = value;
      p.prev_kv = rng.chance(0.5);
      return p;
    }
    case 3: {
      DeleteRangeRequest d;
      d.key = key;
      d.prev_kv = true;
      return d;
    }
    default: {
      // A compare-and-set on the value, reading the key back on failure.
      TxnRequest t;
      t.compare.push_back(Compare::value_of(key, CompareResult::equal, value));
      PutRequest p;
      p.key = key;
      p.value = std::to_string(rng.below(4));
      t.success.push_back(RequestOp{p});
      RangeRequest r;
      r.key = key;
      t.failure.push_back(RequestOp{r});
      return t;
    }
  }
}

template <typename Response>
void record(RealHistoryLog& log, const std::string& me, const Result<Response>& r) {
  if (r.ok()) {
    log.complete(me, EventKind::ok, etcd_response_to_json(model::EtcdKv::Output{r.value()}), Duration(0));
  } else {
    log.complete(me, r.error().indeterminate() ? EventKind::info : EventKind::fail,
                 {{"error", error_code_name(r.error().code)}}, Duration(0));
  }
}

Task<void> client(KvClient* kv, RealHistoryLog* log, std::string me, std::uint64_t seed, int ops) {
  Rng rng(seed);
  for (int i = 0; i < ops; ++i) {
    const model::EtcdKv::Input in = random_request(rng);
    log->invoke(me, etcd_op_name(in), etcd_request_to_json(in), Duration(0));
    if (auto* r = std::get_if<RangeRequest>(&in)) record(*log, me, co_await kv->range(*r));
    if (auto* p = std::get_if<PutRequest>(&in)) record(*log, me, co_await kv->put(*p));
    if (auto* d = std::get_if<DeleteRangeRequest>(&in)) record(*log, me, co_await kv->delete_range(*d));
    if (auto* t = std::get_if<TxnRequest>(&in)) record(*log, me, co_await kv->txn(*t));
  }
}

// Pauses a member while the clients run, so some calls time out (indeterminate).
Task<void> pause_member(real::EventLoop* loop, real::LocalCluster* cluster, int member) {
  co_await loop->sleep_real(milliseconds(30));
  (void)cluster->pause(member);
  co_await loop->sleep_real(milliseconds(1500));
  (void)cluster->resume(member);
}

TEST_CASE("linearizability: a concurrent KV history from a real 3-member cluster fits the etcd model") {
  real::LocalClusterOptions lo;
  lo.members = 3;
  lo.kill_on_stop = true;
  if (std::filesystem::is_directory("/dev/shm")) lo.work_dir = "/dev/shm";
  auto cluster = real::LocalCluster::start(lo);
  if (!cluster) FAIL(cluster.error().to_string());

  RealHistoryLog log;
  log.set_meta({{"model", "etcd"}, {"backend", "etcd"}});
  {
    real::EventLoop loop;
    std::vector<std::unique_ptr<real::EtcdKvClient>> kvs;
    for (int i = 0; i < 3; ++i) {
      real::EtcdClientOptions options;
      // Each client starts at its own member, so requests race through different members.
      for (int k = 0; k < 3; ++k) options.endpoints.push_back(cluster.value()->client_endpoint((i + k) % 3));
      options.call_deadline = milliseconds(700);
      auto kv = real::EtcdKvClient::create(loop, options);
      REQUIRE(kv.ok());
      kvs.push_back(std::move(kv.value()));
    }
    std::vector<std::uint64_t> roots;
    for (int i = 0; i < 3; ++i)
      roots.push_back(loop.spawn(client(kvs[static_cast<std::size_t>(i)].get(), &log,
                                        "client-" + std::to_string(i), 100 + static_cast<std::uint64_t>(i), 120),
                                 "client"));
    roots.push_back(loop.spawn(pause_member(&loop, cluster.value().get(), 1), "fault"));
    for (auto id : roots)
      while (!loop.spawned_done(id)) loop.run_for(milliseconds(50));
    kvs.clear();
  }
  LoadedHistory loaded;
  loaded.history = log.take();
  std::int64_t completed = 0, indeterminate = 0;
  for (const auto& e : loaded.history.events) {
    completed += e.kind == EventKind::ok ? 1 : 0;
    indeterminate += e.kind == EventKind::info ? 1 : 0;
  }
  CHECK(completed >= 150);
  // The paused member's calls time out: the checker must place those anywhere or nowhere.
  CHECK(indeterminate >= 1);

  Budget budget;
  budget.time_seconds = 60;
  budget.memory_bytes = std::size_t{1} << 30;
  CheckRun run = check_history(loaded, ModelKind::etcd, budget);
  REQUIRE_FALSE(run.error.has_value());
  REQUIRE(run.result.has_value());
  CHECK(run.result->verdict == LinVerdict::linearizable);
  CHECK(run.result->operations >= 150);

  // The same history with one completed read answering a value it never had is not.
  LoadedHistory tampered = loaded;
  bool changed = false;
  for (auto& e : tampered.history.events) {
    if (changed || e.kind != EventKind::ok || e.op != "range") continue;
    if (!e.result.contains("kvs") || e.result["kvs"].empty()) continue;
    e.result["kvs"][0]["value"] = "never-written";
    changed = true;
  }
  REQUIRE(changed);
  CheckRun bad = check_history(tampered, ModelKind::etcd, budget);
  REQUIRE(bad.result.has_value());
  CHECK(bad.result->verdict == LinVerdict::not_linearizable);
}

}  // namespace
}  // namespace lockstep
