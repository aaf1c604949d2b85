#include "lockstep/harness/run_request.h"
#include "lockstep/harness/sim_runner.h"

#include <catch2/catch.hpp>

#include "lockstep/harness/run_files.h"

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

// The last acquire a client started, in true time.
std::int64_t last_acquire_invoke_ns(const History& h) {
  std::int64_t last = -1;
  for (const auto& e : h.events)
    if (e.op == "acquire" && e.kind == EventKind::invoke) last = std::max(last, e.true_ns);
  return last;
}

const CheckResult& check_named(const RunResult& r, const std::string& name) {
  for (const auto& c : r.checks)
    if (c.name == name) return c;
  FAIL("no " << name << " check");
  throw std::logic_error("unreachable");
}

TEST_CASE("with faults load goes on until liveness can be judged - unless the run has a fixed length") {
  RunConfig c = config_for("etcd-mutex", 5);
  c.workload.duration = seconds(10);
  c.liveness_bound = seconds(20);
  sim::FaultSpec pause;
  pause.kind = "pause";
  pause.start = seconds(2);
  pause.duration = seconds(3);
  pause.targets = {"client-1"};
  c.faults = {pause};
  REQUIRE(validate_run_config(c).empty());
  const std::int64_t clients_start_ns = (c.etcd.election_timeout * 3).count();
  const std::int64_t load_end_ns = clients_start_ns + seconds(10).count();

  const RunResult extended = run_simulation(c);
  // Healed at 5 s: acquires go on past 25 s, and the liveness check had enough history.
  REQUIRE(last_acquire_invoke_ns(extended.history) > clients_start_ns + seconds(25).count());
  REQUIRE(check_named(extended, "liveness").figures["judged"] == true);
  REQUIRE(replay_command(c).find("--fixed-length") == std::string::npos);

  c.extend_load_for_liveness = false;
  const RunResult fixed = run_simulation(c);
  REQUIRE(last_acquire_invoke_ns(fixed.history) > 0);
  REQUIRE(last_acquire_invoke_ns(fixed.history) <= load_end_ns);
  REQUIRE(fixed.stats.simulated_seconds < extended.stats.simulated_seconds);
  const CheckResult& liveness = check_named(fixed, "liveness");
  REQUIRE(liveness.status == CheckStatus::ok);
  REQUIRE(liveness.figures["judged"] == false);
  REQUIRE(fixed.all_ok());
  REQUIRE(replay_command(c).find(" --fixed-length") != std::string::npos);
}

TEST_CASE("the replay command names every setting a run differs from the defaults in") {
  RunRequest request;
  request.algorithm = "txn-retry-lock";
  request.seed = 3;
  request.duration = milliseconds(1'500);
  request.faults = "pause";
  request.algorithm_options = {{"lease_ttl_seconds", 7}, {"retry_interval_ms", 100}};
  RunConfig c;
  REQUIRE(expand_run_request(request, c).empty());
  // The TTL of 7 s was left out, and the printed command gave another verdict; the default
  // retry interval is not repeated; 1.5 s is not rounded.
  CHECK(replay_command(c) ==
        "lockstep run --algorithm txn-retry-lock --seed 3 --clients 3 --duration 1.5 "
        "--members 3 --faults pause --option lease_ttl_seconds=7");
  request.duration = seconds(86'399) + milliseconds(999);
  request.faults = "none";
  REQUIRE(expand_run_request(request, c).empty());
  CHECK(replay_command(c).find(" --duration 86399.999 ") != std::string::npos);
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
