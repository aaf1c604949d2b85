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
// Call checker_data_error first: run_checker_bench leaves out rows it cannot read.
std::vector<BenchFigure> run_checker_bench(const std::string& data_dir, std::ostream* per_file);

// Why `data_dir` is not checker data, or empty: DIR/expected.tsv must have its header line
// (file, expected_linearizable, ops, crashed_info_ops, tab-separated) and list at least one
// history, each line naming a regular file below DIR (no "..") with `true`, `false` or
// `excluded(...)` and, when given, whole numbers of operations. The message names the file
// and the line (a bench that checked no file would print figures of nothing).
std::string checker_data_error(const std::string& data_dir);

}  // namespace lockstep
