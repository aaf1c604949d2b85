// `lockstep check FILE... | DIR...`: judge recorded histories for linearizability.
//
// The model defaults from the format: porcupine-etcd -> cas-register, porcupine-kv -> kv,
// jsonl -> the header's meta.model, else the model whose op names the history uses.
//
// One file: prints the verdict, the figures and, on a violation, the witness to `out`.
// Several files, or a directory (every file below it; those that are not histories are
// skipped): checks them in one process on --jobs threads and prints one line per file (verdict,
// time, path) in path order and a summary (check_many.h). --json prints one JSON document
// instead, for one file or many (check_json.h). Errors go to `err`, each naming the file, the
// line and what was expected.
//
// Exit codes: 0 linearizable, 1 not linearizable, 2 bad input (unreadable, empty, truncated,
// malformed) or bad options, 3 unknown (a budget ran out). For many files, the worst of them,
// in the order 1 (a violation), 2 (a file that could not be judged), 3, 0.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

#include "lockstep/checker/history_file_check.h"

namespace lockstep::cli {

struct CheckOptions {
  std::vector<std::string> files;  // files and directories
  std::string format;  // "", "jsonl", "porcupine-etcd", "porcupine-kv"
  std::string model;   // "", "mutex", "fenced-mutex", "cas-register", "kv", "etcd"
  double time_budget_seconds = kDefaultTimeBudgetSeconds;  // per file
  double memory_budget_mb = kDefaultMemoryBudgetMiB;       // per file
  unsigned jobs = 0;                // threads for many files; 0: one per core
  bool json = false;
};

// The options of the `check` subcommand, on `app`.
void add_check_options(CLI::App& app, CheckOptions& options);

int run_check_command(const CheckOptions& options, std::ostream& out, std::ostream& err);

}  // namespace lockstep::cli
