#include "lockstep/bench/checker_bench.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
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

std::vector<std::string> tab_fields(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return out;
    start = tab + 1;
  }
}

bool whole_number(const std::string& s) {
  return !s.empty() && s.size() <= 18 && s.find_first_not_of("0123456789") == std::string::npos;
}

// The rows of DIR/expected.tsv with a verdict (excluded ones are left out); an error names
// the file and the line.
std::string read_expected_rows(const std::string& dir, std::vector<Row>& rows) {
  const std::string path = dir + "/expected.tsv";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return path + ": no such file";
  std::ifstream in(path);
  if (!in) return path + ": cannot read it";
  std::string line;
  std::int64_t line_no = 1;
  if (!std::getline(in, line) || line.rfind("file\texpected_linearizable", 0) != 0)
    return path + ":1: expected the header line file<TAB>expected_linearizable<TAB>ops<TAB>crashed_info_ops";
  bool listed = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const std::string at = path + ":" + std::to_string(line_no) + ": ";
    const std::vector<std::string> f = tab_fields(line);
    if (f.size() < 2 || f.size() > 4)
      return at + "expected a file and its expected_linearizable (and ops, crashed_info_ops), tab-separated";
    const std::string& file = f[0];
    if (file.empty() || file.front() == '/' || file.find("..") != std::string::npos)
      return at + "file: expected a path below " + dir + " (no \"..\"), not \"" + file + "\"";
    const std::string& verdict = f[1];
    if (verdict != "true" && verdict != "false" && verdict.rfind("excluded", 0) != 0)
      return at + "expected_linearizable: expected true, false or excluded(why), not \"" + verdict + "\"";
    for (std::size_t i = 2; i < f.size(); ++i)
      if (!whole_number(f[i]))
        return at + (i == 2 ? "ops" : "crashed_info_ops") + ": expected a whole number, not \"" + f[i] + "\"";
    listed = true;
    if (verdict.rfind("excluded", 0) == 0) continue;  // etcd_095: empty, no verdict
    if (!std::filesystem::is_regular_file(dir + "/" + file, ec))
      return at + dir + "/" + file + ": no such file";
    rows.push_back({file, verdict == "true"});
  }
  if (!listed) return path + ": lists no history (expected a line per history after the header)";
  return {};
}

std::vector<Row> expected_rows(const std::string& dir) {
  std::vector<Row> rows;
  (void)read_expected_rows(dir, rows);  // checker_data_error said why, before
  return rows;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

}  // namespace

std::string checker_data_error(const std::string& data_dir) {
  std::vector<Row> rows;
  return read_expected_rows(data_dir, rows);
}

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
