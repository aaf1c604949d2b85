// The catalogue: every algorithm is registered with its published defaults, makes progress
// with no fault, and the published bugs that need no fault injection show up.
//
// Two kinds of test:
//   - whole runs through the harness (run_simulation): 3 clients, ~20 simulated seconds;
//   - direct tests that drive Lock objects on a small simulated world (Rig below), for races
//     the workload does not produce yet (shared mode) or that need one precise interleaving
//     (a delete between a read and a watch, a lease gone while waiting). Those stand in for
//     fault injection with a plain KV call (revoking a lease is what its expiry does).
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>

#include "lockstep/algorithms/etcd_mutex.h"
#include "lockstep/algorithms/registry.h"
#include "lockstep/kv/forwarding_kv_client.h"
#include "lockstep/harness/sim_runner.h"
#include "lockstep/sim/etcd_cluster.h"
#include "lockstep/sim/sim_kv_client.h"
#include "lockstep/sim/sim_node.h"

namespace lockstep {
namespace {

const std::vector<std::string> kPortedHere = {
    "naive-get-put",  "txn-retry-lock",    "reentrant",          "rw-lock",
    "prefix-watch-lock", "zk-recipe",      "etcd-mutex-3.4",     "etcd-mutex-fenced",
    "etcd-mutex-guarded", "setnx-no-ttl", "etcd-mutex-safe-unlock", "etcd-recipes-rwmutex",
    "redisson-reentrant", "setnx-then-expire", "fixed-ttl-no-renewal", "etcd-mutex-synced-watch"};

// ---- whole runs ----

RunConfig no_fault_config(const std::string& algorithm, std::uint64_t seed) {
  RunConfig c;
  c.algorithm = algorithm;
  c.seed = seed;
  c.etcd.members = 3;
  c.workload.clients = 3;
  c.workload.duration = seconds(20);
  REQUIRE(validate_run_config(c).empty());
  return c;
}

std::int64_t acquires_ok(const RunResult& r) {
  return r.checks.at(0).figures["acquires_ok"].get<std::int64_t>();
}

// ---- direct tests ----

// Forwards every call; can delete one key just before the first watch is created, the
// interleaving "the predecessor went away between my read and my watch".
class HookedKv : public ForwardingKvClient {
 public:
  explicit HookedKv(KvClient& inner) : ForwardingKvClient(inner) {}
  std::string delete_before_first_watch;
  // Deletes under this prefix are not sent and end as a timeout would: outcome unknown.
  std::string lose_deletes_under;

  // The first delete under this prefix (a plain one, or one in a txn's success branch) is held
  // back and ends as a timeout would; send_held() sends it later, as a paused member would
  // apply it late.
  std::string hold_first_delete_under;
  std::optional<DeleteRangeRequest> held_delete;
  std::optional<TxnRequest> held_txn;

  Task<Result<DeleteRangeResponse>> delete_range(DeleteRangeRequest r) override {
    if (!lose_deletes_under.empty() && r.key.rfind(lose_deletes_under, 0) == 0)
      co_return Error(ErrorCode::timeout, "context deadline exceeded");
    if (holds(r.key)) {
      held_delete = std::move(r);
      co_return Error(ErrorCode::timeout, "context deadline exceeded");
    }
    co_return co_await inner().delete_range(std::move(r));
  }

  Task<Result<TxnResponse>> txn(TxnRequest r) override {
    for (const auto& op : r.success)
      if (const auto* del = std::get_if<DeleteRangeRequest>(&op.request); del && holds(del->key)) {
        held_txn = std::move(r);
        co_return Error(ErrorCode::timeout, "context deadline exceeded");
      }
    co_return co_await inner().txn(std::move(r));
  }

  Task<void> send_held(bool* done) {
    if (held_delete) (void)co_await inner().delete_range(*held_delete);
    if (held_txn) (void)co_await inner().txn(*held_txn);
    *done = true;
  }

 private:
  bool holds(const std::string& key) {
    if (hold_first_delete_under.empty() || key.rfind(hold_first_delete_under, 0) != 0) return false;
    hold_first_delete_under.clear();
    return true;
  }

 public:

  Task<Result<std::unique_ptr<WatchStream>>> watch(WatchCreateRequest r) override {
    if (!delete_before_first_watch.empty()) {
      DeleteRangeRequest del;
      del.key = std::exchange(delete_before_first_watch, std::string());
      Result<DeleteRangeResponse> deleted = co_await inner().delete_range(std::move(del));
      CHECK(deleted.ok());
    }
    co_return co_await inner().watch(std::move(r));
  }
};

// What a driven acquire or release ended with, and when (true time).
struct Outcome {
  bool done = false;
  std::optional<Result<LockGrant>> grant;
  std::optional<Result<void>> released;
  TrueTime at{};
  bool acquired() const { return done && grant && grant->ok(); }
  ErrorCode error() const { return grant->error().code; }
};

Task<void> acquire_into(Lock* lock, LockMode mode, MonoTime deadline, sim::World* world,
                        Outcome* out) {
  Result<LockGrant> g = co_await lock->acquire(mode, deadline);
  out->grant.emplace(std::move(g));
  out->at = world->now();
  out->done = true;
}

Task<void> release_into(Lock* lock, sim::World* world, Outcome* out) {
  Result<void> r = co_await lock->release();
  out->released.emplace(std::move(r));
  out->at = world->now();
  out->done = true;
}

Task<void> revoke_lease(NodeContext* ctx, LeaseId lease, bool* done) {
  LeaseRevokeRequest req;
  req.id = lease;
  Result<LeaseRevokeResponse> r = co_await ctx->kv().lease_revoke(req);
  CHECK(r.ok());
  *done = true;
}

Task<void> list_prefix(NodeContext* ctx, std::string prefix, std::vector<KeyValue>* out,
                       bool* done) {
  RangeRequest req;
  req.key = prefix;
  req.range_end = prefix_range_end(prefix);
  req.sort_target = SortTarget::create;
  req.sort_order = SortOrder::ascend;
  Result<RangeResponse> r = co_await ctx->kv().range(std::move(req));
  CHECK(r.ok());
  if (r.ok()) *out = r.value().kvs;
  *done = true;
}

struct TestClient {
  sim::ProcessId pid = 0;
  std::unique_ptr<sim::SimKvClient> sim_kv;
  std::unique_ptr<HookedKv> kv;
  std::unique_ptr<sim::SimNode> node;
  std::unique_ptr<Lock> lock;
  std::vector<SpawnHandle> tasks;
};

// A 3-member cluster and clients each with a lock of the catalogue (or none: a tester).
struct Rig {
  sim::World world;
  sim::Network network;
  sim::EtcdCluster cluster;
  std::vector<std::unique_ptr<TestClient>> clients;

  explicit Rig(std::uint64_t seed)
      : world(seed), network(world, world.rng_for("net")), cluster(world, network, [] {
          sim::EtcdConfig c;
          c.members = 3;
          return c;
        }()) {
    world.run_until(TrueTime(seconds(3)));  // elect a leader
  }
  ~Rig() {
    for (auto& c : clients) {
      c->tasks.clear();
      c->lock.reset();
      c->node->destroy_all_tasks();
    }
  }

  TestClient& add_client(const std::string& algorithm, AlgorithmOptions options = {}) {
    auto c = std::make_unique<TestClient>();
    const int index = static_cast<int>(clients.size());
    c->pid = world.add_process("client-" + std::to_string(index));
    sim::SimClientOptions kv_options;
    kv_options.preferred_member = index % 3;
    c->sim_kv = std::make_unique<sim::SimKvClient>(world, cluster, c->pid, kv_options);
    c->kv = std::make_unique<HookedKv>(*c->sim_kv);
    c->node = std::make_unique<sim::SimNode>(world, c->pid, *c->kv,
                                             world.rng_for("client").fork(std::uint64_t(index)));
    if (!algorithm.empty()) {
      const AlgorithmInfo* info = find_algorithm(algorithm);
      REQUIRE(info);
      REQUIRE(!resolve_options(*info, options));
      LockSetup setup;
      setup.options = options;
      c->lock = info->make(*c->node, setup);
    }
    clients.push_back(std::move(c));
    return *clients.back();
  }

  void acquire(TestClient& c, Outcome* out, Duration timeout,
               LockMode mode = LockMode::exclusive) {
    const MonoTime deadline = c.node->monotonic_now() + timeout;
    c.tasks.push_back(
        c.node->spawn(acquire_into(c.lock.get(), mode, deadline, &world, out), "acquire"));
  }
  void release(TestClient& c, Outcome* out) {
    c.tasks.push_back(c.node->spawn(release_into(c.lock.get(), &world, out), "release"));
  }
  void run_for(Duration d) { world.run_until(world.now() + d); }
  // Runs until *flag or `limit` passed; returns *flag.
  bool run_until_set(const bool* flag, Duration limit = seconds(30)) {
    const TrueTime until = world.now() + limit;
    while (!*flag && world.now() < until) world.run_until(world.now() + milliseconds(5));
    return *flag;
  }
  bool run_until_done(const Outcome& o, Duration limit = seconds(30)) {
    return run_until_set(&o.done, limit);
  }
  std::vector<KeyValue> list(TestClient& tester, const std::string& prefix) {
    std::vector<KeyValue> kvs;
    bool done = false;
    tester.tasks.push_back(tester.node->spawn(list_prefix(tester.node.get(), prefix, &kvs, &done),
                                              "list"));
    REQUIRE(run_until_set(&done));
    return kvs;
  }
  void revoke(TestClient& tester, LeaseId lease) {
    bool done = false;
    tester.tasks.push_back(
        tester.node->spawn(revoke_lease(tester.node.get(), lease, &done), "revoke"));
    REQUIRE(run_until_set(&done));
  }
};

const std::string kLockName = LockSetup{}.lock_name;

// ================================ registry ================================

TEST_CASE("every algorithm of the catalogue is registered with its published defaults") {
  std::vector<std::string> names;
  for (const auto& a : algorithm_catalogue()) names.push_back(a.name);
  for (const auto& name : kPortedHere) {
    INFO(name);
    REQUIRE(std::count(names.begin(), names.end(), name) == 1);
  }
  auto option = [](const std::string& algorithm, const std::string& option_name) {
    AlgorithmOptions o;
    REQUIRE(!resolve_options(*find_algorithm(algorithm), o));
    REQUIRE(o.count(option_name) == 1);
    return o.at(option_name);
  };
  CHECK(option("naive-get-put", "lease_ttl_seconds") == 0);
  CHECK(option("txn-retry-lock", "lease_ttl_seconds") == 10);
  CHECK(option("txn-retry-lock", "retry_interval_ms") == 100);
  CHECK(option("reentrant", "lease_ttl_seconds") == 10);
  CHECK(option("rw-lock", "lease_ttl_seconds") == 10);
  CHECK(option("prefix-watch-lock", "lease_ttl_seconds") == 1);
  CHECK(option("zk-recipe", "lease_ttl_seconds") == 60);
  CHECK(option("etcd-mutex-3.4", "lease_ttl_seconds") == 60);
  CHECK(option("etcd-mutex-fenced", "lease_ttl_seconds") == 60);
  CHECK(option("etcd-mutex-guarded", "lease_ttl_seconds") == 60);
  CHECK(find_algorithm("setnx-no-ttl")->options.empty());
  CHECK(option("etcd-mutex-safe-unlock", "lease_ttl_seconds") == 60);
  CHECK(option("etcd-mutex-synced-watch", "lease_ttl_seconds") == 60);
  CHECK(option("etcd-recipes-rwmutex", "lease_ttl_seconds") == 60);
  CHECK(option("redisson-reentrant", "lease_ttl_seconds") == 30);
  CHECK(option("redisson-reentrant", "watchdog") == 1);
  CHECK(option("setnx-then-expire", "lease_ttl_seconds") == 3);
  CHECK(option("fixed-ttl-no-renewal", "lease_ttl_seconds") == 3);
  AlgorithmOptions bad_watchdog = {{"watchdog", 2}};
  CHECK(resolve_options(*find_algorithm("redisson-reentrant"), bad_watchdog).has_value());
}

TEST_CASE("each lock object reports the capabilities its registry entry declares") {
  Rig rig(1);
  for (const auto& a : algorithm_catalogue()) {
    INFO(a.name);
    TestClient& c = rig.add_client(a.name);
    const LockCapabilities got = c.lock->capabilities();
    CHECK(got.blocking == a.capabilities.blocking);
    CHECK(got.shared_mode == a.capabilities.shared_mode);
    CHECK(got.reentrant == a.capabilities.reentrant);
    CHECK(got.fencing == a.capabilities.fencing);
    CHECK(got.guarded_writes == a.capabilities.guarded_writes);
  }
  CHECK(!find_algorithm("naive-get-put")->capabilities.blocking);
  CHECK(!find_algorithm("setnx-no-ttl")->capabilities.blocking);
  CHECK(find_algorithm("rw-lock")->capabilities.shared_mode);
  CHECK(!find_algorithm("rw-lock")->capabilities.blocking);
  CHECK(find_algorithm("reentrant")->capabilities.reentrant);
  CHECK(find_algorithm("etcd-mutex-fenced")->capabilities.fencing);
  CHECK(find_algorithm("etcd-mutex-guarded")->capabilities.guarded_writes);
  CHECK(find_algorithm("etcd-recipes-rwmutex")->capabilities.shared_mode);
  CHECK(find_algorithm("etcd-recipes-rwmutex")->capabilities.blocking);
  CHECK(find_algorithm("redisson-reentrant")->capabilities.reentrant);
  CHECK(!find_algorithm("setnx-then-expire")->capabilities.blocking);
  CHECK(!find_algorithm("fixed-ttl-no-renewal")->capabilities.blocking);
}

// ============================ no-fault whole runs ============================

TEST_CASE("with no fault every ported algorithm makes progress") {
  for (const auto& name : kPortedHere) {
    INFO(name);
    RunResult r = run_simulation(no_fault_config(name, 7));
    CHECK(acquires_ok(r) > 40);
    // Only the check-then-act locks break with no fault: naive-get-put, and rw-lock once the
    // workload mixes readers and writers.
    if (name != "naive-get-put" && name != "rw-lock") CHECK(r.all_ok());
  }
}

TEST_CASE("naive-get-put breaks mutual exclusion with no fault at all") {
  for (std::int64_t lease_ttl_seconds : {0, 5}) {
    INFO("lease_ttl_seconds " << lease_ttl_seconds);
    std::optional<std::uint64_t> found;
    for (std::uint64_t seed = 1; seed <= 50 && !found; ++seed) {
      RunConfig c = no_fault_config("naive-get-put", seed);
      c.algorithm_options["lease_ttl_seconds"] = lease_ttl_seconds;
      c.workload.duration = seconds(10);
      if (run_simulation(c).checks.at(0).status == CheckStatus::violated) found = seed;
    }
    REQUIRE(found);
  }
}

TEST_CASE("etcd-mutex-fenced hands out tokens that increase from holder to holder") {
  RunResult r = run_simulation(no_fault_config("etcd-mutex-fenced", 3));
  REQUIRE(r.all_ok());
  std::int64_t last = 0, grants = 0;
  for (const auto& e : r.history.events) {
    if (e.op != "acquire" || e.kind != EventKind::ok) continue;
    const std::int64_t token = e.result.at("token").get<std::int64_t>();
    CHECK(token > last);
    last = token;
    ++grants;
  }
  CHECK(grants > 40);
}

// ============================== rw-lock ==============================

TEST_CASE("rw-lock: sequentially - readers share and exclude a writer - and a writer excludes "
          "readers") {
  Rig rig(1);
  TestClient& r1 = rig.add_client("rw-lock");
  TestClient& r2 = rig.add_client("rw-lock");
  TestClient& w = rig.add_client("rw-lock");
  Outcome a, b, c;
  rig.acquire(r1, &a, seconds(5), LockMode::shared);
  REQUIRE(rig.run_until_done(a));
  REQUIRE(a.acquired());
  rig.acquire(r2, &b, seconds(5), LockMode::shared);
  REQUIRE(rig.run_until_done(b));
  REQUIRE(b.acquired());
  rig.acquire(w, &c, seconds(5));
  REQUIRE(rig.run_until_done(c));
  REQUIRE(c.error() == ErrorCode::lock_busy);

  Outcome ra, rb, w2, r3;
  rig.release(r1, &ra);
  rig.release(r2, &rb);
  REQUIRE(rig.run_until_done(ra));
  REQUIRE(rig.run_until_done(rb));
  rig.acquire(w, &w2, seconds(5));
  REQUIRE(rig.run_until_done(w2));
  REQUIRE(w2.acquired());
  rig.acquire(r1, &r3, seconds(5), LockMode::shared);
  REQUIRE(rig.run_until_done(r3));
  REQUIRE(r3.error() == ErrorCode::lock_busy);
}

TEST_CASE("rw-lock: a reader and a writer that start together are both inside - no fault") {
  std::optional<std::uint64_t> found;
  for (std::uint64_t seed = 1; seed <= 50 && !found; ++seed) {
    Rig rig(seed);
    TestClient& reader = rig.add_client("rw-lock");
    TestClient& writer = rig.add_client("rw-lock");
    Outcome r, w;
    rig.acquire(reader, &r, seconds(5), LockMode::shared);
    rig.acquire(writer, &w, seconds(5));
    REQUIRE(rig.run_until_done(r));
    REQUIRE(rig.run_until_done(w));
    if (r.acquired() && w.acquired()) found = seed;
  }
  REQUIRE(found);
}

// ========================== prefix-watch-lock ==========================

TEST_CASE("prefix-watch-lock: a delete between the read and the watch is missed - the waiter "
          "waits until its deadline although the lock is free") {
  Rig rig(1);
  TestClient& a = rig.add_client("prefix-watch-lock");
  TestClient& b = rig.add_client("prefix-watch-lock");
  Outcome held, waited;
  rig.acquire(a, &held, seconds(5));
  REQUIRE(rig.run_until_done(held));
  REQUIRE(held.acquired());
  b.kv->delete_before_first_watch = held.grant->value().key;  // a's key goes, then b watches
  const TrueTime started = rig.world.now();
  rig.acquire(b, &waited, seconds(8));
  REQUIRE(rig.run_until_done(waited));
  CHECK(waited.error() == ErrorCode::deadline_exceeded);
  CHECK(waited.at - started >= seconds(8));
}

// zk-recipe and etcd-mutex watch from their read's revision, so the watch replays the delete;
// etcd-mutex-synced-watch watches from now, and its read after the watch finds the key gone.
TEST_CASE("the same missed delete does not stall zk-recipe or etcd-mutex or "
          "etcd-mutex-synced-watch") {
  for (const std::string name : {"zk-recipe", "etcd-mutex", "etcd-mutex-synced-watch"}) {
    INFO(name);
    Rig rig(1);
    TestClient& a = rig.add_client(name);
    TestClient& b = rig.add_client(name);
    Outcome held, waited;
    rig.acquire(a, &held, seconds(5));
    REQUIRE(rig.run_until_done(held));
    REQUIRE(held.acquired());
    b.kv->delete_before_first_watch = held.grant->value().key;
    const TrueTime started = rig.world.now();
    rig.acquire(b, &waited, seconds(8));
    REQUIRE(rig.run_until_done(waited));
    CHECK(waited.acquired());
    CHECK(waited.at - started < seconds(1));
  }
}

TEST_CASE("prefix-watch-lock: when the waiter ahead gives up - the next waiter acquires while "
          "the holder still holds") {
  Rig rig(1);
  TestClient& a = rig.add_client("prefix-watch-lock");
  TestClient& b = rig.add_client("prefix-watch-lock");
  TestClient& c = rig.add_client("prefix-watch-lock");
  Outcome holder, quitter, next;
  rig.acquire(a, &holder, seconds(5));
  REQUIRE(rig.run_until_done(holder));
  REQUIRE(holder.acquired());
  rig.acquire(b, &quitter, seconds(1));
  rig.run_for(milliseconds(200));
  rig.acquire(c, &next, seconds(20));
  REQUIRE(rig.run_until_done(quitter));
  CHECK(quitter.error() == ErrorCode::deadline_exceeded);
  // b's key outlives its acquire until its lease expires; its delete wakes c.
  REQUIRE(rig.run_until_done(next, seconds(10)));
  CHECK(next.acquired());  // and a, which acquired above, never released: two holders
}

TEST_CASE("zk-recipe: when the waiter ahead gives up - the next waiter keeps waiting for the "
          "holder") {
  Rig rig(1);
  TestClient& a = rig.add_client("zk-recipe");
  TestClient& b = rig.add_client("zk-recipe");
  TestClient& c = rig.add_client("zk-recipe");
  Outcome holder, quitter, next, released;
  rig.acquire(a, &holder, seconds(5));
  REQUIRE(rig.run_until_done(holder));
  rig.acquire(b, &quitter, seconds(1));
  rig.run_for(milliseconds(200));
  rig.acquire(c, &next, seconds(20));
  REQUIRE(rig.run_until_done(quitter));
  CHECK(quitter.error() == ErrorCode::deadline_exceeded);
  rig.run_for(seconds(5));
  CHECK(!next.done);
  rig.release(a, &released);
  REQUIRE(rig.run_until_done(next, seconds(2)));
  CHECK(next.acquired());
}

// ==================== leases gone while waiting or holding ====================

TEST_CASE("etcd-mutex-3.4 grants a waiter whose lease expired while it waited (etcd issue "
          "11456) while etcd-mutex 3.5 tells it session_expired") {
  for (const std::string name : {"etcd-mutex-3.4", "etcd-mutex"}) {
    INFO(name);
    Rig rig(1);
    TestClient& a = rig.add_client(name);
    TestClient& b = rig.add_client(name);
    TestClient& c = rig.add_client(name);
    TestClient& tester = rig.add_client("");
    Outcome holder, stale, next, released;
    rig.acquire(a, &holder, seconds(5));
    REQUIRE(rig.run_until_done(holder));
    rig.acquire(b, &stale, seconds(20));
    rig.run_for(milliseconds(200));
    rig.acquire(c, &next, seconds(20));
    rig.run_for(milliseconds(200));
    const std::vector<KeyValue> queue = rig.list(tester, kLockName + "/");
    REQUIRE(queue.size() == 3);
    rig.revoke(tester, queue[1].lease);  // b's lease expires while b waits
    rig.release(a, &released);
    REQUIRE(rig.run_until_done(stale));
    REQUIRE(rig.run_until_done(next));
    CHECK(next.acquired());
    if (name == "etcd-mutex-3.4") {
      CHECK(stale.acquired());  // b and c both hold
    } else {
      CHECK(stale.error() == ErrorCode::session_expired);
    }
  }
}

TEST_CASE("etcd-mutex: a clean-up delete whose outcome is unknown abandons the session - the "
          "next acquire's key has a new name a late delete cannot remove") {
  for (const std::string name : {"etcd-mutex", "etcd-mutex-3.4"}) {
    INFO(name);
    Rig rig(2);
    TestClient& holder = rig.add_client(name);
    TestClient& waiter = rig.add_client(name);
    Outcome held, gave_up, again, released;
    rig.acquire(holder, &held, seconds(5));
    REQUIRE(rig.run_until_done(held));
    REQUIRE(held.acquired());
    // The waiter gives up; its clean-up delete's outcome is unknown (it may yet be applied).
    waiter.kv->lose_deletes_under = kLockName + "/";
    rig.acquire(waiter, &gave_up, seconds(1));
    REQUIRE(rig.run_until_done(gave_up));
    REQUIRE_FALSE(gave_up.acquired());
    const std::string stale_key = kLockName + "/";  // the first key's name, found below
    waiter.kv->lose_deletes_under.clear();
    rig.release(holder, &released);
    REQUIRE(rig.run_until_done(released));
    rig.acquire(waiter, &again, seconds(5));
    REQUIRE(rig.run_until_done(again));
    REQUIRE(again.acquired());
    // A new session: a new lease and so a new key name; the old key went with the old lease.
    CHECK(again.grant->value().lease != held.grant->value().lease);
    TestClient& tester = rig.add_client("");
    const std::vector<KeyValue> keys = rig.list(tester, stale_key);
    REQUIRE(keys.size() == 1);
    CHECK(keys[0].key == again.grant->value().key);
    CHECK(keys[0].lease == again.grant->value().lease);
  }
}

// The port's former clean-up as a test double: a delete whose outcome is unknown is sent again
// (the retry may reach another member) with the session kept. The first delete, applied late,
// then meets the key the same session re-created under the same name.
const AlgorithmInfo& etcd_mutex_retrying_cleanup(bool safe_unlock) {
  const std::string name = safe_unlock ? "test-etcd-mutex-safe-unlock-retrying-cleanup"
                                       : "test-etcd-mutex-retrying-cleanup";
  if (const AlgorithmInfo* known = find_algorithm(name)) return *known;
  AlgorithmInfo info = *find_algorithm(safe_unlock ? "etcd-mutex-safe-unlock" : "etcd-mutex");
  info.name = name;
  info.make = [safe_unlock](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    EtcdMutexOptions o;
    o.session_ttl_seconds = setup.options.at("lease_ttl_seconds");
    o.safe_unlock = safe_unlock;
    o.abandon_session_on_unknown_delete = false;
    return std::make_unique<EtcdMutex>(ctx, setup.lock_name, o);
  };
  REQUIRE(!register_algorithm(info));
  return *find_algorithm(name);
}

TEST_CASE("etcd-mutex-safe-unlock: a late clean-up delete of an earlier holding leaves the key "
          "the same session created again - Go's plain Delete removes it under its holder") {
  for (const bool safe_unlock : {false, true}) {
    const std::string name = etcd_mutex_retrying_cleanup(safe_unlock).name;
    INFO(name);
    Rig rig(2);
    TestClient& holder = rig.add_client(name);
    TestClient& waiter = rig.add_client(name);
    TestClient& third = rig.add_client(name);
    Outcome held, gave_up, released, again, also;
    rig.acquire(holder, &held, seconds(5));
    REQUIRE(rig.run_until_done(held));
    REQUIRE(held.acquired());
    // The waiter gives up; its first clean-up delete is held back (a paused member), the retry
    // deletes the key.
    waiter.kv->hold_first_delete_under = kLockName + "/";
    rig.acquire(waiter, &gave_up, seconds(1));
    REQUIRE(rig.run_until_done(gave_up));
    REQUIRE_FALSE(gave_up.acquired());
    REQUIRE((waiter.kv->held_delete || waiter.kv->held_txn));
    const std::string first_key =
        waiter.kv->held_delete
            ? waiter.kv->held_delete->key
            : std::get<DeleteRangeRequest>(waiter.kv->held_txn->success.at(0).request).key;
    rig.release(holder, &released);
    REQUIRE(rig.run_until_done(released));
    // The same session: the same key name, a new incarnation.
    rig.acquire(waiter, &again, seconds(5));
    REQUIRE(rig.run_until_done(again));
    REQUIRE(again.acquired());
    REQUIRE(again.grant->value().key == first_key);
    // Now the first delete arrives.
    bool sent = false;
    waiter.tasks.push_back(waiter.node->spawn(waiter.kv->send_held(&sent), "late delete"));
    REQUIRE(rig.run_until_set(&sent));
    TestClient& tester = rig.add_client("");
    const std::vector<KeyValue> keys = rig.list(tester, again.grant->value().key);
    // The waiter still believes it holds the lock; a third client tries.
    rig.acquire(third, &also, seconds(3));
    REQUIRE(rig.run_until_done(also));
    if (safe_unlock) {
      REQUIRE(keys.size() == 1);
      CHECK(keys[0].create_revision == again.grant->value().key_revision);
      CHECK_FALSE(also.acquired());  // it waits behind the waiter's key
    } else {
      CHECK(keys.empty());
      CHECK(also.acquired());  // two holders: the waiter and the third client
    }
  }
}

TEST_CASE("txn-retry-lock: a holder whose lease expired deletes the next holder's key on "
          "release, letting a third client in") {
  Rig rig(1);
  TestClient& a = rig.add_client("txn-retry-lock");
  TestClient& b = rig.add_client("txn-retry-lock");
  TestClient& c = rig.add_client("txn-retry-lock");
  TestClient& tester = rig.add_client("");
  Outcome first, second, third, stale_release;
  rig.acquire(a, &first, seconds(5));
  REQUIRE(rig.run_until_done(first));
  REQUIRE(first.acquired());
  rig.acquire(b, &second, seconds(20));
  rig.run_for(milliseconds(300));
  CHECK(!second.done);
  rig.revoke(tester, first.grant->value().lease);  // a's lease expires; a does not notice
  REQUIRE(rig.run_until_done(second));
  REQUIRE(second.acquired());  // b holds, a still believes it does
  rig.acquire(c, &third, seconds(20));
  rig.run_for(milliseconds(300));
  CHECK(!third.done);
  rig.release(a, &stale_release);  // deletes b's key unconditionally
  REQUIRE(rig.run_until_done(stale_release));
  CHECK(stale_release.released->ok());
  REQUIRE(rig.run_until_done(third));
  CHECK(third.acquired());  // b and c both hold
}

// ============================== reentrant ==============================

TEST_CASE("reentrant: the holder re-enters and must release as often as it acquired") {
  Rig rig(1);
  TestClient& a = rig.add_client("reentrant");
  TestClient& b = rig.add_client("reentrant");
  Outcome first, again, blocked, release1, release2, other;
  rig.acquire(a, &first, seconds(5));
  REQUIRE(rig.run_until_done(first));
  REQUIRE(first.acquired());
  rig.acquire(a, &again, seconds(5));
  REQUIRE(rig.run_until_done(again));
  REQUIRE(again.acquired());
  rig.release(a, &release1);
  REQUIRE(rig.run_until_done(release1));
  rig.acquire(b, &blocked, seconds(1));
  REQUIRE(rig.run_until_done(blocked));
  CHECK(blocked.error() == ErrorCode::deadline_exceeded);  // still held once
  rig.release(a, &release2);
  REQUIRE(rig.run_until_done(release2));
  rig.acquire(b, &other, seconds(5));
  REQUIRE(rig.run_until_done(other));
  CHECK(other.acquired());
}

TEST_CASE("reentrant: a new incarnation of a client 're-enters' a lock whose lease nobody keeps "
          "alive, and another client gets it while it believes it holds") {
  Rig rig(1);
  TestClient& a = rig.add_client("reentrant");
  TestClient& b = rig.add_client("reentrant");
  Outcome first, reborn, other;
  rig.acquire(a, &first, seconds(5));
  REQUIRE(rig.run_until_done(first));
  REQUIRE(first.acquired());
  // The client restarts: its memory (and keep-alive) is gone, its name is the same.
  a.tasks.clear();
  a.lock = find_algorithm("reentrant")->make(*a.node, [] {
    LockSetup s;
    REQUIRE(!resolve_options(*find_algorithm("reentrant"), s.options));
    return s;
  }());
  rig.acquire(a, &reborn, seconds(5));
  REQUIRE(rig.run_until_done(reborn));
  CHECK(reborn.acquired());  // the owner key names it: count++ with no lock taken
  rig.acquire(b, &other, seconds(20));
  REQUIRE(rig.run_until_done(other));
  CHECK(other.acquired());  // the old lease expired (10 s TTL): both believe they hold
}

// ============================== setnx-no-ttl ==============================

TEST_CASE("setnx-no-ttl: a key left by a vanished holder blocks everyone for ever - a leased key "
          "(txn-try-lock) expires") {
  for (const std::string name : {"setnx-no-ttl", "txn-try-lock"}) {
    INFO(name);
    Rig rig(1);
    TestClient& a = rig.add_client(name);
    TestClient& b = rig.add_client(name);
    Outcome first;
    rig.acquire(a, &first, seconds(5));
    REQUIRE(rig.run_until_done(first));
    REQUIRE(first.acquired());
    a.tasks.clear();
    a.lock.reset();  // the holder crashes: no release, no keep-alive
    bool got_it = false;
    for (int attempt = 0; attempt < 30 && !got_it; ++attempt) {
      Outcome poll;
      rig.acquire(b, &poll, seconds(1));
      REQUIRE(rig.run_until_done(poll));
      got_it = poll.acquired();
      if (!got_it) CHECK(poll.error() == ErrorCode::lock_busy);
      rig.run_for(seconds(1));
    }
    CHECK(got_it == (name == "txn-try-lock"));
  }
}

}  // namespace
}  // namespace lockstep
