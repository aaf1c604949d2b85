// The checks of a run: which checkers run on a history, with which options, by RunConfig.
// Shared by the simulated and the real runner, so both judge histories the same way.
#pragma once

#include <string>
#include <vector>

#include "lockstep/checker/check_result.h"
#include "lockstep/checker/history.h"
#include "lockstep/harness/run_config.h"

namespace lockstep {

// The names of every check, in the order they run and appear in verdict.json.
const std::vector<std::string>& all_check_names();

// The key the guarded resource keeps its counter under.
std::string guarded_data_key(const RunConfig& config);

// Runs the checks config.checks names (all when empty). Returns an error for an unknown name
// through validate_checks().
std::vector<CheckResult> run_checks(const RunConfig& config, const History& history);
std::string validate_checks(const std::vector<std::string>& checks);

}  // namespace lockstep
