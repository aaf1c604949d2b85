#include "lockstep/checker/history_file_check.h"

#include <chrono>
#include <sstream>

#include "lockstep/checker/input_file.h"
#include "lockstep/checker/porcupine_import.h"

namespace lockstep {

std::string HistoryFileError::located(const std::string& path) const {
  std::string s = path;
  if (line > 0) s += ":" + std::to_string(line);
  return s + ": " + message;
}

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string first_non_blank_line(const std::string& content) {
  std::size_t pos = 0;
  while (pos < content.size()) {
    std::size_t end = content.find('\n', pos);
    if (end == std::string::npos) end = content.size();
    std::string line = content.substr(pos, end - pos);
    if (line.find_first_not_of(" \t\r") != std::string::npos) return line;
    pos = end + 1;
  }
  return {};
}

// Reads, loads and checks; fills `c` and returns when a step fails.
void run(HistoryFileCheck& c, const HistoryFileOptions& options, Clock::time_point t0) {
  auto fail = [&](std::int64_t line, std::string message, bool not_a_history = false) {
    c.error = HistoryFileError{line, std::move(message), not_a_history};
  };
  std::string content;
  if (std::string read_error = read_input_file(c.path, content); !read_error.empty()) {
    // read_input_file's messages start with the path; keep the rest.
    const std::string prefix = c.path + ": ";
    fail(0, read_error.rfind(prefix, 0) == 0 ? read_error.substr(prefix.size()) : read_error);
    return;
  }
  if (content.find_first_not_of(" \t\r\n") == std::string::npos)
    return fail(0, "empty file: expected a history", true);
  c.format = options.format;
  if (!c.format) {
    c.format = detect_history_format(first_non_blank_line(content));
    if (!c.format)
      return fail(0,
                  "cannot tell the format from the first line: expected a lockstep history "
                  "header, a Jepsen log line or an EDN op map (or pass --format)",
                  true);
  }
  // A log cut short mid-line is a truncated file, even if the cut happens to parse ("write 1"
  // from "write 12"). JSON Lines needs no such rule: a cut line is not valid JSON, or is whole.
  const bool cut = *c.format != HistoryFormat::jsonl && content.back() != '\n';
  const char* const cut_message = "the last line has no newline: the file looks truncated";
  if (*c.format == HistoryFormat::porcupine_kv &&
      (!options.model || *options.model == ModelKind::kv)) {
    // Straight from the text to the kv model's operations (no History in between).
    PartitionsResult parts = import_porcupine_kv_partitions(content);
    if (parts.error) return fail(parts.error->line, parts.error->message);
    if (cut) return fail(0, cut_message);
    c.model = ModelKind::kv;
    c.read_seconds = since(t0);
    c.result = check_linearizability(parts.partitions, options.budget);
    return;
  }
  std::istringstream body(std::move(content));
  LoadResult loaded = load_history(body, *c.format);
  if (loaded.error) return fail(loaded.error->line, loaded.error->message);
  if (cut) return fail(0, cut_message);
  c.model = options.model;
  if (!c.model) {
    if (*c.format == HistoryFormat::porcupine_etcd) {
      c.model = ModelKind::cas_register;
    } else if (*c.format == HistoryFormat::porcupine_kv) {
      c.model = ModelKind::kv;
    } else {
      std::string why;
      c.model = detect_model(loaded.loaded->history, why);
      if (!c.model) return fail(0, "cannot tell which model to check against: " + why + " (pass --model)");
    }
  }
  c.read_seconds = since(t0);
  CheckRun checked = check_history(*loaded.loaded, *c.model, options.budget);
  if (checked.error) return fail(checked.error->line, checked.error->message);
  c.unchecked_ops = checked.unchecked_ops;
  c.result = std::move(checked.result);
}

}  // namespace

HistoryFileCheck check_history_file(const std::string& path, const HistoryFileOptions& options) {
  HistoryFileCheck c;
  c.path = path;
  const auto t0 = Clock::now();
  run(c, options, t0);
  c.seconds = since(t0);
  if (c.error) c.read_seconds = c.seconds;
  return c;
}

}  // namespace lockstep
