// Many history files checked in one process: the files a command line names (a directory
// standing for the files below it), checked on several threads, results handed back in order.
//
// Why one process: a small history takes well under a millisecond to check, far less than a
// process takes to start, so checking a directory file by file from a shell loop mostly
// measures start-up.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/checker/history_file_check.h"

namespace lockstep {

struct HistoryInput {
  std::string path;
  // Found by walking a directory rather than named: a file there that is not a history
  // (README.md, expected.tsv) is skipped instead of being bad input.
  bool found_in_directory = false;
  std::uintmax_t size_bytes = 0;  // for scheduling only: the largest files start first
  // Set when the path cannot be walked (an unreadable or empty directory): the input's error,
  // as HistoryFileError::message (the path is not repeated).
  std::optional<std::string> error;
};

// A file argument stands for itself (checked later, so a missing one is reported with the
// others); a directory for every regular file below it, recursively, in path order, leaving
// out hidden names (starting with '.') and what is neither a file nor a directory. A directory
// with no file below it is an input with an error ("is a directory with no files in it").
std::vector<HistoryInput> expand_history_paths(const std::vector<std::string>& arguments);

// Checks each input with check_history_file on up to `jobs` threads (0 or 1: on the calling
// thread), starting with the largest files so that one long file does not start last. Calls
// `done(i, check)` for i = 0, 1, 2, ... in input order, each as soon as it and every input
// before it are decided; calls never overlap. The options are shared by every file; budgets
// apply to each file on its own.
void check_history_files(const std::vector<HistoryInput>& inputs, const HistoryFileOptions& options,
                         unsigned jobs,
                         const std::function<void(std::size_t, HistoryFileCheck&)>& done);

}  // namespace lockstep
