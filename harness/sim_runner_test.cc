#include "harness/sim_runner.h"

#include <catch2/catch.hpp>

#include "harness/run_files.h"

namespace lockstep {
namespace {

RunConfig config_for(const std::string& algorithm, std::uint64_t seed) {
  RunConfig c;
  c.algorithm = algorithm;
  c.seed = seed;
  c.workload.clients = 3;
  c.workload.duration = seconds(20);
  REQUIRE(validate_run_config(c).empty());
  return c;
}

TEST_CASE("etcd-mutex keeps mutual exclusion with no faults - and clients make progress") {
  auto result = run_simulation(config_for("etcd-mutex", 1));
  REQUIRE(result.all_ok());
  REQUIRE(result.checks[0].figures["acquires_ok"].get<std::int64_t>() >= 10);
}

TEST_CASE("txn-try-lock keeps mutual exclusion with no faults") {
  auto result = run_simulation(config_for("txn-try-lock", 2));
  REQUIRE(result.all_ok());
  REQUIRE(result.checks[0].figures["acquires_ok"].get<std::int64_t>() >= 10);
}

TEST_CASE("the same seed gives a byte-identical history - another seed does not") {
  auto a = run_simulation(config_for("etcd-mutex", 42));
  auto b = run_simulation(config_for("etcd-mutex", 42));
  auto c = run_simulation(config_for("etcd-mutex", 43));
  REQUIRE(history_hash(a.history) == history_hash(b.history));
  REQUIRE(history_hash(a.history) != history_hash(c.history));
}

TEST_CASE("bad run configs are refused with a message naming the problem") {
  RunConfig c;
  c.algorithm = "no-such-lock";
  REQUIRE(validate_run_config(c).find("unknown algorithm") != std::string::npos);
  c.algorithm = "etcd-mutex";
  c.algorithm_options["bogus"] = 1;
  REQUIRE(validate_run_config(c).find("bogus") != std::string::npos);
}

}  // namespace
}  // namespace lockstep
