// `lockstep check FILE`: judge a recorded history for linearizability.
//
// The model defaults from the format: porcupine-etcd -> cas-register, porcupine-kv -> kv,
// jsonl -> the header's meta.model, else the model whose op names the history uses.
//
// Exit codes: 0 linearizable, 1 not linearizable, 2 bad input (unreadable, empty, truncated,
// malformed: the message names the line and what was expected) or bad options, 3 unknown (a
// budget ran out). Prints the verdict, the figures and, on a violation, the witness to `out`;
// errors to `err`.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

namespace lockstep::cli {

struct CheckOptions {
  std::string file;
  std::string format;  // "", "jsonl", "porcupine-etcd", "porcupine-kv"
  std::string model;   // "", "mutex", "fenced-mutex", "cas-register", "kv", "etcd"
  double time_budget_seconds = 60;
  double memory_budget_mb = 2048;
};

// The options of the `check` subcommand, on `app`.
void add_check_options(CLI::App& app, CheckOptions& options);

int run_check_command(const CheckOptions& options, std::ostream& out, std::ostream& err);

}  // namespace lockstep::cli
