#include "lockstep/real_etcd/event_loop.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <coroutine>
#include <stdexcept>
#include <string>
#include <vector>

#include "lockstep/real_etcd/real_node_context.h"

namespace lockstep::real {
namespace {

using SteadyClock = std::chrono::steady_clock;

Duration since(SteadyClock::time_point start) {
  return std::chrono::duration_cast<Duration>(SteadyClock::now() - start);
}

Task<int> sleep_then_return(EventLoop* loop, Duration d, int value) {
  co_await loop->sleep_real(d);
  co_return value;
}

TEST_CASE("run returns the result of a task that sleeps - after the sleep") {
  EventLoop loop;
  const auto start = SteadyClock::now();
  const int v = loop.run(sleep_then_return(&loop, milliseconds(30), 7));
  REQUIRE(v == 7);
  REQUIRE(since(start) >= milliseconds(30));
  REQUIRE(loop.live_roots() == 0);
}

Task<void> sleep_and_record(EventLoop* loop, Duration d, std::vector<int>* order, int label) {
  co_await loop->sleep_real(d);
  order->push_back(label);
}

Task<void> wait_all(EventLoop* loop, std::vector<std::uint64_t> ids) {
  while (true) {
    bool all = true;
    for (auto id : ids) all = all && loop->spawned_done(id);
    if (all) co_return;
    co_await loop->sleep_real(milliseconds(1));
  }
}

TEST_CASE("roots sharing the loop wake in deadline order") {
  EventLoop loop;
  std::vector<int> order;
  std::vector<std::uint64_t> ids = {
      loop.spawn(sleep_and_record(&loop, milliseconds(60), &order, 3), "c"),
      loop.spawn(sleep_and_record(&loop, milliseconds(20), &order, 1), "a"),
      loop.spawn(sleep_and_record(&loop, milliseconds(40), &order, 2), "b"),
  };
  loop.run(wait_all(&loop, ids));
  REQUIRE(order == std::vector<int>{1, 2, 3});
}

struct Tracker {
  int* destroyed;
  ~Tracker() { ++*destroyed; }
};

Task<void> sleeps_long(EventLoop* loop, int* destroyed, bool* resumed) {
  Tracker t{destroyed};
  co_await loop->sleep_real(seconds(30));
  *resumed = true;
}

TEST_CASE("cancelling a sleeping root destroys its frame and its alarm never resumes it") {
  EventLoop loop;
  int destroyed = 0;
  bool resumed = false;
  const auto id = loop.spawn(sleeps_long(&loop, &destroyed, &resumed), "sleeper");
  loop.run_for(milliseconds(20));  // it has started and is waiting on its alarm
  REQUIRE_FALSE(loop.spawned_done(id));
  REQUIRE(destroyed == 0);
  const auto start = SteadyClock::now();
  loop.cancel_spawned(id);
  REQUIRE(destroyed == 1);
  REQUIRE(loop.spawned_done(id));
  // The cancelled alarm comes back through the queue at once and is freed there.
  REQUIRE(loop.run(sleep_then_return(&loop, milliseconds(5), 1)) == 1);
  REQUIRE(since(start) < seconds(5));
  REQUIRE_FALSE(resumed);
  loop.cancel_spawned(id);  // unknown ids are harmless
}

Task<int> immediate(int x) { co_return x + 1; }

Task<long> many_immediate_awaits(int n) {
  long total = 0;
  for (int i = 0; i < n; ++i) total += co_await immediate(i);
  co_return total;
}

TEST_CASE("a million immediately-completing awaits run on the loop without overflowing") {
  EventLoop loop;
  const int n = 1'000'000;
  REQUIRE(loop.run(many_immediate_awaits(n)) == static_cast<long>(n) * (n + 1) / 2);
}

struct NeverWakes {
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<>) const noexcept {}
  void await_resume() const noexcept {}
};

Task<void> waits_for_nothing() { co_await NeverWakes{}; }

TEST_CASE("waiting on something nothing can wake is reported - not a hang") {
  EventLoop loop;
  REQUIRE_THROWS_AS(loop.run(waits_for_nothing()), std::logic_error);
}

Task<void> throws_after_sleep(EventLoop* loop) {
  co_await loop->sleep_real(milliseconds(1));
  throw std::runtime_error("bug in a spawned task");
}

TEST_CASE("an exception escaping a spawned root surfaces from run") {
  EventLoop loop;
  loop.spawn(throws_after_sleep(&loop), "buggy");
  REQUIRE_THROWS_WITH(loop.run(sleep_then_return(&loop, milliseconds(50), 0)),
                      "bug in a spawned task");
}

// A KvClient that must not be used: the node tests do not touch the KV.
class NoKv final : public KvClient {
 public:
  Task<Result<RangeResponse>> range(RangeRequest) override { return fail<RangeResponse>(); }
  Task<Result<PutResponse>> put(PutRequest) override { return fail<PutResponse>(); }
  Task<Result<DeleteRangeResponse>> delete_range(DeleteRangeRequest) override {
    return fail<DeleteRangeResponse>();
  }
  Task<Result<TxnResponse>> txn(TxnRequest) override { return fail<TxnResponse>(); }
  Task<Result<CompactionResponse>> compact(CompactionRequest) override {
    return fail<CompactionResponse>();
  }
  Task<Result<LeaseGrantResponse>> lease_grant(LeaseGrantRequest) override {
    return fail<LeaseGrantResponse>();
  }
  Task<Result<LeaseRevokeResponse>> lease_revoke(LeaseRevokeRequest) override {
    return fail<LeaseRevokeResponse>();
  }
  Task<Result<LeaseKeepAliveResponse>> lease_keep_alive(LeaseKeepAliveRequest) override {
    return fail<LeaseKeepAliveResponse>();
  }
  Task<Result<LeaseTimeToLiveResponse>> lease_time_to_live(LeaseTimeToLiveRequest) override {
    return fail<LeaseTimeToLiveResponse>();
  }
  Task<Result<LockResponse>> lock(LockRequest) override { return fail<LockResponse>(); }
  Task<Result<UnlockResponse>> unlock(UnlockRequest) override { return fail<UnlockResponse>(); }
  Task<Result<std::unique_ptr<WatchStream>>> watch(WatchCreateRequest) override {
    return fail<std::unique_ptr<WatchStream>>();
  }

 private:
  template <typename T>
  static Task<Result<T>> fail() {
    co_return Error(ErrorCode::unavailable, "no kv in this test");
  }
};

Task<Duration> timed_node_sleep(RealNodeContext* node, Duration d) {
  const auto start = SteadyClock::now();
  co_await node->sleep_for(d);
  co_return since(start);
}

TEST_CASE("a node's clocks follow the real clocks plus its injected skew") {
  EventLoop loop;
  NoKv kv;
  RealNodeContext node(loop, "client-1", kv, 42);
  const auto real_mono = std::chrono::duration_cast<Duration>(
      SteadyClock::now().time_since_epoch());
  const auto mono = node.monotonic_now().time_since_epoch();
  REQUIRE(mono - real_mono < milliseconds(50));
  REQUIRE(mono - real_mono >= Duration::zero());

  node.jump_wall(-seconds(3600));
  const auto real_wall = std::chrono::duration_cast<Duration>(
      std::chrono::system_clock::now().time_since_epoch());
  const auto wall = node.wall_now().time_since_epoch();
  REQUIRE(real_wall - wall > seconds(3599));
  REQUIRE(real_wall - wall < seconds(3601));

  node.jump_monotonic(seconds(10));
  REQUIRE(node.monotonic_now().time_since_epoch() - real_mono >= seconds(10));

  // A clock running twice as fast sleeps half as long in real time.
  node.set_drift_rate(1.0);
  const MonoTime before = node.monotonic_now();
  const Duration real_slept = loop.run(timed_node_sleep(&node, milliseconds(200)));
  const Duration local_slept = node.monotonic_now() - before;
  // No upper bound on real time (a loaded machine may stall the process at any moment); a
  // stall lengthens both durations alike, so their ratio still shows the 2x clock.
  REQUIRE(real_slept >= milliseconds(100));
  REQUIRE(local_slept >= milliseconds(200));
  REQUIRE(local_slept * 2 > real_slept * 3);
}

Task<void> tick_forever(RealNodeContext* node, int* ticks) {
  for (;;) {
    co_await node->sleep_for(milliseconds(2));
    ++*ticks;
  }
}

TEST_CASE("spawned tasks die with their handle - and with a crash of the node") {
  EventLoop loop;
  NoKv kv;
  RealNodeContext node(loop, "client-2", kv, 1);
  int a = 0;
  int b = 0;
  SpawnHandle ha = node.spawn(tick_forever(&node, &a), "a");
  SpawnHandle hb = node.spawn(tick_forever(&node, &b), "b");
  // Until both ticked (a loaded machine may give the loop less than a tick per 10 ms).
  for (int i = 0; i < 500 && (a == 0 || b == 0); ++i) loop.run_for(milliseconds(10));
  REQUIRE(a > 0);
  REQUIRE(b > 0);
  REQUIRE_FALSE(ha.done());
  ha.cancel();
  REQUIRE(ha.done());
  const int a_at_cancel = a;
  loop.run_for(milliseconds(20));
  REQUIRE(a == a_at_cancel);
  REQUIRE(b > 0);
  node.crash();
  REQUIRE(hb.done());
  const int b_at_crash = b;
  loop.run_for(milliseconds(20));
  REQUIRE(b == b_at_crash);
  REQUIRE(loop.live_roots() == 0);
}

TEST_CASE("a node's rng depends only on its seed - and trace reaches the sink") {
  EventLoop loop;
  NoKv kv;
  std::vector<std::string> lines;
  RealNodeContext a(loop, "a", kv, 99, [&](std::string_view node, MonoTime, std::string_view m) {
    lines.push_back(std::string(node) + ": " + std::string(m));
  });
  RealNodeContext b(loop, "b", kv, 99);
  RealNodeContext c(loop, "c", kv, 100);
  const auto x = a.rng().next_u64();
  REQUIRE(x == b.rng().next_u64());
  REQUIRE(x != c.rng().next_u64());
  a.trace("acquired");
  b.trace("ignored: no sink");
  REQUIRE(lines == std::vector<std::string>{"a: acquired"});
}

}  // namespace
}  // namespace lockstep::real
