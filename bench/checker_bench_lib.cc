#include "lockstep/bench/checker_bench.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "lockstep/checker/linearizability_check.h"

namespace lockstep {

namespace {

struct Row {
  std::string file;
  bool expected = false;
};

std::vector<Row> expected_rows(const std::string& dir) {
  std::vector<Row> rows;
  std::ifstream in(dir + "/expected.tsv");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream f(line);
    Row r;
    std::string verdict;
    f >> r.file >> verdict;
    if (verdict != "true" && verdict != "false") continue;  // etcd_095: empty, no verdict
    r.expected = verdict == "true";
    rows.push_back(r);
  }
  return rows;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

}  // namespace

std::vector<BenchFigure> run_checker_bench(const std::string& data_dir, std::ostream* per_file) {
  using Clock = std::chrono::steady_clock;
  struct Totals {
    double seconds = 0, max_seconds = 0;
    std::uint64_t states = 0;
    int files = 0;
  } etcd, kv;
  double parse_seconds = 0, c50_ok_seconds = 0;
  int wrong = 0;
  auto rows = expected_rows(data_dir);
  if (per_file)
    *per_file << std::left << std::setw(22) << "file" << std::right << std::setw(6) << "ops"
              << std::setw(18) << "verdict" << std::setw(10) << "states" << std::setw(12)
              << "seconds" << std::setw(10) << "peak MiB" << "\n";
  for (const auto& row : rows) {
    bool is_kv = row.file.rfind("kv/", 0) == 0;
    auto t0 = Clock::now();
    std::ifstream in(data_dir + "/" + row.file);
    LoadResult loaded =
        load_history(in, is_kv ? HistoryFormat::porcupine_kv : HistoryFormat::porcupine_etcd);
    parse_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    if (loaded.error) {
      ++wrong;
      if (per_file) *per_file << row.file << ": " << loaded.error->message << "\n";
      continue;
    }
    CheckRun run = check_history(*loaded.loaded, is_kv ? ModelKind::kv : ModelKind::cas_register,
                                 Budget{});
    const LinearizabilityResult& r = *run.result;
    bool right = r.verdict == (row.expected ? LinVerdict::linearizable
                                            : LinVerdict::not_linearizable);
    if (!right) ++wrong;
    Totals& t = is_kv ? kv : etcd;
    t.seconds += r.seconds;
    t.max_seconds = std::max(t.max_seconds, r.seconds);
    t.states += r.states_explored;
    ++t.files;
    if (row.file == "kv/c50-ok.txt") c50_ok_seconds = r.seconds;
    if (per_file)
      *per_file << std::left << std::setw(22) << row.file << std::right << std::setw(6)
                << r.operations << std::setw(18) << verdict_name(r.verdict) << std::setw(10)
                << r.states_explored << std::setw(12) << std::fixed << std::setprecision(6)
                << r.seconds << std::setw(10) << std::setprecision(2)
                << r.peak_memory_bytes / 1048576.0 << (right ? "" : "  WRONG VERDICT") << "\n";
  }
  return {
      {"checker_etcd_files", static_cast<double>(etcd.files), "files"},
      {"checker_etcd_total_seconds", etcd.seconds, "s"},
      {"checker_etcd_max_file_seconds", etcd.max_seconds, "s"},
      {"checker_etcd_states", static_cast<double>(etcd.states), "states"},
      {"checker_kv_files", static_cast<double>(kv.files), "files"},
      {"checker_kv_total_seconds", kv.seconds, "s"},
      {"checker_kv_max_file_seconds", kv.max_seconds, "s"},
      {"checker_kv_states", static_cast<double>(kv.states), "states"},
      {"checker_c50_ok_seconds", c50_ok_seconds, "s"},
      {"checker_parse_total_seconds", parse_seconds, "s"},
      {"checker_wrong_verdicts", static_cast<double>(wrong), "files"},
      {"checker_peak_rss_mib", peak_rss_mib(), "MiB"},
  };
}

}  // namespace lockstep
