#include "lockstep/checker/linearizability_check.h"

#include <istream>

#include "lockstep/checker/porcupine_import.h"

namespace lockstep {

namespace {
constexpr std::pair<HistoryFormat, const char*> kFormatNames[] = {
    {HistoryFormat::jsonl, "jsonl"},
    {HistoryFormat::porcupine_etcd, "porcupine-etcd"},
    {HistoryFormat::porcupine_kv, "porcupine-kv"},
};
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
  // A model named by --model or meta.model that reads none of the history's operations would
  // judge nothing and call it linearizable: a wrong model, or the wrong file.
  if (parts.model_invokes == 0) {
    run.error = HistoryParseError{
        0, std::string("the history has no operation the ") + model_kind_name(model) +
               " model reads (" + model_ops_words(model) + "): nothing to judge (is the model right?)"};
    return run;
  }
  run.ignored_events = parts.ignored_events;
  run.unchecked_ops = parts.unchecked_ops;
  run.result = check_linearizability(parts.partitions, budget);
  return run;
}

}  // namespace lockstep
