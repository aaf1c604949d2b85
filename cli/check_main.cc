// lockstep: the command-line program's front. `lockstep check` runs here; for every other
// command this process becomes lockstep-engine (main.cc), the program built beside it, with
// the same arguments (execv: same process, same exit code and signals, same output).
//
// Why two programs: the engine links the simulator, gRPC, protobuf, some forty abseil
// libraries and tcmalloc. Loading and relocating those and running their initialisers took
// 12-14 ms of every start, most of the time of checking a small history; this front links
// the checker alone and starts in about 2 ms. Commands that simulate or talk to etcd run for
// seconds, so the extra exec costs them nothing that shows.
//
// Exit codes: those of the command; 2 when the engine cannot be started.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "lockstep/cli/commands.h"

namespace {

// `lockstep check ...`, parsed as the engine parses it, so that options, help and errors read
// the same whichever program runs the command.
int run_check(int argc, char** argv) {
  CLI::App app{"lockstep: deterministic simulation and verification of distributed locks"};
  app.require_subcommand(1);
  lockstep::cli::CommandSet commands;
  lockstep::cli::add_check_command(app, commands);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : lockstep::cli::kExitBadInput;
  }
  return commands.run();
}

// The engine is "lockstep-engine" in this program's own directory (/proc/self/exe follows
// symbolic links to it, so a link to lockstep in PATH works).
std::filesystem::path engine_path(const char* argv0) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) self = argv0;
  return self.parent_path() / "lockstep-engine";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "check") == 0) return run_check(argc, argv);
  const std::filesystem::path engine = engine_path(argv[0]);
  ::execv(engine.c_str(), argv);
  // Only reached when the exec failed.
  std::cerr << "lockstep: cannot start " << engine.string() << ": " << std::strerror(errno)
            << " (it is built beside lockstep, with the lockstep target)\n";
  return lockstep::cli::kExitBadInput;
}
