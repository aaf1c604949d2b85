#include "lockstep/bench/hard_bench.h"

#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "lockstep/checker/linearizability_check.h"

namespace lockstep {

namespace {

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

// What the generator promises: "lin", "not", or "?" (either).
const char* expected_name(GeneratedHistory::Expected e) {
  switch (e) {
    case GeneratedHistory::Expected::linearizable: return "lin";
    case GeneratedHistory::Expected::not_linearizable: return "not";
    case GeneratedHistory::Expected::either: return "?";
  }
  return "?";
}

}  // namespace

std::vector<BenchFigure> run_hard_bench(const HardBenchOptions& options, std::ostream* per_file) {
  const auto specs = hard_benchmark_specs(options.count);
  double total = 0, max_seconds = 0, max_peak_mib = 0;
  std::uint64_t states = 0;
  int files = 0, wrong = 0, lin = 0, not_lin = 0, unknown = 0;
  if (per_file)
    *per_file << std::left << std::setw(14) << "file" << std::right << std::setw(5) << "ops"
              << std::setw(6) << "info" << std::setw(8) << "expect" << std::setw(18) << "verdict"
              << std::setw(12) << "states" << std::setw(11) << "seconds" << std::setw(10)
              << "peak MiB" << "\n";
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const std::string name = hard_benchmark_name(static_cast<int>(i));
    if (!options.only.empty() && options.only != name) continue;
    const GeneratedHistory g = generate_cas_history(specs[i]);
    std::istringstream in(g.log);
    LoadResult loaded = load_history(in, HistoryFormat::porcupine_etcd);
    if (loaded.error) {  // the generator's own output: never expected
      ++wrong;
      if (per_file) *per_file << name << ": " << loaded.error->message << "\n";
      continue;
    }
    CheckRun run = check_history(*loaded.loaded, ModelKind::cas_register, options.budget);
    const LinearizabilityResult& r = *run.result;
    // A decided verdict must be the one the generator knows, when it knows one.
    using Expected = GeneratedHistory::Expected;
    const bool right =
        r.verdict == LinVerdict::unknown || g.expected == Expected::either ||
        (r.verdict == LinVerdict::linearizable) == (g.expected == Expected::linearizable);
    if (!right) ++wrong;
    (r.verdict == LinVerdict::linearizable       ? lin
     : r.verdict == LinVerdict::not_linearizable ? not_lin
                                                 : unknown)++;
    ++files;
    total += r.seconds;
    max_seconds = std::max(max_seconds, r.seconds);
    states += r.states_explored;
    const double peak_mib = r.peak_memory_bytes / 1048576.0;
    max_peak_mib = std::max(max_peak_mib, peak_mib);
    if (per_file)
      *per_file << std::left << std::setw(14) << name << std::right << std::setw(5)
                << g.operations << std::setw(6) << g.crashed << std::setw(8)
                << expected_name(g.expected) << std::setw(18) << verdict_name(r.verdict)
                << std::setw(12) << r.states_explored << std::setw(11) << std::fixed
                << std::setprecision(4) << r.seconds << std::setw(10) << std::setprecision(1)
                << peak_mib << (right ? "" : "  WRONG VERDICT") << std::defaultfloat << "\n"
                << std::flush;
  }
  return {
      {"hard_files", static_cast<double>(files), "files"},
      {"hard_total_seconds", total, "s"},
      {"hard_max_file_seconds", max_seconds, "s"},
      {"hard_states", static_cast<double>(states), "states"},
      {"hard_max_peak_mib", max_peak_mib, "MiB"},
      {"hard_linearizable", static_cast<double>(lin), "files"},
      {"hard_not_linearizable", static_cast<double>(not_lin), "files"},
      {"hard_unknown", static_cast<double>(unknown), "files"},
      {"hard_wrong_verdicts", static_cast<double>(wrong), "files"},
      {"hard_peak_rss_mib", peak_rss_mib(), "MiB"},
  };
}

std::string write_hard_set(const HardBenchOptions& options, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return dir + ": cannot create the directory: " + ec.message();
  const auto specs = hard_benchmark_specs(options.count);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const std::string name = hard_benchmark_name(static_cast<int>(i));
    if (!options.only.empty() && options.only != name) continue;
    const std::string path = dir + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out << generate_cas_history(specs[i]).log;
    if (!out) return path + ": cannot be written";
  }
  return {};
}

}  // namespace lockstep
