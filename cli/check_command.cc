#include "lockstep/cli/check_command.h"

#include <iomanip>
#include <iostream>
#include <thread>

#include "lockstep/checker/history_batch.h"
#include "lockstep/cli/check_json.h"
#include "lockstep/cli/check_many.h"
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

// One file named alone: the verdict with every figure and the witness.
int check_one(const std::string& path, const HistoryFileOptions& options, std::ostream& out,
              std::ostream& err) {
  HistoryFileCheck c = check_history_file(path, options);
  if (c.error) {
    err << "lockstep check: " << c.error->located(path) << "\n";
    return kExitBadInput;
  }
  const LinearizabilityResult& r = *c.result;
  out << "verdict: " << verdict_name(r.verdict);
  if (r.verdict == LinVerdict::unknown) out << " (" << r.unknown_reason << ")";
  out << "\n";
  out << "format: " << history_format_name(*c.format) << ", model: " << model_kind_name(*c.model)
      << "\n";
  out << "operations: " << r.operations << " (" << r.indeterminate << " indeterminate";
  if (c.unchecked_ops) out << ", " << c.unchecked_ops << " stale-allowed reads not checked";
  out << "), partitions: " << r.partitions << ", states explored: " << r.states_explored
      << ", time: " << std::fixed << std::setprecision(4) << r.seconds << " s"
      << ", peak memory: " << std::setprecision(1) << r.peak_memory_bytes / 1048576.0 << " MiB\n";
  if (r.operations == 0)
    out << "note: none of the history's " << model_kind_name(*c.model)
        << " operations is checked (each failed, or is a read allowed to be stale)\n";
  if (r.witness) print_witness(out, *r.witness);
  return file_exit_code(c);
}

}  // namespace

int run_check_command(const CheckOptions& options, std::ostream& out, std::ostream& err) {
  auto bad_option = [&](const std::string& message) {
    err << "lockstep check: " << message << "\n";
    return kExitBadInput;
  };
  if (options.files.empty()) return bad_option("no history file or directory given");
  HistoryFileOptions file_options;
  if (!options.format.empty()) {
    file_options.format = parse_history_format(options.format);
    if (!file_options.format)
      return bad_option("unknown --format \"" + options.format +
                        "\": expected jsonl, porcupine-etcd or porcupine-kv");
  }
  if (!options.model.empty()) {
    file_options.model = parse_model_kind(options.model);
    if (!file_options.model)
      return bad_option("unknown --model \"" + options.model +
                        "\": expected mutex, fenced-mutex, cas-register, kv or etcd");
  }
  if (options.time_budget_seconds < 0 || options.memory_budget_mb < 0)
    return bad_option("budgets must not be negative");
  file_options.budget.time_seconds = options.time_budget_seconds;
  file_options.budget.memory_bytes =
      static_cast<std::size_t>(options.memory_budget_mb * 1024 * 1024);

  std::vector<HistoryInput> inputs = expand_history_paths(options.files);
  const bool one_file =
      options.files.size() == 1 && inputs.size() == 1 && !inputs[0].found_in_directory;
  if (one_file && inputs[0].error) {
    err << "lockstep check: " << inputs[0].path << ": " << *inputs[0].error << "\n";
    return kExitBadInput;
  }
  unsigned jobs = options.jobs;
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  // The cores go to the files; a file alone gets them for its partitions.
  file_options.budget.threads = inputs.size() == 1 ? jobs : 1;
  if (one_file && !options.json) return check_one(inputs[0].path, file_options, out, err);
  return check_many(inputs, file_options, jobs, options.json, out, err);
}

void add_check_options(CLI::App& app, CheckOptions& options) {
  app.description(
      "Check histories for linearizability: one file, several, or every file below a directory. "
      "Exit 0 linearizable, 1 not, 2 bad input, 3 unknown (a budget ran out); for many files "
      "the worst of 1, 2, 3, 0.");
  app.add_option("files", options.files, "history files, or directories of them")->required();
  app.add_option("--format", options.format, "jsonl, porcupine-etcd or porcupine-kv (detected)")
      ->check(CLI::IsMember({"jsonl", "porcupine-etcd", "porcupine-kv"}));
  app.add_option("--model", options.model,
                 "mutex, fenced-mutex, cas-register, kv or etcd (default: from the format)")
      ->check(CLI::IsMember({"mutex", "fenced-mutex", "cas-register", "kv", "etcd"}));
  app.add_option("--time-budget", options.time_budget_seconds,
                 "seconds per file before its answer is unknown (0: none)")
      ->capture_default_str()
      ->check(finite_between(0, 1e7));
  app.add_option("--memory-budget", options.memory_budget_mb,
                 "MiB of search state per file before its answer is unknown (0: none)")
      ->capture_default_str()
      ->check(finite_between(0, 1048576));
  app.add_option("--jobs", options.jobs,
                 "files checked at once, or a single file's partitions (default: all cores)")
      ->check(CLI::Range(1, 1024));
  app.add_flag("--json", options.json, "print one JSON document (per-file results and a summary)");
}

void add_check_command(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<CheckOptions>();
  auto* cmd = app.add_subcommand(
      "check",
      "Check histories for linearizability (lockstep JSONL, Jepsen etcd or Porcupine kv; files "
      "or directories)");
  add_check_options(*cmd, *options);
  cmd->callback([&commands, options] {
    commands.action = [options] { return run_check_command(*options, std::cout, std::cerr); };
  });
}

}  // namespace lockstep::cli
