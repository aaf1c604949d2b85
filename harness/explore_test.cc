#include "lockstep/harness/explore.h"

#include <catch2/catch.hpp>
#include <algorithm>
#include <limits>
#include <set>

#include "lockstep/harness/replay.h"
#include "lockstep/harness/scenario.h"
#include "lockstep/harness/shrink.h"

namespace lockstep {
namespace {

// Short runs: these tests run in Debug and under sanitizers.
ExploreOptions short_options(const std::string& algorithm, const std::string& faults) {
  ExploreOptions o;
  o.run.algorithm = algorithm;
  o.run.clients = 3;
  o.run.members = 3;
  o.run.duration = seconds(4);
  o.run.faults = faults;
  o.run.max_fault_duration = seconds(9);
  o.liveness_bound = seconds(2);
  o.checks = {"mutex"};
  o.shrink_options.max_runs = 60;
  o.shrink_options.time_budget_seconds = 0;
  return o;
}

TEST_CASE("shard I/N is parsed 1-based and bad values are refused") {
  int index = -1, count = -1;
  REQUIRE(parse_shard("2/4", index, count) == "");
  REQUIRE(index == 1);
  REQUIRE(count == 4);
  for (const char* bad : {"0/4", "5/4", "4", "a/b", "1/0", "1/4x", "/4", ""})
    REQUIRE(parse_shard(bad, index, count).find("--shard must be I/N") != std::string::npos);
}

TEST_CASE("the shards of an exploration cover each seed exactly once") {
  std::set<std::uint64_t> seen;
  ExploreOptions o;
  o.first_seed = 10;
  o.shard_count = 3;
  ExploreResult r;
  for (o.shard_index = 0; o.shard_index < 3; ++o.shard_index)
    for (std::uint64_t k = 0; k < 5; ++k) REQUIRE(seen.insert(r.seed_at(o, k)).second);
  REQUIRE(seen.size() == 15);
  REQUIRE(*seen.begin() == 10);
  REQUIRE(*seen.rbegin() == 24);
}

TEST_CASE("seeds near 2^64 never wrap around to 0") {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  ExploreOptions o = short_options("txn-try-lock", "none");
  o.first_seed = kMax - 1;
  o.jobs = 1;
  o.shrink = false;
  REQUIRE(seeds_before_wrap(o) == 2);
  // --seeds 14 from 2^64-2 ran 2^64-2, 2^64-1, 0, 1, ..., 11.
  o.seeds = 14;
  ExploreResult r = explore(o, {});
  CHECK(r.error.find("wrap around to 0") != std::string::npos);
  CHECK(r.progress.seeds_done == 0);
  o.seeds = 2;
  r = explore(o, {});
  CHECK(r.error.empty());
  CHECK(r.progress.seeds_done == 2);
  // A time budget stops at the last seed.
  o.seeds = 0;
  o.time_budget_seconds = 30;
  r = explore(o, {});
  CHECK(r.error.empty());
  CHECK(r.progress.seeds_done == 2);
  CHECK(r.positions_run == 2);
  // Shards: the second of three from 2^64-3 has seeds 2^64-2 only.
  o.first_seed = kMax - 2;
  o.shard_index = 1;
  o.shard_count = 3;
  CHECK(seeds_before_wrap(o) == 1);
  o.first_seed = kMax;
  CHECK(seeds_before_wrap(o) == 0);
  o.shard_index = 0;
  CHECK(seeds_before_wrap(o) == 1);
}

// zk-recipe's only failure is the inherent one of leases: a holder stopped past its 60 s
// session. Explore reaches it because it draws some faults at the lease's scale.
TEST_CASE("explore with its defaults finds zk-recipe's holder outliving its 60 s lease") {
  ExploreOptions o;
  o.run.algorithm = "zk-recipe";
  o.run.clients = 5;
  o.run.duration = seconds(30);
  o.run.faults = "all";
  o.checks = {"mutex"};
  o.seeds = 60;
  o.shrink = false;
  o.jobs = 2;
  const ExploreResult r = explore(o, {});
  REQUIRE(r.error == "");
  REQUIRE(r.failing_seed.has_value());
  bool past_ttl = false;
  for (const auto& f : r.failing_config.faults) past_ttl = past_ttl || f.duration > seconds(60);
  CHECK(past_ttl);
}

TEST_CASE("explore reports the lowest failing seed whatever the number of jobs") {
  ExploreOptions o = short_options("txn-try-lock", "pause");
  o.seeds = 40;  // about one seed in twenty pauses the holder past its lease
  o.shrink = false;
  o.jobs = 1;
  const ExploreResult one = explore(o, {});
  o.jobs = 2;
  const ExploreResult two = explore(o, {});
  REQUIRE(one.error == "");
  REQUIRE(one.failing_seed.has_value());
  REQUIRE(two.failing_seed == one.failing_seed);
  REQUIRE(one.positions_run == *one.failing_seed - o.first_seed + 1);
  // Every seed below it was run and passed: it is the lowest.
  for (std::uint64_t seed = o.first_seed; seed < *one.failing_seed; ++seed) {
    RunConfig c;
    REQUIRE(explore_config(o, seed, c) == "");
    REQUIRE(run_verdict(run_simulation(c)) == "ok");
  }
  REQUIRE(run_verdict(run_simulation(one.failing_config)) == "violated");
}

TEST_CASE("explore with no failing seed runs every seed and reports none") {
  ExploreOptions o = short_options("etcd-mutex", "none");
  o.seeds = 4;
  o.jobs = 2;
  int calls = 0;
  const ExploreResult r = explore(o, [&](const ExploreProgress&) { ++calls; });
  REQUIRE(r.error == "");
  REQUIRE(!r.failing_seed);
  REQUIRE(r.progress.seeds_done == 4);
  REQUIRE(r.positions_run == 4);
  REQUIRE(calls >= 1);  // at least the final report
}

TEST_CASE("explore with a time budget stops starting seeds when it ends") {
  ExploreOptions o = short_options("etcd-mutex", "none");
  o.time_budget_seconds = 0.3;
  o.jobs = 2;
  const ExploreResult r = explore(o, {});
  REQUIRE(r.error == "");
  REQUIRE(r.progress.seeds_done >= 1);
  REQUIRE(r.progress.elapsed_seconds < 30);
}

TEST_CASE("explore refuses bad options before running anything") {
  ExploreOptions o = short_options("no-such-lock", "none");
  o.seeds = 3;
  REQUIRE(explore(o, {}).error.find("unknown algorithm") != std::string::npos);
  o = short_options("etcd-mutex", "meteors");
  o.seeds = 3;
  REQUIRE(explore(o, {}).error.find("unknown fault class") != std::string::npos);
  o = short_options("etcd-mutex", "none");
  REQUIRE(explore(o, {}).error.find("--seeds") != std::string::npos);
}

TEST_CASE("removing a client renumbers the others and drops faults that named only it") {
  RunConfig c;
  c.workload.clients = 3;
  auto fault = [](std::string kind, std::vector<std::string> from, std::vector<std::string> to,
                  std::vector<std::string> targets) {
    sim::FaultSpec f;
    f.kind = std::move(kind);
    f.from = std::move(from);
    f.to = std::move(to);
    f.targets = std::move(targets);
    return f;
  };
  const auto pause0 = fault("pause", {}, {}, {"client-0"});
  const auto pause2 = fault("pause", {}, {}, {"client-2"});
  const auto cut = fault("partition", {"client-0", "client-1"}, {"member-0"}, {});
  c.faults = {pause0, pause2, cut};
  const RunConfig w = without_client(c, 0);
  REQUIRE(w.workload.clients == 2);
  REQUIRE(w.faults.size() == 2);
  REQUIRE(w.faults[0].targets == std::vector<std::string>{"client-1"});
  REQUIRE(w.faults[1].from == std::vector<std::string>{"client-0"});
  const RunConfig m = with_members(c, 1);
  REQUIRE(m.faults.size() == 3);
  c.faults = {fault("partition", {"member-2"}, {"member-0"}, {})};
  REQUIRE(with_members(c, 1).faults.empty());
}

TEST_CASE("a shrunk failure is smaller - fails the same way - and does not depend on jobs") {
  ExploreOptions o = short_options("txn-try-lock", "pause,partition,delay");
  o.seeds = 60;
  o.shrink = false;
  const ExploreResult found = explore(o, {});
  REQUIRE(found.failing_seed.has_value());
  ShrinkOptions so;
  so.max_runs = 60;
  so.time_budget_seconds = 0;
  so.jobs = 1;
  const ShrinkResult one = shrink_failure(found.failing_config, so);
  so.jobs = 2;
  const ShrinkResult two = shrink_failure(found.failing_config, so);
  REQUIRE(one.error == "");
  REQUIRE(one.violated_check == "mutex");
  REQUIRE(run_config_difference(one.config, two.config) == "");
  REQUIRE(one.runs == two.runs);
  REQUIRE(one.config.faults.size() <= found.failing_config.faults.size());
  REQUIRE(one.config.workload.duration <= found.failing_config.workload.duration);
  REQUIRE(!one.steps.empty());
  Scenario s = shrunk_scenario(found.failing_config, one, "a test");
  REQUIRE(s.config.expected_verdict == "violated");
  REQUIRE(s.description.find("txn-try-lock violates mutex") == 0);
  REQUIRE(replay_scenario(s).as_expected());
}

bool is_fixed_length_step(const std::string& step) { return step.starts_with("fixed-length load ("); }

TEST_CASE("a shrunk safety violation has a fixed-length load - a liveness one keeps its extension") {
  Scenario s;
  REQUIRE(load_scenario_file(LOCKSTEP_SOURCE_DIR "/scenarios/txn-try-lock-holder-paused-past-ttl.json",
                             s) == "");
  REQUIRE(s.config.extend_load_for_liveness);  // an old file: extended, as it was written
  ShrinkOptions so;
  so.time_budget_seconds = 0;
  so.jobs = 1;
  const RunResult before = run_simulation(s.config);
  const ShrinkResult mutex = shrink_failure(s.config, so);
  REQUIRE(mutex.violated_check == "mutex");
  REQUIRE_FALSE(mutex.config.extend_load_for_liveness);
  REQUIRE(std::count_if(mutex.steps.begin(), mutex.steps.end(), is_fixed_length_step) == 1);
  // The 8 s pause no longer keeps the load going until liveness could be judged after it.
  REQUIRE(mutex.result.stats.simulated_seconds < before.stats.simulated_seconds);
  REQUIRE(replay_scenario(shrunk_scenario(s.config, mutex, "a test")).as_expected());

  REQUIRE(load_scenario_file(
              LOCKSTEP_SOURCE_DIR "/scenarios/setnx-no-ttl-crashed-holder-blocks-forever.json", s) == "");
  REQUIRE(s.config.extend_load_for_liveness);
  const ShrinkResult liveness = shrink_failure(s.config, so);
  REQUIRE(liveness.violated_check == "liveness");
  REQUIRE(liveness.config.extend_load_for_liveness);
  REQUIRE(std::count_if(liveness.steps.begin(), liveness.steps.end(), is_fixed_length_step) == 0);
}

TEST_CASE("a shrunk fault is as short and as late as the violation needs") {
  // txn-try-lock's paused holder, with its 8 s pause stretched to 40 s (the lease is 5 s).
  Scenario s;
  REQUIRE(load_scenario_file(LOCKSTEP_SOURCE_DIR "/scenarios/txn-try-lock-holder-paused-past-ttl.json",
                             s) == "");
  REQUIRE(s.config.faults.size() == 1);
  REQUIRE(s.config.faults[0].kind == "pause");
  s.config.faults[0].duration = seconds(40);
  ShrinkOptions so;
  so.time_budget_seconds = 0;
  so.jobs = 1;
  const ShrinkResult shrunk = shrink_failure(s.config, so);
  REQUIRE(shrunk.violated_check == "mutex");
  REQUIRE(shrunk.config.faults.size() == 1);
  const sim::FaultSpec& pause = shrunk.config.faults[0];
  INFO("pause from " << to_ms(pause.start) << " ms for " << to_ms(pause.duration) << " ms");
  // The holder needs to miss only its keep-alives until the 5 s lease runs out (its first
  // keep-alive is due TTL/3 after the grant): well under the 8 s of the original scenario,
  // where halving 40 s would have stopped at 10 s.
  CHECK(pause.duration > seconds(2));
  CHECK(pause.duration < seconds(5));
  // Minimal within the bisection's precision: a tenth shorter, or a tenth later with the same
  // end, and the violation is gone.
  for (const Duration cut : {pause.duration / 10}) {
    RunConfig shorter = shrunk.config;
    shorter.faults[0].duration -= cut;
    CHECK(first_violated_check(run_simulation(shorter)) != "mutex");
    RunConfig later = shrunk.config;
    later.faults[0].start += cut;
    later.faults[0].duration -= cut;
    CHECK(first_violated_check(run_simulation(later)) != "mutex");
  }
  REQUIRE(replay_scenario(shrunk_scenario(s.config, shrunk, "a test")).as_expected());
}

TEST_CASE("shrinking a run that violates nothing says so") {
  RunConfig c;
  c.algorithm = "etcd-mutex";
  c.workload.duration = seconds(1);
  REQUIRE(validate_run_config(c) == "");
  REQUIRE(shrink_failure(c, ShrinkOptions{}).error.find("violates no check") != std::string::npos);
}

}  // namespace
}  // namespace lockstep
