#include "checker/check_cli.h"

#include "checker/cli_numbers.h"

namespace lockstep {

void add_check_options(CLI::App& app, CheckOptions& options) {
  app.description(
      "Check a history for linearizability. Exit 0 linearizable, 1 not, 2 bad input, "
      "3 unknown (a budget ran out).");
  app.add_option("file", options.file, "the history file")->required();
  app.add_option("--format", options.format, "jsonl, porcupine-etcd or porcupine-kv (detected)")
      ->check(CLI::IsMember({"jsonl", "porcupine-etcd", "porcupine-kv"}));
  app.add_option("--model", options.model,
                 "mutex, fenced-mutex, cas-register, kv or etcd (default: from the format)")
      ->check(CLI::IsMember({"mutex", "fenced-mutex", "cas-register", "kv", "etcd"}));
  app.add_option("--time-budget", options.time_budget_seconds,
                 "seconds before the answer is unknown (0: none)")
      ->capture_default_str()
      ->check(finite_between(0, 1e7));
  app.add_option("--memory-budget", options.memory_budget_mb,
                 "MiB of search state before the answer is unknown (0: none)")
      ->capture_default_str()
      ->check(finite_between(0, 1048576));
}

}  // namespace lockstep
