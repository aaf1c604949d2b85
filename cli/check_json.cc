#include "lockstep/cli/check_json.h"

namespace lockstep::cli {

namespace {

const char* outcome_key(FileOutcome o) {
  switch (o) {
    case FileOutcome::linearizable: return "linearizable";
    case FileOutcome::not_linearizable: return "not_linearizable";
    case FileOutcome::unknown: return "unknown";
    case FileOutcome::bad_input: return "bad_input";
    case FileOutcome::skipped: return "skipped";
  }
  return "?";
}

nlohmann::json witness_json(const LinearizabilityWitness& w) {
  nlohmann::json prefix = nlohmann::json::array();
  for (const auto& op : w.prefix) prefix.push_back(escape_bytes(op));
  nlohmann::json cannot = nlohmann::json::array();
  for (const auto& c : w.cannot_place)
    cannot.push_back({{"op", escape_bytes(c.op)}, {"illegal_here", c.illegal_here}});
  return {{"partition", escape_bytes(w.partition)},
          {"prefix", std::move(prefix)},
          {"state_after_prefix", escape_bytes(w.state_after_prefix)},
          {"cannot_place", std::move(cannot)},
          {"blocking", escape_bytes(w.blocking)}};
}

}  // namespace

nlohmann::json file_check_json(const HistoryFileCheck& c, FileOutcome outcome) {
  nlohmann::json j = {{"path", c.path},
                      {"verdict", outcome_key(outcome)},
                      {"exit_code", outcome_exit_code(outcome)},
                      {"seconds", c.seconds}};
  if (c.format) j["format"] = history_format_name(*c.format);
  if (c.model) j["model"] = model_kind_name(*c.model);
  if (c.error) {
    j["error"] = {{"line", c.error->line}, {"message", c.error->message}};
    return j;
  }
  const LinearizabilityResult& r = *c.result;
  j["operations"] = r.operations;
  j["indeterminate"] = r.indeterminate;
  j["unchecked_ops"] = c.unchecked_ops;
  j["partitions"] = r.partitions;
  j["states_explored"] = r.states_explored;
  j["peak_memory_bytes"] = r.peak_memory_bytes;
  j["check_seconds"] = r.seconds;
  if (r.verdict == LinVerdict::unknown) j["unknown_reason"] = r.unknown_reason;
  if (r.witness) j["witness"] = witness_json(*r.witness);
  return j;
}

nlohmann::json summary_json(const CheckSummary& s) {
  return {{"files", s.files()},
          {"linearizable", s.count(FileOutcome::linearizable)},
          {"not_linearizable", s.count(FileOutcome::not_linearizable)},
          {"unknown", s.count(FileOutcome::unknown)},
          {"bad_input", s.count(FileOutcome::bad_input)},
          {"skipped", s.count(FileOutcome::skipped)},
          {"file_seconds", s.file_seconds},
          {"wall_seconds", s.wall_seconds},
          {"jobs", s.jobs},
          {"exit_code", s.exit_code}};
}

}  // namespace lockstep::cli
