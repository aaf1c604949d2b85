// `lockstep check` over many files: one line per file in path order, as soon as it and those
// before it are decided, then a summary; or, with --json, one JSON document at the end.
//
// A file's outcome is its verdict, `bad input` (it could not be judged: the error goes to
// `err` as well, naming the file and line), or `skipped` (found in a directory but not a
// history at all: an empty file, or a first line of no known format). The exit code is the
// worst outcome's, worst first: 1 (not linearizable), 2 (bad input), 3 (unknown), 0; skipped
// files do not count, but inputs with nothing to check at all are bad input (2).
#pragma once

#include <iosfwd>
#include <vector>

#include "lockstep/checker/history_batch.h"

namespace lockstep::cli {

enum class FileOutcome { linearizable, not_linearizable, unknown, bad_input, skipped };

// "linearizable", "not linearizable", "unknown", "bad input", "skipped".
const char* file_outcome_name(FileOutcome o);
FileOutcome file_outcome(const HistoryFileCheck& c, bool found_in_directory);
int outcome_exit_code(FileOutcome o);  // 0, 1, 3, 2; skipped: 0
// The exit code of a file named alone (never skipped).
int file_exit_code(const HistoryFileCheck& c);

// Checks every input on `jobs` threads and prints as above. Returns the exit code.
int check_many(const std::vector<HistoryInput>& inputs, const HistoryFileOptions& options,
               unsigned jobs, bool json, std::ostream& out, std::ostream& err);

}  // namespace lockstep::cli
