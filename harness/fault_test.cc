#include <catch2/catch.hpp>
#include <map>

#include "lockstep/harness/fault_schedule.h"
#include "lockstep/harness/run_request.h"
#include "lockstep/harness/sim_runner.h"

namespace lockstep {
namespace {

TEST_CASE("every fault class fires in a sample of seeds with --faults all") {
  std::map<std::string, int> applied;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    RunRequest req;
    req.algorithm = "etcd-mutex";
    req.seed = seed;
    req.clients = 5;
    req.duration = seconds(20);
    req.faults = "all";
    RunConfig config;
    REQUIRE(expand_run_request(req, config).empty());
    auto result = run_simulation(config);
    for (const auto& e : result.history.events)
      if (e.kind == EventKind::fault && e.args.value("phase", "") == "start" &&
          !e.args.contains("skipped"))
        ++applied[e.op];
  }
  for (const auto& c : sim::fault_catalogue()) {
    INFO("fault class " << c.name);
    CHECK(applied[c.name] > 0);
  }
}

TEST_CASE("the faults option accepts lists and all and none and names an unknown class") {
  std::set<std::string> classes;
  REQUIRE_FALSE(parse_fault_classes("pause,crash", classes));
  REQUIRE(classes == std::set<std::string>{"pause", "crash"});
  REQUIRE_FALSE(parse_fault_classes("all", classes));
  REQUIRE(classes.size() == sim::fault_catalogue().size());
  REQUIRE_FALSE(parse_fault_classes("none", classes));
  REQUIRE(classes.empty());
  auto err = parse_fault_classes("pause,gremlins", classes);
  REQUIRE(err);
  REQUIRE(err->find("gremlins") != std::string::npos);
}

TEST_CASE("the faults option refuses a list that says two things or nothing") {
  std::set<std::string> classes;
  const std::pair<const char*, const char*> bad[] = {
      {"all,none", "must stand alone"},  {"none,pause", "must stand alone"},
      {"pause,all", "must stand alone"}, {"pause,,crash", "empty item"},
      {"pause,", "empty item"},          {",pause", "empty item"},
      {"", "expected a comma list"},     {"pause,crash,pause", "given twice"}};
  for (const auto& [text, why] : bad) {
    INFO(text);
    const auto err = parse_fault_classes(text, classes);
    REQUIRE(err);
    CHECK(err->find(why) != std::string::npos);
  }
}

TEST_CASE("a fault schedule is a pure function of the seed and respects the duration cap") {
  FaultGenOptions o;
  for (const auto& c : sim::fault_catalogue()) o.classes.insert(c.name);
  o.max_fault_duration = seconds(3);
  auto a = generate_faults(Rng(5), o);
  auto b = generate_faults(Rng(5), o);
  auto c = generate_faults(Rng(6), o);
  REQUIRE(a == b);
  REQUIRE(a != c);
  for (const auto& f : a) REQUIRE(f.duration <= seconds(3));
}

TEST_CASE("with a lease TTL, some holder-stopping faults straddle it and the cap still holds") {
  FaultGenOptions o;
  for (const auto& c : sim::fault_catalogue()) o.classes.insert(c.name);
  o.run_length = seconds(20);
  o.max_fault_duration = seconds(90);
  o.lease_ttl = seconds(60);
  int straddling = 0, long_other = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    for (const auto& f : generate_faults(Rng(seed), o)) {
      REQUIRE(f.duration <= seconds(90));
      const bool stops_holder = f.kind == "pause" || f.kind == "crash" ||
                                f.kind == "partition" || f.kind == "lease-drop";
      if (f.duration >= seconds(30)) (stops_holder ? straddling : long_other) += 1;
    }
  }
  CHECK(straddling > 50);
  CHECK(long_other == 0);  // delay, loss, clock... keep their own ranges
}

TEST_CASE("lease-scale draws leave the rest of the schedule as it was") {
  FaultGenOptions plain;
  for (const auto& c : sim::fault_catalogue()) plain.classes.insert(c.name);
  FaultGenOptions leased = plain;
  leased.lease_ttl = seconds(60);  // half the TTL is above the 20 s cap: nothing to draw
  FaultGenOptions short_lease = plain;
  short_lease.lease_ttl = seconds(10);
  int changed = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const auto a = generate_faults(Rng(seed), plain);
    REQUIRE(generate_faults(Rng(seed), leased) == a);
    const auto b = generate_faults(Rng(seed), short_lease);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      sim::FaultSpec same_duration = b[i];
      same_duration.duration = a[i].duration;
      REQUIRE(same_duration == a[i]);  // only durations differ
      if (b[i].duration != a[i].duration) {
        ++changed;
        REQUIRE(b[i].duration >= seconds(5));
        REQUIRE(b[i].duration <= seconds(15));
      }
    }
  }
  CHECK(changed > 10);
}

TEST_CASE("the default longest fault is 20 s or one and a half lease TTLs") {
  RunRequest req;
  REQUIRE(max_fault_duration(req, Duration(0)) == seconds(20));
  REQUIRE(max_fault_duration(req, seconds(10)) == seconds(20));
  REQUIRE(max_fault_duration(req, seconds(60)) == seconds(90));
  req.max_fault_duration = seconds(5);
  REQUIRE(max_fault_duration(req, seconds(60)) == seconds(5));
  RunConfig config;
  req = RunRequest{};
  req.algorithm = "zk-recipe";  // a 60 s session by default
  req.faults = "pause";
  bool long_pause = false;
  for (std::uint64_t seed = 1; seed <= 20 && !long_pause; ++seed) {
    req.seed = seed;
    REQUIRE(expand_run_request(req, config).empty());
    for (const auto& f : config.faults) long_pause = long_pause || f.duration > seconds(60);
  }
  CHECK(long_pause);
}

// The fidelity check of the fault catalogue: a holder paused past its lease TTL.
RunConfig paused_holder(const std::string& algorithm, std::uint64_t seed) {
  RunConfig c = default_run_config();
  c.algorithm = algorithm;
  c.seed = seed;
  c.workload.clients = 2;
  c.workload.duration = seconds(20);
  c.workload.critical_section = seconds(3);
  c.algorithm_options["lease_ttl_seconds"] = 5;
  sim::FaultSpec pause;
  pause.kind = "pause";
  pause.targets = {"client-0"};
  pause.start = milliseconds(1000);
  pause.duration = seconds(9);
  c.faults = {pause};
  REQUIRE(validate_run_config(c).empty());
  return c;
}

TEST_CASE("txn-try-lock breaks mutual exclusion when its holder pauses past the TTL") {
  int violated = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto r = run_simulation(paused_holder("txn-try-lock", seed));
    if (r.checks[0].status != CheckStatus::violated) continue;
    ++violated;
    // The paused client is the one that still believed it held the lock.
    REQUIRE(r.checks[0].witness["earlier"]["process"] == "client-0");
  }
  REQUIRE(violated > 0);
}

TEST_CASE("without the pause txn-try-lock keeps mutual exclusion on the same seeds") {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto c = paused_holder("txn-try-lock", seed);
    c.faults.clear();
    REQUIRE(run_simulation(c).all_ok());
  }
}

}  // namespace
}  // namespace lockstep
