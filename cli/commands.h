// The subcommands of `lockstep`, each defined in its own file and registered here.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "lockstep/cli/option_checks.h"  // finite_between, unsigned_integer, non_empty

namespace lockstep::cli {

constexpr int kExitOk = 0;
constexpr int kExitViolated = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitUnknown = 3;

// The action of whichever subcommand was chosen.
struct CommandSet {
  std::function<int()> action;
  int run() const { return action ? action() : kExitBadInput; }
};

void register_commands(CLI::App& app, CommandSet& commands);

void add_list_command(CLI::App& app, CommandSet& commands);
void add_run_command(CLI::App& app, CommandSet& commands);
void add_demo_command(CLI::App& app, CommandSet& commands);
void add_check_command(CLI::App& app, CommandSet& commands);
void add_replay_command(CLI::App& app, CommandSet& commands);
void add_report_command(CLI::App& app, CommandSet& commands);
void add_explore_command(CLI::App& app, CommandSet& commands);
void add_merge_command(CLI::App& app, CommandSet& commands);
void add_shrink_command(CLI::App& app, CommandSet& commands);
void add_bench_command(CLI::App& app, CommandSet& commands);

}  // namespace lockstep::cli
