#include "lockstep/cli/check_many.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ostream>

#include "lockstep/cli/check_json.h"
#include "lockstep/cli/check_summary.h"
#include "lockstep/cli/commands.h"

namespace lockstep::cli {

const char* file_outcome_name(FileOutcome o) {
  switch (o) {
    case FileOutcome::linearizable: return "linearizable";
    case FileOutcome::not_linearizable: return "not linearizable";
    case FileOutcome::unknown: return "unknown";
    case FileOutcome::bad_input: return "bad input";
    case FileOutcome::skipped: return "skipped";
  }
  return "?";
}

FileOutcome file_outcome(const HistoryFileCheck& c, bool found_in_directory) {
  if (c.error)
    return found_in_directory && c.error->not_a_history ? FileOutcome::skipped
                                                        : FileOutcome::bad_input;
  switch (c.result->verdict) {
    case LinVerdict::linearizable: return FileOutcome::linearizable;
    case LinVerdict::not_linearizable: return FileOutcome::not_linearizable;
    case LinVerdict::unknown: return FileOutcome::unknown;
  }
  return FileOutcome::unknown;
}

int outcome_exit_code(FileOutcome o) {
  switch (o) {
    case FileOutcome::linearizable: return kExitOk;
    case FileOutcome::not_linearizable: return kExitViolated;
    case FileOutcome::unknown: return kExitUnknown;
    case FileOutcome::bad_input: return kExitBadInput;
    case FileOutcome::skipped: return kExitOk;
  }
  return kExitUnknown;
}

int file_exit_code(const HistoryFileCheck& c) {
  return outcome_exit_code(file_outcome(c, false));
}

namespace {

// Worse outcomes rank higher: a violation is the news, then a file nobody could judge, then a
// budget that ran out.
int severity(FileOutcome o) {
  switch (o) {
    case FileOutcome::skipped: return 0;
    case FileOutcome::linearizable: return 1;
    case FileOutcome::unknown: return 2;
    case FileOutcome::bad_input: return 3;
    case FileOutcome::not_linearizable: return 4;
  }
  return 0;
}

// "linearizable        0.0123 s  PATH" and, for what has no verdict, why.
void print_line(std::ostream& out, const HistoryFileCheck& c, FileOutcome o) {
  char head[64];
  std::snprintf(head, sizeof head, "%-17s %9.4f s  ", file_outcome_name(o), c.seconds);
  out << head;
  if (o == FileOutcome::bad_input) {
    out << c.error->located(c.path) << "\n";
  } else if (o == FileOutcome::skipped) {
    // The reason's first clause: "empty file", "cannot tell the format from the first line".
    out << c.path << ": not a history (" << c.error->message.substr(0, c.error->message.find(':'))
        << ")\n";
  } else if (o == FileOutcome::unknown) {
    out << c.path << ": " << c.result->unknown_reason << "\n";
  } else {
    out << c.path << "\n";
  }
}

}  // namespace

int check_many(const std::vector<HistoryInput>& inputs, const HistoryFileOptions& options,
               unsigned jobs, bool json, std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  jobs = std::max(1u, jobs);
  CheckSummary summary;
  summary.jobs = static_cast<unsigned>(std::clamp<std::size_t>(inputs.size(), 1, jobs));
  FileOutcome worst = FileOutcome::skipped;
  nlohmann::json files = nlohmann::json::array();
  check_history_files(inputs, options, jobs, [&](std::size_t i, HistoryFileCheck& c) {
    const FileOutcome o = file_outcome(c, inputs[i].found_in_directory);
    summary.add(o, c.seconds);
    if (severity(o) > severity(worst)) worst = o;
    if (o == FileOutcome::bad_input) err << "lockstep check: " << c.error->located(c.path) << "\n";
    if (json) {
      files.push_back(file_check_json(c, o));
    } else {
      print_line(out, c, o);
      out.flush();  // a long directory shows its progress
    }
  });
  summary.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int code = outcome_exit_code(worst);
  if (summary.checked() == 0 && summary.count(FileOutcome::bad_input) == 0) {
    // Only files that are not histories: nothing was judged, which is no success.
    err << "lockstep check: no history among the " << summary.files() << " files found\n";
    code = kExitBadInput;
  }
  summary.exit_code = code;
  if (json) {
    nlohmann::json doc = {{"files", std::move(files)}, {"summary", summary_json(summary)}};
    out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    out << summary.sentence() << "\n";
  }
  return code;
}

}  // namespace lockstep::cli
