// The CLI11 options of `lockstep check`; the cli/ app calls
//   auto* check = app.add_subcommand("check", "...");
//   add_check_options(*check, options);
//   check->callback([&] { exit_code = run_check_command(options, std::cout, std::cerr); });
#pragma once

#include <CLI/CLI.hpp>

#include "checker/check_command.h"

namespace lockstep {

void add_check_options(CLI::App& app, CheckOptions& options);

}  // namespace lockstep
