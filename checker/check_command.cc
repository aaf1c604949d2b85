#include "checker/check_command.h"

#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "checker/input_file.h"
#include "checker/porcupine_import.h"

namespace lockstep {

namespace {
constexpr std::pair<HistoryFormat, const char*> kFormatNames[] = {
    {HistoryFormat::jsonl, "jsonl"},
    {HistoryFormat::porcupine_etcd, "porcupine-etcd"},
    {HistoryFormat::porcupine_kv, "porcupine-kv"},
};
constexpr int kExitLinearizable = 0, kExitNotLinearizable = 1, kExitBadInput = 2,
              kExitUnknown = 3;
}  // namespace

const char* history_format_name(HistoryFormat f) {
  for (const auto& [k, name] : kFormatNames)
    if (k == f) return name;
  return "?";
}

std::optional<HistoryFormat> parse_history_format(const std::string& name) {
  for (const auto& [k, n] : kFormatNames)
    if (name == n) return k;
  return std::nullopt;
}

std::optional<HistoryFormat> detect_history_format(const std::string& first_line) {
  auto start = first_line.find_first_not_of(" \t\r");
  if (start == std::string::npos) return std::nullopt;
  if (first_line.compare(start, 2, "{\"") == 0) return HistoryFormat::jsonl;
  if (first_line.compare(start, 2, "{:") == 0) return HistoryFormat::porcupine_kv;
  if (first_line.find("jepsen.util") != std::string::npos) return HistoryFormat::porcupine_etcd;
  return std::nullopt;
}

LoadResult load_history(std::istream& in, HistoryFormat format) {
  LoadResult r;
  if (format == HistoryFormat::jsonl) {
    auto parsed = parse_history_jsonl(in);
    if (parsed.error) {
      r.error = parsed.error;
      return r;
    }
    // Errors found past parsing (a bad argument of an operation) name the event's line.
    r.loaded = LoadedHistory{std::move(*parsed.history), std::move(parsed.event_lines)};
    return r;
  }
  ImportResult imp = format == HistoryFormat::porcupine_etcd ? import_jepsen_etcd_log(in)
                                                             : import_porcupine_kv(in);
  if (imp.error) {
    r.error = imp.error;
    return r;
  }
  r.loaded = LoadedHistory{std::move(*imp.history), std::move(imp.event_lines)};
  return r;
}

CheckRun check_history(const LoadedHistory& h, ModelKind model, const Budget& budget) {
  CheckRun run;
  PartitionsResult parts = history_partitions(h.history, model, h.event_lines);
  if (parts.error) {
    run.error = parts.error;
    return run;
  }
  run.ignored_events = parts.ignored_events;
  run.unchecked_ops = parts.unchecked_ops;
  run.result = check_linearizability(parts.partitions, budget);
  return run;
}

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
    case LinVerdict::linearizable: return kExitLinearizable;
    case LinVerdict::not_linearizable: return kExitNotLinearizable;
    case LinVerdict::unknown: return kExitUnknown;
  }
  return kExitUnknown;
}

}  // namespace lockstep
