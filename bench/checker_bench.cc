// checker_bench [PORCUPINE_DATA_DIR]: checks every Jepsen etcd and kv history of Porcupine's
// test data and prints per-file and total time, states explored and peak memory.
// Exit 1 if any verdict differs from expected.tsv.
#include <iomanip>
#include <iostream>

#include "lockstep/bench/checker_bench.h"

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : LOCKSTEP_PORCUPINE_DATA_DIR;
  if (auto err = lockstep::checker_data_error(dir); !err.empty()) {
    std::cerr << "checker_bench: " << err << "\n";
    return 2;
  }
  auto figures = lockstep::run_checker_bench(dir, &std::cout);
  std::cout << "\n";
  int wrong = 0;
  for (const auto& f : figures) {
    std::cout << std::left << std::setw(32) << f.name << std::right << std::setw(14)
              << std::setprecision(6) << std::defaultfloat << f.value << " " << f.unit << "\n";
    if (f.name == "checker_wrong_verdicts") wrong = static_cast<int>(f.value);
  }
  return wrong == 0 ? 0 : 1;
}
