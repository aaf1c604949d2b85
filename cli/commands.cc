#include "lockstep/cli/commands.h"

namespace lockstep::cli {

void register_commands(CLI::App& app, CommandSet& commands) {
  add_list_command(app, commands);
  add_run_command(app, commands);
  add_demo_command(app, commands);
  add_check_command(app, commands);
  add_replay_command(app, commands);
  add_report_command(app, commands);
  add_explore_command(app, commands);
  add_merge_command(app, commands);
  add_shrink_command(app, commands);
  add_bench_command(app, commands);
}

}  // namespace lockstep::cli
