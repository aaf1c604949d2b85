// Reading a run directory and writing its report.
//
// Contract: a run directory holds history.jsonl, verdict.json and scenario.json (written by
// harness/run_files.h). A run on a real etcd has no scenario.json (nothing replays it): its
// verdict.json names the backend instead, and its RunFiles::scenario is null. load_run_files
// reads and validates them; on bad or missing input
// it returns one message naming the file and the line or field and what was expected, and
// never throws. write_report renders report.html from them (a pure function of the files)
// and writes it atomically (a temporary file renamed into place).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "lockstep/checker/history.h"

namespace lockstep::reports {

struct RunFiles {
  History history;
  nlohmann::json verdict;
  nlohmann::json scenario;  // null for a real etcd run
};

// Returns an error message, or empty with `out` filled.
std::string load_run_files(const std::filesystem::path& run_dir, RunFiles& out);

// Renders `run_dir` into `out_file`. Returns an error message, or empty on success.
std::string write_report(const std::filesystem::path& run_dir, const std::filesystem::path& out_file);

// Renders files already loaded (by load_run_files) into `out_file`; an error message or empty.
std::string write_report(const RunFiles& files, const std::filesystem::path& out_file);

// A short text summary for the terminal: the verdict, each check, the explanation of any
// violation and the replay command.
std::string report_text_summary(const History& history, const nlohmann::json& verdict);

}  // namespace lockstep::reports
