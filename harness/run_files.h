// The files a run writes into its directory: history.jsonl, verdict.json and scenario.json.
//
// Contract: write_run_directory refuses to overwrite a file that already exists unless
// `overwrite` is set, so a user's earlier results are never lost silently. Errors come back
// as one message naming the file. The scenario.json written is the scenario that ran, fully
// expanded; where it expected nothing, it now expects what this run gave (its verdict and
// history hash), so that `lockstep replay DIR/scenario.json` checks the run reproduces.
#pragma once

#include <filesystem>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "lockstep/harness/run_config.h"
#include "lockstep/harness/scenario.h"  // run_config_to_json, which used to live here
#include "lockstep/harness/sim_runner.h"

namespace lockstep {

// verdict.json: the verdict, each check, figures, and the expected verdict (and history hash)
// beside the actual one with "as_expected" when the scenario expects something.
nlohmann::json verdict_to_json(const Scenario& scenario, const RunResult& result,
                               const std::string& replay);
nlohmann::json verdict_to_json(const RunConfig& config, const RunResult& result);
// The `lockstep run` line that reproduces a config expanded from a RunRequest.
std::string replay_command(const RunConfig& config);

// The files of a run directory: the three write_run_directory writes, and report.html, which
// the CLI writes next to them (reports/).
inline constexpr const char* kRunDirectoryFiles[] = {"history.jsonl", "verdict.json",
                                                     "scenario.json", "report.html"};
// Empty when none of `names` exists in `dir`; else a message naming the first that does (or
// that cannot be looked up). Callers check before writing anything, so that a refusal leaves
// no files half written.
std::string files_taken(const std::filesystem::path& dir, std::span<const char* const> names);
// files_taken(dir, kRunDirectoryFiles).
std::string run_directory_taken(const std::filesystem::path& dir);

// Returns an error message, or empty on success. Unless `overwrite`, refuses (writing nothing)
// when run_directory_taken(dir).
std::string write_run_directory(const std::filesystem::path& dir, const Scenario& scenario,
                                const RunResult& result, bool overwrite);
std::string write_run_directory(const std::filesystem::path& dir, const RunConfig& config,
                                const RunResult& result, bool overwrite);

// A short text summary for the terminal.
std::string verdict_text(const RunConfig& config, const RunResult& result);
std::string verdict_text(const RunConfig& config, const RunResult& result,
                         const std::string& replay);

}  // namespace lockstep
