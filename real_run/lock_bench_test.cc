// The real-etcd lock bench's figures come from real runs: cycles counted from the history,
// latencies ordered, the mutex check's verdict passed on; an external client is measured the
// same way (and one without a lock is caught).
#include <catch2/catch.hpp>

#include "lockstep/real_run/lock_bench.h"

namespace lockstep {
namespace {

TEST_CASE("lock bench: lock+unlock cycles of etcd-mutex on a real etcd, and of an external client") {
  LockBenchCase c;
  c.algorithm = "etcd-mutex";
  c.clients = 1;
  c.length = seconds(1);
  const LockBenchResult own = run_lock_bench(c);
  REQUIRE(own.error == "");
  CHECK(own.cycles > 20);  // a cycle is a few milliseconds on loopback
  CHECK(own.cycles_per_second > 20);
  CHECK(own.p50_ms > 0);
  CHECK(own.p99_ms >= own.p50_ms);
  CHECK(own.mutex_ok);

  c.clients = 2;
  c.client_cmd = std::string("python3 ") + LOCKSTEP_REAL_RUN_TESTDATA + "/no_lock_client.py";
  const LockBenchResult none = run_lock_bench(c);
  REQUIRE(none.error == "");
  CHECK(none.cycles > 20);
  CHECK_FALSE(none.mutex_ok);  // two clients, no lock
}

}  // namespace
}  // namespace lockstep
