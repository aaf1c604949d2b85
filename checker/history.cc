#include "lockstep/checker/history.h"

#include <cstdio>
#include <map>
#include <set>
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

// Thrown by the line parser's callback: a value nested too deeply, a key given twice.
struct TooDeep {};
struct DuplicateKey {
  std::string key;
};

// One line of JSON, or an error: not JSON, a value nested more than kMaxHistoryJsonDepth
// deep (the readers and nlohmann's copies recurse once per level: a line of 100,000 `[` would
// overflow the stack), or a key given twice in one object (nlohmann keeps the last; the line
// says two things, and the scenario reader refuses it too).
std::string parse_line(const std::string& line, nlohmann::json& out) {
  // Keys seen in each open object; an object that ends with fewer members than keys had one
  // twice. Counting keeps the common case cheap: no set of names per object.
  std::vector<std::size_t> keys;
  const nlohmann::json::parser_callback_t check = [&](int depth, nlohmann::json::parse_event_t event,
                                                      nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::object_start:
        if (depth >= kMaxHistoryJsonDepth) throw TooDeep{};
        keys.push_back(0);
        break;
      case E::array_start:
        if (depth >= kMaxHistoryJsonDepth) throw TooDeep{};
        break;
      case E::key: ++keys.back(); break;
      case E::object_end:
        if (parsed.size() != keys.back()) throw DuplicateKey{};
        keys.pop_back();
        break;
      default: break;
    }
    return true;
  };
  try {
    out = nlohmann::json::parse(line, check);
  } catch (const nlohmann::json::exception&) {  // parse_error, or out_of_range for 1e999
    return "not valid JSON (a truncated line?): expected one JSON object";
  } catch (const TooDeep&) {
    return "expected a value nested less deeply (at most " + std::to_string(kMaxHistoryJsonDepth) +
           " levels of objects and arrays)";
  } catch (const DuplicateKey&) {
    return "the key \"" + escape_bytes(first_duplicate_json_key(line)) +
           "\" appears twice in one object (which one is meant?)";
  }
  return {};
}

// An integer above 2^63-1 (read as unsigned) would wrap around when read as int64.
bool in_int64_range(const nlohmann::json& v) {
  return !v.is_number_unsigned() ||
         v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX);
}
std::string out_of_range(const char* field) {
  return std::string("field \"") + field + "\" is out of range: expected an integer at most " +
         std::to_string(INT64_MAX);
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
    if (!in_int64_range(*it)) return out_of_range(field);
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
    if (!in_int64_range(*it)) return out_of_range("local_ns");
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

std::string first_duplicate_json_key(const std::string& text) {
  std::vector<std::set<std::string>> keys;
  const nlohmann::json::parser_callback_t find = [&](int, nlohmann::json::parse_event_t event,
                                                     nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) keys.emplace_back();
    if (event == E::object_end) keys.pop_back();
    if (event == E::key && !keys.back().insert(parsed.get<std::string>()).second)
      throw DuplicateKey{parsed.get<std::string>()};
    return true;
  };
  try {
    const nlohmann::json parsed = nlohmann::json::parse(text, find);
  } catch (const DuplicateKey& d) {
    return d.key;
  } catch (const nlohmann::json::exception&) {
  }
  return {};
}


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
    nlohmann::json j;
    if (auto err = parse_line(line, j); !err.empty()) return fail_at(line_no, err);
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
        // meta.model chooses the model `check` uses; one that is not a name chooses nothing.
        if (auto m = j["meta"].find("model"); m != j["meta"].end() && !m->is_string())
          return fail_at(line_no, "field \"meta.model\" must be a string naming a model (mutex, "
                                  "fenced-mutex, cas-register, kv, etcd)");
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
