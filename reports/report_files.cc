#include "lockstep/reports/report_files.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "lockstep/checker/input_file.h"
#include "lockstep/kv_json/json_fields.h"
#include "lockstep/reports/explain.h"
#include "lockstep/reports/html_report.h"

namespace lockstep::reports {

namespace {

std::string read_file(const std::filesystem::path& path, std::string& text) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec)
    return path.string() + ": no such file (expected a lockstep run directory with history.jsonl, "
                           "verdict.json and, but for a real etcd run, scenario.json)";
  return read_input_file(path, text);
}

// nlohmann reports a byte offset; people want a line.
std::string parse_json_file(const std::filesystem::path& path, nlohmann::json& out) {
  std::string text;
  if (auto err = read_file(path, text); !err.empty()) return err;
  // The report copies, dumps and walks these values recursively: a value nested 100,000 deep
  // would overflow the stack. No file lockstep writes nests anywhere near as deep as a history
  // line may (kMaxHistoryJsonDepth).
  struct TooDeep {};
  const nlohmann::json::parser_callback_t limit_depth = [](int depth, nlohmann::json::parse_event_t event,
                                                           nlohmann::json&) {
    using E = nlohmann::json::parse_event_t;
    if ((event == E::object_start || event == E::array_start) && depth >= kMaxHistoryJsonDepth)
      throw TooDeep{};
    return true;
  };
  try {
    out = nlohmann::json::parse(text, limit_depth);
  } catch (const TooDeep&) {
    return path.string() + ": expected a value nested less deeply (at most " +
           std::to_string(kMaxHistoryJsonDepth) + " levels of objects and arrays)";
  } catch (const nlohmann::json::parse_error& e) {
    std::size_t line = 1;
    for (std::size_t i = 0; i < e.byte && i < text.size(); ++i) line += text[i] == '\n';
    return path.string() + ":" + std::to_string(line) + ": not valid JSON (" + e.what() + ")";
  } catch (const nlohmann::json::exception& e) {  // out_of_range: a number too large (1e999)
    return path.string() + ": not valid JSON (" + e.what() + ")";
  }
  if (!out.is_object()) return path.string() + ":1: expected a JSON object";
  return {};
}

// What a field the report reads must hold. The explanations read them with nlohmann's typed
// getters (`args.value("mode", "")`), which throw on another type: each is checked here, once,
// so a wrong one is "FILE:LINE: args.mode: expected a string", not an abort.
enum class Want { string, integer, number, boolean };

const char* want_words(Want w) {
  switch (w) {
    case Want::string: return "a string";
    case Want::integer: return "an integer";
    case Want::number: return "a number";
    case Want::boolean: return "true or false";
  }
  return "?";
}

bool holds(const nlohmann::json& v, Want w) {
  switch (w) {
    case Want::string: return v.is_string();
    case Want::integer: return v.is_number_integer();
    case Want::number: return v.is_number();
    case Want::boolean: return v.is_boolean();
  }
  return false;
}

// A field of a history event the report reads, where it is (event type and op; "" for any,
// "completion" for ok, fail and info), and what it holds when present. Every field is optional.
struct EventField {
  const char* type;
  const char* op;
  const char* part;  // "args" or "result"
  const char* field;
  Want want;
};

constexpr EventField kEventFields[] = {
    // An operation's outcome (explain*.cc, causes.cc, liveness_checker.cc).
    {"completion", "", "result", "error", Want::string},
    {"completion", "", "result", "message", Want::string},
    {"invoke", "acquire", "args", "mode", Want::string},
    {"invoke", "acquire", "args", "reentrant", Want::boolean},
    // The calls a client made to etcd (run_facts.cc, lock_truth.cc).
    {"trace", "kv-send", "args", "call", Want::integer},
    {"trace", "kv-send", "args", "request", Want::string},
    {"trace", "kv-send", "args", "member", Want::string},
    {"trace", "kv-send", "args", "lease", Want::integer},
    {"trace", "kv-send", "args", "key", Want::string},
    {"trace", "kv-send", "args", "range_end", Want::string},
    {"trace", "kv-end", "args", "call", Want::integer},
    {"trace", "kv-end", "args", "outcome", Want::string},
    {"trace", "kv-end", "args", "error", Want::string},
    // What the simulator knows (causes.cc, explain*.cc, timeline_model.cc, lock_truth.cc).
    {"truth", "", "args", "key", Want::string},
    {"truth", "", "args", "client", Want::string},
    {"truth", "", "args", "reason", Want::string},
    {"truth", "", "args", "revision", Want::integer},
    {"truth", "", "args", "accepted", Want::boolean},
    {"truth", "key-put", "args", "value", Want::string},
    {"truth", "key-put", "args", "lease", Want::integer},
    {"truth", "key-delete", "args", "lease_expired", Want::boolean},
    // Injected faults (fault_bands.cc, explain*.cc, lock_truth.cc, mutex_checker.cc).
    {"fault", "", "args", "phase", Want::string},
    {"fault", "", "args", "symmetric", Want::boolean},
    {"fault", "", "args", "clock", Want::string},
    {"fault", "", "args", "skipped", Want::string},
    {"fault", "", "args", "amount_ms", Want::integer},
    {"fault", "", "args", "rate_ppm", Want::integer},
    {"fault", "", "args", "from_member", Want::integer},
    {"fault", "", "args", "to_member", Want::integer},
    {"fault", "", "args", "duration_ms", Want::number},
    {"fault", "", "args", "probability", Want::number},
};

bool applies(const EventField& f, const HistoryEvent& e) {
  const std::string_view type = f.type;
  const bool type_fits = type.empty() || (type == "completion" ? e.is_completion()
                                                               : type == event_kind_name(e.kind));
  return type_fits && (f.op[0] == '\0' || e.op == f.op);
}

// The first event field of the wrong type, as "FILE:LINE: args.mode: expected a string".
std::string validate_history_fields(const std::filesystem::path& path, const History& history,
                                    const std::vector<std::int64_t>& lines) {
  for (std::size_t i = 0; i < history.events.size(); ++i) {
    const HistoryEvent& e = history.events[i];
    for (const EventField& f : kEventFields) {
      if (!applies(f, e)) continue;
      const nlohmann::json& part = f.part[0] == 'a' ? e.args : e.result;
      const auto it = part.find(f.field);
      if (it == part.end() || holds(*it, f.want)) continue;
      const std::int64_t line = i < lines.size() ? lines[i] : static_cast<std::int64_t>(i) + 2;
      return path.string() + ":" + std::to_string(line) + ": " + f.part + "." + f.field +
             ": expected " + want_words(f.want) + " (" + event_kind_name(e.kind) + " " +
             escape_bytes(e.op) + ")";
    }
  }
  return {};
}

// The string fields the explanations read anywhere in a check's witness (a holding's
// `process` and `ended_by`, a write's `client`, ...).
void validate_witness(const nlohmann::json& j, const std::string& path) {
  static const char* const kStrings[] = {"process", "ended_by", "client", "lost_acknowledged_by"};
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string at = path + "." + it.key();
      for (const char* name : kStrings)
        if (it.key() == name && !it->is_string()) throw JsonFieldError{at, "expected a string"};
      validate_witness(*it, at);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i)
      validate_witness(j[i], path + "[" + std::to_string(i) + "]");
  }
}

// The fields of verdict.json the report reads (docs/verdict-format.md); others may be there.
std::string validate_verdict(const std::filesystem::path& path, const nlohmann::json& v) {
  const std::vector<std::string> statuses = {"ok", "violated", "unknown"};
  try {
    JsonFields verdict(v, "");
    verdict.one_of("format", {"lockstep-verdict"});
    for (JsonFields check : verdict.objects("checks")) {
      for (const char* name : {"name", "summary"}) check.string(name);
      check.one_of("status", statuses);
      for (const char* name : {"figures", "witness"})
        if (check.has_optional(name)) check.object(name);
      if (check.has_optional("witness"))
        validate_witness(check.get("witness", "an object"), check.path_of("witness"));
    }
    if (verdict.has_optional("algorithm")) verdict.string("algorithm");
    // A run on a real etcd names its backend (cli/run_real.cc): cluster kind, key prefix.
    if (verdict.has_optional("backend")) verdict.object("backend");
    for (const char* name : {"replay", "history_hash"})
      if (verdict.has_optional(name)) verdict.string(name);
    if (verdict.has_optional("verdict")) verdict.one_of("verdict", statuses);
  } catch (const JsonFieldError& e) {
    return e.line(path.string());
  }
  return {};
}

}  // namespace

std::string load_run_files(const std::filesystem::path& run_dir, RunFiles& out) {
  std::error_code ec;
  if (!std::filesystem::is_directory(run_dir, ec)) return run_dir.string() + ": not a directory";
  const auto history_path = run_dir / "history.jsonl";
  std::string text;
  if (auto err = read_file(history_path, text); !err.empty()) return err;
  std::istringstream in(text);
  HistoryParseResult parsed = parse_history_jsonl(in);
  if (parsed.error)
    return history_path.string() + ":" + std::to_string(parsed.error->line) + ": " + parsed.error->message;
  if (!parsed.history) return history_path.string() + ": no history";
  if (auto err = validate_history_fields(history_path, *parsed.history, parsed.event_lines);
      !err.empty())
    return err;
  out.history = std::move(*parsed.history);
  const auto verdict_path = run_dir / "verdict.json";
  if (auto err = parse_json_file(verdict_path, out.verdict); !err.empty()) return err;
  if (auto err = validate_verdict(verdict_path, out.verdict); !err.empty()) return err;
  // The verdict names the history it judged: a history from another run would be reported
  // under a verdict that is not about it.
  if (out.verdict.contains("history_hash")) {
    const std::string judged = out.verdict["history_hash"].get<std::string>();
    const std::string actual = hash_hex(history_hash(out.history));
    if (judged != actual)
      return verdict_path.string() + ": history_hash: " + judged + " is not the hash of " +
             history_path.string() + " (" + actual + "): the two files come from different runs";
  }
  // A real etcd run has no scenario.json: nothing replays it. Its verdict names the backend.
  const auto scenario_path = run_dir / "scenario.json";
  if (out.verdict.contains("backend") && !std::filesystem::exists(scenario_path, ec)) {
    out.scenario = nullptr;
    return {};
  }
  if (auto err = parse_json_file(scenario_path, out.scenario); !err.empty()) return err;
  return {};
}

std::string write_report(const std::filesystem::path& run_dir, const std::filesystem::path& out_file) {
  RunFiles files;
  if (auto err = load_run_files(run_dir, files); !err.empty()) return err;
  return write_report(files, out_file);
}

std::string write_report(const RunFiles& files, const std::filesystem::path& out_file) {
  const std::string html = render_report_html(files.history, files.verdict, files.scenario);
  std::error_code ec;
  if (out_file.has_parent_path()) std::filesystem::create_directories(out_file.parent_path(), ec);
  // Written beside the target under a fresh name (mkstemp: never a file that already exists,
  // such as a user's OUT.tmp), then renamed over it, so a reader never sees half a report.
  std::string tmp = out_file.string() + ".XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return "cannot write " + out_file.string() + ": " + std::strerror(errno);
  ::fchmod(fd, 0644);  // mkstemp's 0600 would make the report private; it is meant to be shared
  ::close(fd);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << html;
    if (!out.flush()) {
      std::filesystem::remove(tmp, ec);
      return "cannot write " + tmp;
    }
  }
  std::filesystem::rename(tmp, out_file, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    return "cannot write " + out_file.string() + ": " + why;
  }
  return {};
}

std::string report_text_summary(const History& history, const nlohmann::json& verdict) {
  std::ostringstream s;
  s << verdict.value("algorithm", std::string("run"));
  if (verdict.contains("seed")) s << " seed " << verdict["seed"].dump();
  const std::string v = verdict.value("verdict", std::string("?"));
  s << ": " << (v == "ok" ? "OK" : v == "violated" ? "VIOLATED" : v) << " (" << history.events.size()
    << " events)\n";
  if (verdict.contains("checks") && verdict["checks"].is_array())
    for (const auto& c : verdict["checks"])
      s << "  " << c.value("name", std::string("?")) << ": " << c.value("status", std::string("?")) << " - "
        << c.value("summary", std::string()) << "\n";
  for (const auto& x : explain_checks(history, verdict)) {
    s << "  why (" << x.check << "):\n";
    for (const auto& sentence : x.sentences) s << "    " << sentence << "\n";
  }
  if (verdict.contains("replay") && verdict["replay"].is_string())
    s << "  replay: " << verdict["replay"].get<std::string>() << "\n";
  return s.str();
}

}  // namespace lockstep::reports
