// The files a run writes into its directory: history.jsonl, verdict.json and scenario.json.
//
// Contract: write_run_directory refuses to overwrite a file that already exists unless
// `overwrite` is set, so a user's earlier results are never lost silently. Errors come back
// as one message naming the file.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/run_config.h"
#include "harness/sim_runner.h"

namespace lockstep {

nlohmann::json run_config_to_json(const RunConfig& config);
nlohmann::json verdict_to_json(const RunConfig& config, const RunResult& result);
std::string replay_command(const RunConfig& config);

// Returns an error message, or empty on success.
std::string write_run_directory(const std::filesystem::path& dir, const RunConfig& config,
                                const RunResult& result, bool overwrite);

// A short text summary for the terminal.
std::string verdict_text(const RunConfig& config, const RunResult& result);

}  // namespace lockstep
