// `lockstep report DIR [-o FILE]`: (re)generates the HTML report of a run directory.
#include <iostream>

#include "cli/commands.h"
#include "reports/report_files.h"

namespace lockstep::cli {

namespace {

struct ReportArgs {
  std::string run_dir;
  std::string out_file;  // default: DIR/report.html
};

int report(const ReportArgs& args) {
  const std::filesystem::path dir(args.run_dir);
  const std::filesystem::path out = args.out_file.empty() ? dir / "report.html" : std::filesystem::path(args.out_file);
  RunFiles files;
  if (auto err = load_run_files(dir, files); !err.empty()) {
    std::cerr << "lockstep report: " << err << "\n";
    return kExitBadInput;
  }
  if (auto err = write_report(files, out); !err.empty()) {
    std::cerr << "lockstep report: " << err << "\n";
    return kExitBadInput;
  }
  std::cout << report_text_summary(files.history, files.verdict) << "  wrote " << out.string() << "\n";
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& app, CommandSet& commands) {
  auto args = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand("report", "Write the HTML report of a run directory (history.jsonl, "
                                           "verdict.json, scenario.json)");
  cmd->add_option("DIR", args->run_dir, "The run directory (lockstep run --out DIR)")->required();
  cmd->add_option("-o,--output", args->out_file, "Where to write the report (default: DIR/report.html)");
  cmd->callback([&commands, args] { commands.action = [args] { return report(*args); }; });
}

}  // namespace lockstep::cli
