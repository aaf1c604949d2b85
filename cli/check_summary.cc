#include "lockstep/cli/check_summary.h"

#include <cstdio>

namespace lockstep::cli {

std::size_t CheckSummary::files() const {
  std::size_t n = 0;
  for (std::size_t c : counts) n += c;
  return n;
}

std::size_t CheckSummary::checked() const {
  return count(FileOutcome::linearizable) + count(FileOutcome::not_linearizable) +
         count(FileOutcome::unknown);
}

std::string CheckSummary::sentence() const {
  std::string s = std::to_string(files()) + (files() == 1 ? " file: " : " files: ");
  const FileOutcome order[] = {FileOutcome::linearizable, FileOutcome::not_linearizable,
                               FileOutcome::unknown, FileOutcome::bad_input, FileOutcome::skipped};
  for (std::size_t i = 0; i < 5; ++i)
    s += (i ? ", " : "") + std::to_string(count(order[i])) + " " + file_outcome_name(order[i]);
  char times[128];
  std::snprintf(times, sizeof times, "; %.3f s of checking in %.3f s with %u job%s", file_seconds,
                wall_seconds, jobs, jobs == 1 ? "" : "s");
  return s + times;
}

}  // namespace lockstep::cli
