// Pins each algorithm's verdicts over seeds: the broken ones are caught with the violation
// docs/algorithms.md predicts within a bounded seed search; the
// correct ones survive many seeds of the faults they are meant to survive.
#include <catch2/catch.hpp>

#include "lockstep/harness/run_request.h"
#include "lockstep/harness/sim_runner.h"

namespace lockstep {
namespace {

// The full 500 seeds run in the Release build (CI runs it too); Debug and the sanitizer
// build, some ten times slower, check a prefix of the same seeds.
#ifdef NDEBUG
constexpr int kSurvivalSeeds = 500;
#else
constexpr int kSurvivalSeeds = 25;
#endif

CheckStatus status_of(const RunResult& r, const std::string& check) {
  for (const auto& c : r.checks)
    if (c.name == check) return c.status;
  FAIL("no check named " << check);
  return CheckStatus::unknown;
}

struct Search {
  std::string algorithm;
  std::string faults = "none";
  std::string check;  // the check that must be violated
  int clients = 3;
  Duration duration = seconds(20);
  Duration max_fault_duration = seconds(15);
  AlgorithmOptions options;
  int max_seeds = 60;
};

Search search(std::string algorithm, std::string faults, std::string check, int clients = 3) {
  Search s;
  s.algorithm = std::move(algorithm);
  s.faults = std::move(faults);
  s.check = std::move(check);
  s.clients = clients;
  return s;
}

// The first seed whose run violates `check`, or 0.
std::uint64_t first_violation(const Search& s) {
  for (std::uint64_t seed = 1; seed <= static_cast<std::uint64_t>(s.max_seeds); ++seed) {
    RunRequest req;
    req.algorithm = s.algorithm;
    req.seed = seed;
    req.clients = s.clients;
    req.duration = s.duration;
    req.faults = s.faults;
    req.max_fault_duration = s.max_fault_duration;
    req.algorithm_options = s.options;
    RunConfig config;
    const std::string err = expand_run_request(req, config);
    REQUIRE(err.empty());
    config.liveness_bound = seconds(30);
    if (status_of(run_simulation(config), s.check) == CheckStatus::violated) return seed;
  }
  return 0;
}

TEST_CASE("naive-get-put breaks mutual exclusion with no fault at all") {
  CHECK(first_violation(search("naive-get-put", "none", "mutex")) > 0);
}

TEST_CASE("rw-lock lets a reader and a writer in together with no fault at all") {
  CHECK(first_violation(search("rw-lock", "none", "mutex")) > 0);
}

TEST_CASE("txn-try-lock breaks mutual exclusion when holders outlive their lease") {
  CHECK(first_violation(search("txn-try-lock", "pause", "mutex", 3)) > 0);
}

TEST_CASE("txn-retry-lock breaks mutual exclusion when holders outlive their lease") {
  Search s = search("txn-retry-lock", "pause", "mutex", 3);
  s.options["lease_ttl_seconds"] = 3;
  CHECK(first_violation(s) > 0);
}

TEST_CASE("reentrant breaks mutual exclusion when holders outlive their lease") {
  Search s = search("reentrant", "pause", "mutex", 3);
  s.options["lease_ttl_seconds"] = 3;
  CHECK(first_violation(s) > 0);
}

TEST_CASE("prefix-watch-lock breaks mutual exclusion or liveness under faults") {
  const auto mutex = first_violation(search("prefix-watch-lock", "all", "mutex", 5));
  const auto liveness = first_violation(search("prefix-watch-lock", "all", "liveness", 5));
  CHECK((mutex > 0 || liveness > 0));
}

TEST_CASE("etcd-mutex-3.4 grants the lock to a waiter whose lease expired") {
  Search s = search("etcd-mutex-3.4", "pause,lease-drop", "mutex", 4);
  s.options["lease_ttl_seconds"] = 3;
  CHECK(first_violation(s) > 0);
}

TEST_CASE("setnx-no-ttl never frees the lock of a crashed holder") {
  CHECK(first_violation(search("setnx-no-ttl", "crash", "liveness", 3)) > 0);
}

// The correct algorithms, over many seeds.
void survives(const std::string& algorithm, const std::string& faults, Duration max_fault,
              const std::vector<std::string>& checks, int seeds) {
  for (int seed = 1; seed <= seeds; ++seed) {
    RunRequest req;
    req.algorithm = algorithm;
    req.seed = static_cast<std::uint64_t>(seed);
    req.clients = 3;
    req.duration = seconds(15);
    req.faults = faults;
    req.max_fault_duration = max_fault;
    RunConfig config;
    REQUIRE(expand_run_request(req, config).empty());
    config.checks = checks;
    const RunResult r = run_simulation(config);
    for (const auto& c : r.checks) {
      INFO(algorithm << " seed " << seed << ": " << c.name << ": " << c.summary);
      REQUIRE(c.status == CheckStatus::ok);
    }
  }
}

TEST_CASE("etcd-mutex holds every check over 500 seeds of faults below its TTL") {
  survives("etcd-mutex", "partition,delay,leader-change", seconds(10),
           {"mutex", "resource", "liveness"}, kSurvivalSeeds);
}

TEST_CASE("zk-recipe holds every check over 500 seeds of faults below its TTL") {
  survives("zk-recipe", "partition,delay,leader-change", seconds(10),
           {"mutex", "resource", "liveness"}, kSurvivalSeeds);
}

TEST_CASE("etcd-mutex-fenced keeps the resource and liveness over 500 seeds of every fault") {
  survives("etcd-mutex-fenced", "all", seconds(20), {"resource", "liveness"}, kSurvivalSeeds);
}

TEST_CASE("etcd-mutex-guarded keeps the resource and liveness over 500 seeds of every fault") {
  survives("etcd-mutex-guarded", "all", seconds(20), {"resource", "liveness"}, kSurvivalSeeds);
}

// The inherent limit of leases: even the correct algorithms break mutual exclusion once a
// holder pauses past its TTL. Only fencing at the resource can help.
TEST_CASE("etcd-mutex and zk-recipe break mutual exclusion when a holder pauses past its TTL") {
  for (const char* algorithm : {"etcd-mutex", "zk-recipe"}) {
    Search s = search(algorithm, "pause", "mutex", 3);
    s.options["lease_ttl_seconds"] = 3;
    INFO(algorithm);
    CHECK(first_violation(s) > 0);
  }
}

}  // namespace
}  // namespace lockstep
