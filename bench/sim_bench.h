// The simulator's benchmark: how fast lockstep simulates, on one core.
//
// Figures (named as `lockstep bench` prints them):
//   sim_kv_requests_per_cpu_second  KV requests (put and range, alternating) completed per
//                                   CPU second by clients hammering a simulated 3-member
//                                   cluster (a request: client -> member -> raft -> reply);
//                                   `lockstep bench --kv-clients N` sets their number. The
//                                   median of `--kv-runs` runs (sim_kv_runs), with the
//                                   slowest and fastest (_min, _max)
//   sim_kv_requests_per_cpu_second_recorded
//                                   the same load with every client's KV calls recorded into a
//                                   history (kv-send, kv-end) with the simulator's records of
//                                   what the cluster did (each write's way through raft, its
//                                   key's change), as a `lockstep run` records them (median of as many runs, taken in turn with the others)
//   sim_kv_events_per_request,      world events and network messages per KV request, and
//   sim_kv_messages_per_request,    events per CPU second: where a request's cost goes
//   sim_events_per_cpu_second
//   standard_seeds_per_cpu_second   seeds of the standard scenario (etcd-mutex, 5 clients,
//                                   3 members, 60 s of load, --faults all with faults up to
//                                   20 s, every check) per CPU second. The load stops at 60 s
//                                   (extend_load_for_liveness false); clients then drain.
//   standard_seed_simulated_seconds simulated seconds per standard seed (mean), drain included
//   sim_to_wall_time_ratio          simulated seconds per wall-clock second over those seeds
//   standard_seed_events            world events per standard seed (mean), for context
//   liveness_seeds_per_cpu_second,  the same seeds with the load extended until liveness can
//   liveness_seed_simulated_seconds be judged after the last fault (what `lockstep run` does
//                                   by default): about three times as long
// CPU time is this thread's (CLOCK_THREAD_CPUTIME_ID), so other load on the machine barely
// moves the figures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lockstep/bench/checker_bench.h"  // BenchFigure

namespace lockstep {

struct SimBenchOptions {
  int kv_clients = 16;
  double kv_simulated_seconds = 60;
  int kv_runs = 5;
  std::uint64_t standard_seeds = 20;
};

std::vector<BenchFigure> run_sim_bench(const SimBenchOptions& options);

// The Porcupine test data the checker benchmark reads, as found at build time.
std::string default_checker_data_dir();

}  // namespace lockstep
