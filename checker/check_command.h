// `lockstep check FILE`: judge a recorded history for linearizability.
//
// Formats: jsonl (a lockstep history, docs/history-format.md), porcupine-etcd (Jepsen etcd
// logs), porcupine-kv (EDN op maps); detected from the first non-blank line when not given.
// The model defaults from the format: porcupine-etcd -> cas-register, porcupine-kv -> kv,
// jsonl -> the header's meta.model, else the model whose op names the history uses.
//
// Exit codes: 0 linearizable, 1 not linearizable, 2 bad input (unreadable, empty, truncated,
// malformed: the message names the line and what was expected) or bad options, 3 unknown (a
// budget ran out). Prints the verdict, the figures and, on a violation, the witness to `out`;
// errors to `err`.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "checker/history.h"
#include "checker/history_ops.h"
#include "checker/linearizability.h"

namespace lockstep {

struct CheckOptions {
  std::string file;
  std::string format;  // "", "jsonl", "porcupine-etcd", "porcupine-kv"
  std::string model;   // "", "mutex", "fenced-mutex", "cas-register", "kv", "etcd"
  double time_budget_seconds = 60;
  double memory_budget_mb = 2048;
};

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

int run_check_command(const CheckOptions& options, std::ostream& out, std::ostream& err);

}  // namespace lockstep
