// `lockstep check --json`: the JSON of one file's check and of the summary.
//
// A file: {"path", "verdict" ("linearizable", "not_linearizable", "unknown", "bad_input",
// "skipped"), "exit_code", "seconds" (reading to verdict), and when it was judged "format",
// "model", "operations", "indeterminate", "partitions", "states_explored",
// "peak_memory_bytes", "check_seconds", "unchecked_ops"; "unknown_reason" when unknown;
// "witness" {"partition", "prefix": [op...], "state_after_prefix", "cannot_place":
// [{"op", "illegal_here"}], "blocking"} when not linearizable; "error" {"line" (0: the whole
// file), "message"} when bad input or skipped}.
// The summary: {"files", "linearizable", "not_linearizable", "unknown", "bad_input",
// "skipped", "file_seconds", "wall_seconds", "jobs", "exit_code"}.
// Operation and state texts are escaped as in the text output (escape_bytes): plain ASCII.
#pragma once

#include <nlohmann/json.hpp>

#include "lockstep/cli/check_many.h"
#include "lockstep/cli/check_summary.h"

namespace lockstep::cli {

nlohmann::json file_check_json(const HistoryFileCheck& c, FileOutcome outcome);
nlohmann::json summary_json(const CheckSummary& s);

}  // namespace lockstep::cli
