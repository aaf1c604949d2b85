#include "lockstep/checker/history.h"

#include <cstdio>
#include <map>
#include <sstream>

namespace lockstep {

namespace {
constexpr const char* kFormatName = "lockstep-history";

struct KindName {
  EventKind kind;
  const char* name;
};
constexpr KindName kKindNames[] = {
    {EventKind::invoke, "invoke"}, {EventKind::ok, "ok"},       {EventKind::fail, "fail"},
    {EventKind::info, "info"},     {EventKind::fault, "fault"}, {EventKind::trace, "trace"},
    {EventKind::truth, "truth"},
};
}  // namespace

const char* event_kind_name(EventKind kind) {
  for (const auto& k : kKindNames)
    if (k.kind == kind) return k.name;
  return "?";
}

std::optional<EventKind> parse_event_kind(std::string_view name) {
  for (const auto& k : kKindNames)
    if (name == k.name) return k.kind;
  return std::nullopt;
}

nlohmann::json event_to_json(const HistoryEvent& e) {
  // An ordered_json would keep field order, but nlohmann::json sorts keys, which is just as
  // deterministic and keeps every line's layout identical.
  nlohmann::json j;
  j["index"] = e.index;
  j["process"] = e.process;
  j["type"] = event_kind_name(e.kind);
  j["op"] = e.op;
  if (!e.args.empty()) j["args"] = e.args;
  if (!e.result.empty()) j["result"] = e.result;
  j["true_ns"] = e.true_ns;
  if (e.local_ns) j["local_ns"] = *e.local_ns;
  return j;
}

std::string history_event_line(const HistoryEvent& e) {
  return event_to_json(e).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string history_header_line(const HistoryHeader& h) {
  nlohmann::json j;
  j["format"] = kFormatName;
  j["version"] = h.version;
  j["meta"] = h.meta;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void write_history_jsonl(std::ostream& out, const History& history) {
  out << history_header_line(history.header) << '\n';
  for (const auto& e : history.events) out << history_event_line(e) << '\n';
}

namespace {

HistoryParseResult fail_at(std::int64_t line, std::string message) {
  HistoryParseResult r;
  r.error = HistoryParseError{line, std::move(message)};
  return r;
}

// Returns an error message, or empty on success.
std::string parse_event(const nlohmann::json& j, HistoryEvent& e) {
  if (!j.is_object()) return "expected a JSON object (one event per line)";
  auto need = [&](const char* field, nlohmann::json::value_t type, const char* type_name,
                  const nlohmann::json*& out) -> std::string {
    auto it = j.find(field);
    if (it == j.end()) return std::string("missing field \"") + field + "\"";
    bool matches = it->type() == type ||
                   (type == nlohmann::json::value_t::number_integer &&
                    it->type() == nlohmann::json::value_t::number_unsigned);
    if (!matches) return std::string("field \"") + field + "\" must be " + type_name;
    out = &*it;
    return {};
  };
  const nlohmann::json* f = nullptr;
  if (auto err = need("index", nlohmann::json::value_t::number_integer, "an integer", f);
      !err.empty())
    return err;
  e.index = f->get<std::int64_t>();
  if (auto err = need("process", nlohmann::json::value_t::string, "a string", f); !err.empty())
    return err;
  e.process = f->get<std::string>();
  if (e.process.empty()) return "field \"process\" must not be empty";
  if (auto err = need("type", nlohmann::json::value_t::string, "a string", f); !err.empty())
    return err;
  auto kind = parse_event_kind(f->get<std::string>());
  if (!kind)
    return "field \"type\" must be one of invoke, ok, fail, info, fault, trace, truth (got \"" +
           f->get<std::string>() + "\")";
  e.kind = *kind;
  if (auto err = need("op", nlohmann::json::value_t::string, "a string", f); !err.empty())
    return err;
  e.op = f->get<std::string>();
  if (auto err = need("true_ns", nlohmann::json::value_t::number_integer, "an integer", f);
      !err.empty())
    return err;
  e.true_ns = f->get<std::int64_t>();
  if (auto it = j.find("local_ns"); it != j.end()) {
    if (!it->is_number_integer()) return "field \"local_ns\" must be an integer";
    e.local_ns = it->get<std::int64_t>();
  }
  for (const char* field : {"args", "result"}) {
    auto it = j.find(field);
    if (it == j.end()) continue;
    if (!it->is_object()) return std::string("field \"") + field + "\" must be an object";
    (field[0] == 'a' ? e.args : e.result) = *it;
  }
  return {};
}

}  // namespace

HistoryParseResult parse_history_jsonl(std::istream& in) {
  History history;
  std::string line;
  std::int64_t line_no = 0;
  bool saw_header = false;
  std::vector<std::int64_t> event_lines;
  // Per process: its outstanding invoke, if any.
  struct OpenInvoke {
    std::int64_t line;
    std::string op;
  };
  std::map<std::string, OpenInvoke> open_invokes;
  std::int64_t previous_true_ns = INT64_MIN;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded())
      return fail_at(line_no, "not valid JSON (a truncated line?): expected one JSON object");
    if (!saw_header) {
      saw_header = true;
      if (!j.is_object() || !j.contains("format") || j["format"] != kFormatName)
        return fail_at(line_no, std::string("expected the header line {\"format\": \"") +
                                    kFormatName + "\", \"version\": 1, ...}");
      if (!j.contains("version") || !j["version"].is_number_integer() || j["version"] != 1)
        return fail_at(line_no, "unsupported history version: expected \"version\": 1");
      history.header.version = 1;
      if (j.contains("meta")) {
        if (!j["meta"].is_object()) return fail_at(line_no, "field \"meta\" must be an object");
        history.header.meta = j["meta"];
      }
      continue;
    }
    HistoryEvent e;
    if (auto err = parse_event(j, e); !err.empty()) return fail_at(line_no, err);
    if (e.index != static_cast<std::int64_t>(history.events.size()))
      return fail_at(line_no, "field \"index\" must be " + std::to_string(history.events.size()) +
                                  " (events are numbered from 0 in order)");
    if (e.true_ns < previous_true_ns)
      return fail_at(line_no, "field \"true_ns\" goes backwards: events must be in true-time order");
    previous_true_ns = e.true_ns;
    if (e.kind == EventKind::invoke) {
      if (auto it = open_invokes.find(e.process); it != open_invokes.end())
        return fail_at(line_no, "process \"" + e.process +
                                    "\" invokes while its operation from line " +
                                    std::to_string(it->second.line) + " is still open");
      open_invokes[e.process] = {line_no, e.op};
    } else if (e.is_completion()) {
      auto it = open_invokes.find(e.process);
      if (it == open_invokes.end())
        return fail_at(line_no, "a completion (" + std::string(event_kind_name(e.kind)) +
                                    ") for process \"" + e.process +
                                    "\" with no open invoke");
      if (it->second.op != e.op)
        return fail_at(line_no, "a completion (" + std::string(event_kind_name(e.kind)) +
                                    ") of \"" + escape_bytes(e.op) + "\" for process \"" +
                                    e.process + "\" whose open invoke (line " +
                                    std::to_string(it->second.line) + ") is \"" +
                                    escape_bytes(it->second.op) +
                                    "\": a completion repeats its invoke's op");
      open_invokes.erase(it);
    }
    event_lines.push_back(line_no);
    history.events.push_back(std::move(e));
  }
  if (!saw_header) return fail_at(0, "empty file: expected a lockstep history header line");
  HistoryParseResult r;
  r.history = std::move(history);
  r.event_lines = std::move(event_lines);
  return r;
}

std::uint64_t fnv1a_64(std::uint64_t hash, std::string_view text) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// Line by line, as write_history_jsonl writes them, without holding the whole text.
std::uint64_t history_hash(const History& history) {
  std::uint64_t h = fnv1a_64(kFnv1a64Start, history_header_line(history.header));
  h = fnv1a_64(h, "\n");
  for (const auto& e : history.events) {
    h = fnv1a_64(h, history_event_line(e));
    h = fnv1a_64(h, "\n");
  }
  return h;
}

std::string hash_hex(std::uint64_t hash) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

}  // namespace lockstep
