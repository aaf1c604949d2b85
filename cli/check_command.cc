#include "lockstep/cli/check_command.h"

#include <iomanip>
#include <iostream>
#include <sstream>

#include "lockstep/checker/input_file.h"
#include "lockstep/checker/linearizability_check.h"
#include "lockstep/cli/commands.h"

namespace lockstep::cli {

namespace {

void print_witness(std::ostream& out, const LinearizabilityWitness& w) {
  out << "witness";
  if (!w.partition.empty()) out << " (partition \"" << escape_bytes(w.partition) << "\")";
  out << ":\n  longest linearizable prefix (" << w.prefix.size() << " operations):\n";
  for (std::size_t i = 0; i < w.prefix.size(); ++i)
    out << "    " << (i + 1) << ". " << escape_bytes(w.prefix[i]) << "\n";
  out << "  state after the prefix: " << escape_bytes(w.state_after_prefix) << "\n";
  out << "  cannot be placed next:\n";
  for (const auto& c : w.cannot_place)
    out << "    " << escape_bytes(c.op)
        << (c.illegal_here ? "  [illegal in this state]"
                           : "  [legal here, but no order of the rest works after it]")
        << "\n";
  if (!w.blocking.empty())
    out << "  returned before it could be placed: " << escape_bytes(w.blocking) << "\n";
}

}  // namespace

int run_check_command(const CheckOptions& options, std::ostream& out, std::ostream& err) {
  const std::string& file = options.file;
  auto bad = [&](std::int64_t line, const std::string& message) {
    err << "lockstep check: " << file;
    if (line > 0) err << ":" << line;
    err << ": " << message << "\n";
    return kExitBadInput;
  };
  std::optional<HistoryFormat> format;
  if (!options.format.empty()) {
    format = parse_history_format(options.format);
    if (!format)
      return bad(0, "unknown --format \"" + options.format +
                        "\": expected jsonl, porcupine-etcd or porcupine-kv");
  }
  std::optional<ModelKind> model;
  if (!options.model.empty()) {
    model = parse_model_kind(options.model);
    if (!model)
      return bad(0, "unknown --model \"" + options.model +
                        "\": expected mutex, fenced-mutex, cas-register, kv or etcd");
  }
  if (options.time_budget_seconds < 0 || options.memory_budget_mb < 0)
    return bad(0, "budgets must not be negative");

  std::string content;
  if (auto read_error = read_input_file(file, content); !read_error.empty()) {
    err << "lockstep check: " << read_error << "\n";
    return kExitBadInput;
  }
  if (content.find_first_not_of(" \t\r\n") == std::string::npos)
    return bad(0, "empty file: expected a history");
  if (!format) {
    std::istringstream lines(content);
    std::string first;
    while (std::getline(lines, first) && first.find_first_not_of(" \t\r") == std::string::npos) {
    }
    format = detect_history_format(first);
    if (!format)
      return bad(0, "cannot tell the format from the first line: expected a lockstep history "
                    "header, a Jepsen log line or an EDN op map (or pass --format)");
  }
  std::istringstream body(content);
  LoadResult loaded = load_history(body, *format);
  if (loaded.error) return bad(loaded.error->line, loaded.error->message);
  // A log cut short mid-line is a truncated file, even if the cut happens to parse ("write 1"
  // from "write 12"). JSON Lines needs no such rule: a cut line is not valid JSON, or is whole.
  if (*format != HistoryFormat::jsonl && content.back() != '\n')
    return bad(0, "the last line has no newline: the file looks truncated");

  if (!model) {
    if (*format == HistoryFormat::porcupine_etcd) {
      model = ModelKind::cas_register;
    } else if (*format == HistoryFormat::porcupine_kv) {
      model = ModelKind::kv;
    } else {
      std::string why;
      model = detect_model(loaded.loaded->history, why);
      if (!model) return bad(0, "cannot tell which model to check against: " + why +
                                    " (pass --model)");
    }
  }

  Budget budget;
  budget.time_seconds = options.time_budget_seconds;
  budget.memory_bytes = static_cast<std::size_t>(options.memory_budget_mb * 1024 * 1024);
  CheckRun run = check_history(*loaded.loaded, *model, budget);
  if (run.error) return bad(run.error->line, run.error->message);
  const LinearizabilityResult& r = *run.result;

  out << "verdict: " << verdict_name(r.verdict);
  if (r.verdict == LinVerdict::unknown) out << " (" << r.unknown_reason << ")";
  out << "\n";
  out << "format: " << history_format_name(*format) << ", model: " << model_kind_name(*model)
      << "\n";
  out << "operations: " << r.operations << " (" << r.indeterminate << " indeterminate";
  if (run.unchecked_ops) out << ", " << run.unchecked_ops << " stale-allowed reads not checked";
  out << "), partitions: " << r.partitions << ", states explored: " << r.states_explored
      << ", time: " << std::fixed << std::setprecision(4) << r.seconds << " s"
      << ", peak memory: " << std::setprecision(1) << r.peak_memory_bytes / 1048576.0 << " MiB\n";
  if (r.operations == 0)
    out << "note: the history has no operation the " << model_kind_name(*model)
        << " model reads\n";
  if (r.witness) print_witness(out, *r.witness);
  switch (r.verdict) {
    case LinVerdict::linearizable: return kExitOk;
    case LinVerdict::not_linearizable: return kExitViolated;
    case LinVerdict::unknown: return kExitUnknown;
  }
  return kExitUnknown;
}

void add_check_options(CLI::App& app, CheckOptions& options) {
  app.description(
      "Check a history for linearizability. Exit 0 linearizable, 1 not, 2 bad input, "
      "3 unknown (a budget ran out).");
  app.add_option("file", options.file, "the history file")->required();
  app.add_option("--format", options.format, "jsonl, porcupine-etcd or porcupine-kv (detected)")
      ->check(CLI::IsMember({"jsonl", "porcupine-etcd", "porcupine-kv"}));
  app.add_option("--model", options.model,
                 "mutex, fenced-mutex, cas-register, kv or etcd (default: from the format)")
      ->check(CLI::IsMember({"mutex", "fenced-mutex", "cas-register", "kv", "etcd"}));
  app.add_option("--time-budget", options.time_budget_seconds,
                 "seconds before the answer is unknown (0: none)")
      ->capture_default_str()
      ->check(finite_between(0, 1e7));
  app.add_option("--memory-budget", options.memory_budget_mb,
                 "MiB of search state before the answer is unknown (0: none)")
      ->capture_default_str()
      ->check(finite_between(0, 1048576));
}

void add_check_command(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<CheckOptions>();
  auto* cmd = app.add_subcommand(
      "check", "Check a history for linearizability (lockstep JSONL, Jepsen etcd or Porcupine kv)");
  add_check_options(*cmd, *options);
  cmd->callback([&commands, options] {
    commands.action = [options] { return run_check_command(*options, std::cout, std::cerr); };
  });
}

}  // namespace lockstep::cli
