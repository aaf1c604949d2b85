// The report that every run directory a command writes gets (`run`, `replay`, `explore`'s
// failure, the real backend's run): report.html next to history.jsonl, verdict.json and
// scenario.json, so a failure can be read without lockstep installed.
#pragma once

#include <filesystem>
#include <string>

namespace lockstep::cli {

// Renders DIR/report.html from the run files in DIR. Refuses to replace an existing
// report.html unless `overwrite` (as write_run_directory does for the other files). Returns an
// error message or empty.
std::string write_run_report(const std::filesystem::path& dir, bool overwrite);

}  // namespace lockstep::cli
