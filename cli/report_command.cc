// `lockstep report DIR [-o FILE]`: (re)generates the HTML report of a run directory;
// `lockstep report DIR --explanation-json` prints its explanation as JSON instead.
#include <iostream>

#include "lockstep/cli/commands.h"
#include "lockstep/harness/scenario.h"
#include "lockstep/reports/explain.h"
#include "lockstep/reports/report_files.h"

namespace lockstep::cli {

namespace {

struct ReportArgs {
  std::string run_dir;
  std::string out_file;  // default: DIR/report.html
  bool force = false;
  bool explanation_json = false;  // print the explanation as JSON instead of writing HTML
};

// The explanation of each violated check, for machines: its sentences, the span each names,
// how many form the causal chain, and the cause found (reports/explain.h).
nlohmann::json explanation_json(const reports::RunFiles& files) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& x : reports::explain_checks(files.history, files.verdict)) {
    nlohmann::json spans = nlohmann::json::array();
    for (const auto& s : x.spans)
      spans.push_back(s ? nlohmann::json{{"from_ns", s->from_ns}, {"to_ns", s->to_ns}} : nlohmann::json());
    out.push_back({{"check", x.check}, {"sentences", x.sentences}, {"spans", spans},
                   {"chain_length", x.chain_length}, {"cause", x.cause}});
  }
  return {{"explanations", out}};
}

// Why `out` may not be written, or empty. The directory's own report.html (however `out`
// spells it) is derived from its files, and rewriting it is what `report DIR` is for. Any other
// existing file is the user's and needs --force; the run's own files are never written over.
std::string refuse_output(const std::filesystem::path& dir, const std::filesystem::path& out,
                          bool force) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(out, ec);
  auto names = [&](const char* name) {
    std::error_code ec2;
    return !ec && target == fs::weakly_canonical(dir / name, ec2) && !ec2;
  };
  for (const char* name : {"history.jsonl", "verdict.json", "scenario.json"})
    if (names(name)) return out.string() + " is the run's own " + name + "; choose another -o file";
  if (fs::is_directory(out, ec)) return out.string() + " is a directory; -o names the report file";
  if (!names("report.html") && !force && fs::exists(out, ec))
    return out.string() + " already exists; choose another -o file or pass --force to overwrite";
  return {};
}

// The run's files, validated: load_run_files checks the history and the verdict; the scenario
// is read as `replay` reads it (every field, its type and range, no key twice), since the
// report shows it and a run directory's scenario is what replays the run.
std::string load(const std::filesystem::path& dir, reports::RunFiles& files) {
  if (auto err = reports::load_run_files(dir, files); !err.empty()) return err;
  if (files.scenario.is_null()) return {};  // a real etcd run: its verdict names the backend
  Scenario scenario;
  return load_scenario_file(dir / "scenario.json", scenario);
}

int report_files(const ReportArgs& args) {
  const std::filesystem::path dir(args.run_dir);
  if (args.explanation_json) {
    reports::RunFiles files;
    if (auto err = load(dir, files); !err.empty()) {
      std::cerr << "lockstep report: " << err << "\n";
      return kExitBadInput;
    }
    std::cout << explanation_json(files).dump(2) << "\n";
    return kExitOk;
  }
  const std::filesystem::path out = args.out_file.empty() ? dir / "report.html" : std::filesystem::path(args.out_file);
  if (auto err = refuse_output(dir, out, args.force); !err.empty()) {
    std::cerr << "lockstep report: " << err << "\n";
    return kExitBadInput;
  }
  reports::RunFiles files;
  if (auto err = load(dir, files); !err.empty()) {
    std::cerr << "lockstep report: " << err << "\n";
    return kExitBadInput;
  }
  if (auto err = reports::write_report(files, out); !err.empty()) {
    std::cerr << "lockstep report: " << err << "\n";
    return kExitBadInput;
  }
  std::cout << reports::report_text_summary(files.history, files.verdict) << "  wrote " << out.string() << "\n";
  return kExitOk;
}

int report(const ReportArgs& args) {
  // load_run_files checks the types of the fields the report reads. Should a field it does not
  // know of still have the wrong type for a reader, nlohmann throws: that is still the run's
  // files' fault, said as such (exit 2), never an abort.
  try {
    return report_files(args);
  } catch (const nlohmann::json::exception& e) {
    const std::filesystem::path dir(args.run_dir);
    std::cerr << "lockstep report: " << (dir / "history.jsonl").string() << " or "
              << (dir / "verdict.json").string() << ": a field the report reads has the wrong type ("
              << e.what() << ")\n";
    return kExitBadInput;
  }
}

}  // namespace

void add_report_command(CLI::App& app, CommandSet& commands) {
  auto args = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand("report", "Write the HTML report of a run directory (history.jsonl, "
                                           "verdict.json, scenario.json)");
  cmd->add_option("DIR", args->run_dir, "The run directory (lockstep run --out DIR)")->required();
  cmd->add_option("-o,--output", args->out_file,
                  "Where to write the report (default: DIR/report.html, rewritten); an existing "
                  "file is refused without --force")
      ->check(non_empty());
  cmd->add_flag("--force", args->force, "Overwrite an existing -o file");
  cmd->add_flag("--explanation-json", args->explanation_json,
                "Print the explanation of each violated check as JSON (sentences, causal chain, "
                "cause) instead of writing the report")
      ->excludes("--output")
      ->excludes("--force");
  cmd->callback([&commands, args] { commands.action = [args] { return report(*args); }; });
}

}  // namespace lockstep::cli
