// The checker's hard benchmark: the fixed set of generated CAS-register histories
// (cas_history_gen.h), each checked in turn on the calling thread, with its time, states
// explored and the search's peak memory; then totals and the process's peak RSS.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "lockstep/bench/cas_history_gen.h"
#include "lockstep/bench/checker_bench.h"
#include "lockstep/checker/linearizability.h"

namespace lockstep {

struct HardBenchOptions {
  int count = 100;       // histories of hard_benchmark_specs
  std::string only;      // when set, only the history of this name (cas_NNN.log)
  Budget budget;         // per history; the default decides every history of the set
};

// Prints one row per history to `per_file` when given. Figures: hard_files, hard_total_seconds,
// hard_max_file_seconds, hard_states, hard_max_peak_mib (the largest search footprint),
// hard_linearizable, hard_not_linearizable, hard_unknown, hard_wrong_verdicts (a decided
// verdict that contradicts the one the generator knows; should be 0), hard_peak_rss_mib.
std::vector<BenchFigure> run_hard_bench(const HardBenchOptions& options, std::ostream* per_file);

// Writes the set's histories into `dir` (created if missing) as cas_NNN.log, for other
// checkers to read. Returns an error message, empty on success.
std::string write_hard_set(const HardBenchOptions& options, const std::string& dir);

}  // namespace lockstep
