#include <iostream>

#include "checker/check_cli.h"
#include "cli/commands.h"

namespace lockstep::cli {

void add_check_command(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<CheckOptions>();
  auto* cmd = app.add_subcommand(
      "check", "Check a history for linearizability (lockstep JSONL, Jepsen etcd or Porcupine kv)");
  add_check_options(*cmd, *options);
  cmd->callback([&commands, options] {
    commands.action = [options] { return run_check_command(*options, std::cout, std::cerr); };
  });
}

}  // namespace lockstep::cli
