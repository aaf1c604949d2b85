// checker_hard_bench [--count N] [--only cas_NNN.log] [--time-budget S] [--memory-budget MIB]
//                    [--write DIR]
// Times the linearizability checker on the fixed set of generated hard CAS-register histories
// (bench/hard_bench.h): one row per history, then the figures. With --write DIR it writes the
// histories to DIR (cas_NNN.log, Jepsen etcd logs) for `lockstep check` or another checker
// instead. Budgets default to `lockstep check`'s. Exit 1 if a history generated linearizable
// was not found so, 2 on bad arguments.
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <string>

#include "lockstep/bench/hard_bench.h"
#include "lockstep/checker/history_file_check.h"

namespace {

int usage(const std::string& message) {
  std::cerr << "checker_hard_bench: " << message
            << "\nusage: checker_hard_bench [--count N] [--only cas_NNN.log] [--time-budget S] "
               "[--memory-budget MIB] [--write DIR]\n";
  return 2;
}

// A number in [lo, hi] from `text`, or nullopt.
bool parse_number(const std::string& text, double lo, double hi, double& value) {
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size() && value >= lo && value <= hi;
}

}  // namespace

int main(int argc, char** argv) {
  lockstep::HardBenchOptions options;
  options.budget.time_seconds = lockstep::kDefaultTimeBudgetSeconds;
  options.budget.memory_bytes =
      static_cast<std::size_t>(lockstep::kDefaultMemoryBudgetMiB * 1024 * 1024);
  std::string write_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage(arg + ": expected a value after it");
    const std::string value = argv[++i];
    double number = 0;
    if (arg == "--count") {
      if (!parse_number(value, 1, 100000, number) || number != static_cast<int>(number))
        return usage("--count: expected a whole number from 1 to 100000, not \"" + value + "\"");
      options.count = static_cast<int>(number);
    } else if (arg == "--only") {
      options.only = value;
    } else if (arg == "--time-budget") {
      if (!parse_number(value, 0, 1e7, number))
        return usage("--time-budget: expected seconds from 0 to 1e7, not \"" + value + "\"");
      options.budget.time_seconds = number;
    } else if (arg == "--memory-budget") {
      if (!parse_number(value, 0, 1048576, number))
        return usage("--memory-budget: expected MiB from 0 to 1048576, not \"" + value + "\"");
      options.budget.memory_bytes = static_cast<std::size_t>(number * 1024 * 1024);
    } else if (arg == "--write") {
      write_dir = value;
    } else {
      return usage("unknown option \"" + arg + "\"");
    }
  }
  if (!write_dir.empty()) {
    if (auto error = lockstep::write_hard_set(options, write_dir); !error.empty()) {
      std::cerr << "checker_hard_bench: " << error << "\n";
      return 2;
    }
    return 0;
  }
  auto figures = lockstep::run_hard_bench(options, &std::cout);
  std::cout << "\n";
  int wrong = 0;
  for (const auto& f : figures) {
    std::cout << std::left << std::setw(32) << f.name << std::right << std::setw(14)
              << std::setprecision(6) << std::defaultfloat << f.value << " " << f.unit << "\n";
    if (f.name == "hard_wrong_verdicts") wrong = static_cast<int>(f.value);
  }
  return wrong == 0 ? 0 : 1;
}
