// Properties of LeaseLock, checked on lockstep's simulated etcd cluster. A failing property
// prints its shrunk counterexample as a scenario file: save it and run
// `lockstep replay FILE` to see the history, or keep it as a regression test.
#include <catch2/catch.hpp>

#include <lockstep/harness/scenario_gen.h>
#include <lockstep/harness/scenario_prop.h>
#include <lockstep/harness/sim_runner.h>

#include "lease_lock.h"

TEST_CASE("LeaseLock keeps mutual exclusion while faults stay well below its TTL") {
  example::register_lease_lock();
  lockstep::ScenarioGenOptions o;
  o.algorithm = "lease-lock";
  o.algorithm_options = {{"lease_ttl_seconds", 10}};
  o.max_faults = 3;
  o.max_fault_duration = lockstep::milliseconds(2500);
  o.checks = {"mutex"};
  lockstep::scenario_prop("lease-lock mutual exclusion", 10, [o] {
    const lockstep::RunConfig scenario = *lockstep::gen_run_config(o);
    const lockstep::RunResult result = lockstep::run_simulation(scenario);
    RC_ASSERT(result.all_ok());
  });
}

TEST_CASE("LeaseLock loses mutual exclusion when its holder pauses past the TTL") {
  // The same property without the bound on faults fails: a lease cannot protect against a
  // paused holder. Here the failing scenario is written out explicitly.
  example::register_lease_lock();
  lockstep::RunConfig c = lockstep::default_run_config();
  c.algorithm = "lease-lock";
  c.algorithm_options = {{"lease_ttl_seconds", 2}};
  c.workload.clients = 2;
  c.workload.duration = lockstep::seconds(2);
  c.workload.critical_section = lockstep::seconds(2);
  c.liveness_bound = lockstep::seconds(5);
  c.checks = {"mutex"};
  // Pause each client in turn: whichever holds the lock at 0.5 s outlives its lease.
  bool violated = false;
  for (const char* holder : {"client-0", "client-1"}) {
    lockstep::sim::FaultSpec pause;
    pause.kind = "pause";
    pause.start = lockstep::milliseconds(500);
    pause.duration = lockstep::seconds(6);
    pause.targets = {holder};
    c.faults = {pause};
    REQUIRE(lockstep::validate_run_config(c).empty());
    violated = violated || !lockstep::run_simulation(c).all_ok();
  }
  REQUIRE(violated);
}
