// The linearizability checker's benchmark: every Jepsen etcd history and every kv history of
// Porcupine's test data, checked one by one on one core.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace lockstep {

struct BenchFigure {
  std::string name;  // e.g. "checker_etcd_total_seconds"
  double value = 0;
  std::string unit;  // "s", "states", "MiB", "files"
};

// Runs the benchmark over `data_dir` (testdata/porcupine). Prints one line per file to
// `per_file` when given. Figures: checker_{etcd,kv}_total_seconds, _max_file_seconds,
// _states, _files, checker_c50_ok_seconds, checker_wrong_verdicts (should be 0),
// checker_peak_rss_mib (getrusage, the process's peak).
// Times are of the check alone; reading and parsing the files is reported separately
// (checker_parse_total_seconds).
std::vector<BenchFigure> run_checker_bench(const std::string& data_dir, std::ostream* per_file);

}  // namespace lockstep
