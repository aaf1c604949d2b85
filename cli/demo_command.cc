#include <fmt/core.h>

#include <iostream>

#include "cli/commands.h"
#include "harness/run_files.h"
#include "harness/sim_runner.h"

namespace lockstep::cli {

// The README's main job. For now: one run of every algorithm of the catalogue on the
// simulated cluster, printing each verdict.
void add_demo_command(CLI::App& app, CommandSet& commands) {
  auto seed = std::make_shared<std::uint64_t>(1);
  auto* cmd = app.add_subcommand("demo", "Run each algorithm of the catalogue on the simulated cluster");
  cmd->add_option("--seed", *seed, "Seed")->capture_default_str();
  cmd->callback([&commands, seed] {
    commands.action = [seed] {
      int violated = 0;
      for (const auto& info : algorithm_catalogue()) {
        RunConfig config = default_run_config();
        config.algorithm = info.name;
        config.seed = *seed;
        config.workload.clients = 3;
        if (auto err = validate_run_config(config); !err.empty()) {
          std::cerr << "lockstep demo: " << err << "\n";
          return kExitBadInput;
        }
        RunResult result = run_simulation(config);
        std::cout << verdict_text(config, result);
        violated += result.all_ok() ? 0 : 1;
      }
      std::cout << violated << " of " << algorithm_catalogue().size()
                << " algorithms violated a check with seed " << *seed << "\n";
      return kExitOk;
    };
  });
}

}  // namespace lockstep::cli
