// lockstep: the command-line program.
//
// Exit codes: 0 every check holds, 1 a check is violated, 2 bad usage or input, 3 unknown
// (a checker ran out of budget).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"lockstep: deterministic simulation and verification of distributed locks"};
  app.require_subcommand(1);
  lockstep::cli::CommandSet commands;
  lockstep::cli::register_commands(app, commands);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return commands.run();
}
