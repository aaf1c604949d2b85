// lockstep: the command-line program.
//
// Exit codes: 0 every check holds, 1 a check is violated, 2 bad usage or input, 3 unknown
// (a checker ran out of budget).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "lockstep/cli/commands.h"
#ifdef LOCKSTEP_HUGE_PAGE_HEAP
#include "lockstep/cli/huge_page_heap.h"
#endif

int main(int argc, char** argv) {
#ifdef LOCKSTEP_HUGE_PAGE_HEAP
  // Before anything grows the heap: see huge_page_heap.h (a run's first touches of memory).
  lockstep::cli::install_huge_page_heap();
#endif
  CLI::App app{"lockstep: deterministic simulation and verification of distributed locks"};
  app.require_subcommand(1);
  lockstep::cli::CommandSet commands;
  lockstep::cli::register_commands(app, commands);
  // CLI11 answers an unknown first word with "A subcommand is required", which does not say
  // what was wrong: name the word and the commands there are.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands({})) {
      known = known || sub->check_name(argv[1]);
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "lockstep: unknown command \"" << argv[1] << "\" (commands: " << names
                << "; see lockstep --help)\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return commands.run();
}
