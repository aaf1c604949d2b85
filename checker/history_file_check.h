// The linearizability check of one history file, from its path to its verdict: read it, tell
// its format, load it, choose the model, check. What `lockstep check` does for each file it is
// given, whether one or a directory of them.
//
// Contract: never throws on bad input and never crashes; every way a file can be wrong ends in
// an `error` naming the file (and the line, when one is to blame). The model defaults from the
// format: porcupine-etcd -> cas-register, porcupine-kv -> kv, jsonl -> the header's meta.model,
// else the model whose op names the history uses (detect_model). A porcupine-kv file checked
// against the kv model is read straight into the model's operations
// (import_porcupine_kv_partitions), with the same operations and errors as by its History.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lockstep/checker/history_ops.h"
#include "lockstep/checker/linearizability.h"
#include "lockstep/checker/linearizability_check.h"

namespace lockstep {

// The budgets `lockstep check` gives each file unless told otherwise (its --time-budget and
// --memory-budget). The memory budget bounds the search's cache and interned states (what
// grows), per file: with --jobs N, up to N times that at once.
constexpr double kDefaultTimeBudgetSeconds = 60;
constexpr double kDefaultMemoryBudgetMiB = 2048;

// What every file of one `check` shares. An unset format or model is found per file.
struct HistoryFileOptions {
  std::optional<HistoryFormat> format;
  std::optional<ModelKind> model;
  Budget budget;
};

// Why a file has no verdict.
struct HistoryFileError {
  std::int64_t line = 0;  // 0: the file as a whole
  std::string message;    // without the path
  // The first non-blank line looks like no history format (or there is none: an empty file).
  // A directory's check skips such files instead of calling them bad (README.md, expected.tsv).
  bool not_a_history = false;
  // "PATH[:LINE]: MESSAGE", the form every error of `lockstep check` takes.
  std::string located(const std::string& path) const;
};

struct HistoryFileCheck {
  std::string path;
  std::optional<HistoryFormat> format;  // set once told
  std::optional<ModelKind> model;       // set once chosen
  std::optional<LinearizabilityResult> result;  // set unless error
  std::optional<HistoryFileError> error;
  std::size_t unchecked_ops = 0;  // stale-allowed reads left out (etcd model)
  double read_seconds = 0;        // reading and parsing the file (wall clock)
  double seconds = 0;             // everything, reading to verdict (wall clock)
};

HistoryFileCheck check_history_file(const std::string& path, const HistoryFileOptions& options);

}  // namespace lockstep
