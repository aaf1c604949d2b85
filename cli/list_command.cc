#include <fmt/core.h>

#include "lockstep/algorithms/registry.h"
#include "lockstep/cli/commands.h"
#include "lockstep/sim/faults.h"

namespace lockstep::cli {

void add_list_command(CLI::App& app, CommandSet& commands) {
  auto* cmd = app.add_subcommand("list", "List the lock algorithms and the fault catalogue");
  cmd->callback([&commands] {
    commands.action = [] {
      fmt::print("Algorithms:\n");
      for (const auto& a : algorithm_catalogue()) {
        fmt::print("  {:<22} {}\n", a.name, a.summary);
        for (const auto& o : a.options)
          fmt::print("  {:<22}   option {}={} ({}; {} to {})\n", "", o.name, o.default_value,
                     o.description, o.min_value, o.max_value);
      }
      fmt::print("\nFaults (for --faults):\n");
      for (const auto& f : sim::fault_catalogue()) fmt::print("  {:<22} {}\n", f.name, f.description);
      return kExitOk;
    };
  });
}

}  // namespace lockstep::cli
