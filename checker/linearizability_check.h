// A history read in any format it comes in, and its whole linearizability check: what
// `lockstep check` does between reading the file and printing the verdict.
//
// Formats: jsonl (a lockstep history, docs/history-format.md), porcupine-etcd (Jepsen etcd
// logs), porcupine-kv (EDN op maps); detect_history_format tells them apart by the first
// non-blank line.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "lockstep/checker/history.h"
#include "lockstep/checker/history_ops.h"
#include "lockstep/checker/linearizability.h"

namespace lockstep {

enum class HistoryFormat { jsonl, porcupine_etcd, porcupine_kv };
const char* history_format_name(HistoryFormat f);
std::optional<HistoryFormat> parse_history_format(const std::string& name);
// From the first non-blank line; nullopt when it looks like none of them.
std::optional<HistoryFormat> detect_history_format(const std::string& first_line);

// A history read in any format, with each event's input line.
struct LoadedHistory {
  History history;
  std::vector<std::int64_t> event_lines;
};
struct LoadResult {
  std::optional<LoadedHistory> loaded;
  std::optional<HistoryParseError> error;
};
LoadResult load_history(std::istream& in, HistoryFormat format);

// The whole check of a loaded history (what run_check_command does after reading the file).
struct CheckRun {
  std::optional<LinearizabilityResult> result;
  std::optional<HistoryParseError> error;  // the history does not fit the model
  std::size_t ignored_events = 0;
  std::size_t unchecked_ops = 0;
};
CheckRun check_history(const LoadedHistory& h, ModelKind model, const Budget& budget);

}  // namespace lockstep
