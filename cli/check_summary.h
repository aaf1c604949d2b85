// The summary of a `lockstep check` over many files: how many files had each outcome, the
// time spent checking them (summed over files) and the wall-clock time of the whole command.
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "lockstep/cli/check_many.h"

namespace lockstep::cli {

struct CheckSummary {
  std::array<std::size_t, 5> counts{};  // indexed by FileOutcome
  double file_seconds = 0;              // the files' own times, summed
  double wall_seconds = 0;              // the command, start to end
  unsigned jobs = 1;
  int exit_code = 0;

  void add(FileOutcome o, double seconds) {
    ++counts[static_cast<std::size_t>(o)];
    file_seconds += seconds;
  }
  std::size_t count(FileOutcome o) const { return counts[static_cast<std::size_t>(o)]; }
  std::size_t files() const;    // every file, skipped ones included
  std::size_t checked() const;  // files with a verdict (linearizable, not, unknown)
  // "104 files: 23 linearizable, 79 not linearizable, 0 unknown, 0 bad input, 2 skipped;
  //  0.412 s of checking in 0.231 s with 2 jobs"
  std::string sentence() const;
};

}  // namespace lockstep::cli
