#include "lockstep/checker/porcupine_import.h"

#include <cctype>
#include <charconv>
#include <map>
#include <sstream>

namespace lockstep {

namespace {

ImportResult fail_at(std::int64_t line, std::string message) {
  ImportResult r;
  r.error = HistoryParseError{line, std::move(message)};
  return r;
}

bool parse_int(const std::string& s, std::int64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

// Pairs completions with invokes per process, as History requires, and numbers events.
struct Builder {
  History history;
  std::vector<std::int64_t> lines;
  std::map<std::string, std::size_t> open;  // process -> index of its open invoke

  // Returns an error message, or empty.
  std::string add(std::int64_t line, HistoryEvent e) {
    e.index = static_cast<std::int64_t>(history.events.size());
    e.true_ns = line;
    if (e.kind == EventKind::invoke) {
      if (auto it = open.find(e.process); it != open.end())
        return "process " + e.process + " invokes :" + e.op + " while its :" +
               history.events[it->second].op + " from line " +
               std::to_string(lines[it->second]) + " is still open";
      open[e.process] = history.events.size();
    } else {
      auto it = open.find(e.process);
      if (it == open.end())
        return "a completion for process " + e.process + " with no open :invoke";
      const HistoryEvent& inv = history.events[it->second];
      if (inv.op != e.op)
        return "process " + e.process + " completes :" + e.op + " but invoked :" + inv.op +
               " (line " + std::to_string(lines[it->second]) + ")";
      open.erase(it);
    }
    history.events.push_back(std::move(e));
    lines.push_back(line);
    return {};
  }

  ImportResult finish(const char* format) {
    ImportResult r;
    if (history.events.empty())
      return fail_at(0, std::string("empty file: expected ") + format + " events");
    history.header.meta = {{"imported_from", format}};
    r.history = std::move(history);
    r.event_lines = std::move(lines);
    return r;
  }

  const HistoryEvent* open_invoke(const std::string& process) const {
    auto it = open.find(process);
    return it == open.end() ? nullptr : &history.events[it->second];
  }
};

std::optional<EventKind> jepsen_type(const std::string& word) {
  if (word == ":invoke") return EventKind::invoke;
  if (word == ":ok") return EventKind::ok;
  if (word == ":fail") return EventKind::fail;
  if (word == ":info") return EventKind::info;
  return std::nullopt;
}

}  // namespace

// ---- Jepsen etcd logs ----

ImportResult import_jepsen_etcd_log(std::istream& in) {
  Builder b;
  std::string line;
  std::int64_t line_no = 0;
  constexpr const char* kShape =
      "expected a Jepsen log line \"INFO  jepsen.util - PROCESS :TYPE :F VALUE\"";
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.empty()) continue;
    if (w.size() < 7 || w[1] != "jepsen.util" || w[2] != "-") return fail_at(line_no, kShape);
    HistoryEvent e;
    std::int64_t process = 0;
    if (!parse_int(w[3], process) || process < 0)
      return fail_at(line_no, "expected a process number, got \"" + w[3] + "\"");
    e.process = w[3];
    auto kind = jepsen_type(w[4]);
    if (!kind)
      return fail_at(line_no, "expected :invoke, :ok, :fail or :info, got \"" + w[4] + "\"");
    e.kind = *kind;
    if (w[5] != ":read" && w[5] != ":write" && w[5] != ":cas")
      return fail_at(line_no, "expected :read, :write or :cas, got \"" + w[5] + "\"");
    e.op = w[5].substr(1);
    std::string value = w[6];
    for (std::size_t i = 7; i < w.size(); ++i) value += " " + w[i];

    std::int64_t n = 0, m = 0;
    auto cas_pair = [&](const std::string& v) {
      // "[E N]"
      if (v.size() < 5 || v.front() != '[' || v.back() != ']') return false;
      std::istringstream p(v.substr(1, v.size() - 2));
      std::string a, c, extra;
      p >> a >> c;
      return !(p >> extra) && parse_int(a, n) && parse_int(c, m);
    };
    const bool timed_out = value == ":timed-out";
    if (e.kind == EventKind::invoke) {
      if (e.op == "read") {
        if (value != "nil") return fail_at(line_no, "expected nil after :invoke :read");
      } else if (e.op == "write") {
        if (!parse_int(value, n)) return fail_at(line_no, "expected an integer to write");
        e.args = {{"value", n}};
      } else {
        if (!cas_pair(value)) return fail_at(line_no, "expected [EXPECTED NEW] after :cas");
        e.args = {{"expected", n}, {"new", m}};
      }
    } else if (e.kind == EventKind::info || (e.kind == EventKind::fail && timed_out)) {
      // Indeterminate, or (a failed read) of no effect; the value is only a reason.
    } else {
      const HistoryEvent* inv = b.open_invoke(e.process);
      if (e.op == "read") {
        if (e.kind == EventKind::fail)
          return fail_at(line_no, "expected :timed-out after :fail :read");
        if (value == "nil") {
          e.result = {{"value", nullptr}};
        } else if (parse_int(value, n)) {
          e.result = {{"value", n}};
        } else {
          return fail_at(line_no, "expected nil or an integer read");
        }
      } else if (e.op == "write") {
        if (!parse_int(value, n)) return fail_at(line_no, "expected the integer written");
        if (inv && inv->op == "write" && inv->args.value("value", n) != n)
          return fail_at(line_no, "expected the value invoked on line " +
                                      std::to_string(inv->true_ns) + " (" +
                                      inv->args["value"].dump() + ")");
      } else {
        if (!cas_pair(value)) return fail_at(line_no, "expected [EXPECTED NEW] after :cas");
        if (inv && inv->op == "cas" &&
            (inv->args.value("expected", n) != n || inv->args.value("new", m) != m))
          return fail_at(line_no, "expected the cas arguments invoked on line " +
                                      std::to_string(inv->true_ns));
        // A failed cas answered "compare failed": an observation, see the header.
        e.result = {{"succeeded", e.kind == EventKind::ok}};
        e.kind = EventKind::ok;
      }
    }
    if (auto err = b.add(line_no, std::move(e)); !err.empty()) return fail_at(line_no, err);
  }
  return b.finish("Jepsen etcd log");
}

// ---- EDN op maps ----

namespace {

// The EDN values an op map holds here: nil, booleans, integers, strings, keywords, vectors.
struct EdnValue {
  enum class Type { nil, boolean, integer, string, keyword, vector } type = Type::nil;
  bool b = false;
  std::int64_t i = 0;
  std::string s;  // string contents or keyword name (without ':')
  std::vector<EdnValue> items;
};

class EdnReader {
 public:
  explicit EdnReader(const std::string& text) : t_(text) {}

  // Reads one map of keyword keys; returns an error message or empty.
  std::string read_map(std::map<std::string, EdnValue>& out) {
    skip();
    if (!eat('{')) return "expected an EDN op map starting with '{'";
    for (;;) {
      skip();
      if (eat('}')) break;
      if (pos_ >= t_.size()) return "expected '}' before the end of the line (truncated?)";
      EdnValue key;
      if (auto err = read_value(key, 0); !err.empty()) return err;
      if (key.type != EdnValue::Type::keyword) return "expected a keyword key such as :process";
      skip();
      if (pos_ >= t_.size() || t_[pos_] == '}')
        return "expected a value after :" + key.s;
      EdnValue value;
      if (auto err = read_value(value, 0); !err.empty()) return err;
      if (!out.emplace(key.s, std::move(value)).second) return "duplicate key :" + key.s;
    }
    skip();
    if (pos_ != t_.size()) return "expected nothing after the closing '}'";
    return {};
  }

 private:
  void skip() {
    while (pos_ < t_.size() && (std::isspace(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == ','))
      ++pos_;
  }
  bool eat(char c) {
    if (pos_ < t_.size() && t_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  static bool symbol_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
           c == '/' || c == '?' || c == '!' || c == '*' || c == '+';
  }
  std::string word() {
    std::size_t start = pos_;
    while (pos_ < t_.size() && symbol_char(t_[pos_])) ++pos_;
    return t_.substr(start, pos_ - start);
  }

  std::string read_value(EdnValue& v, int depth) {
    if (depth > 16) return "expected a value nested less deeply";
    skip();
    if (pos_ >= t_.size()) return "expected a value before the end of the line (truncated?)";
    char c = t_[pos_];
    if (c == '"') {
      ++pos_;
      v.type = EdnValue::Type::string;
      for (;;) {
        if (pos_ >= t_.size()) return "expected a closing '\"' (truncated string?)";
        char d = t_[pos_++];
        if (d == '"') return {};
        if (d == '\\') {
          if (pos_ >= t_.size()) return "expected an escaped character after '\\'";
          char x = t_[pos_++];
          switch (x) {
            case 'n': v.s.push_back('\n'); break;
            case 't': v.s.push_back('\t'); break;
            case 'r': v.s.push_back('\r'); break;
            case '"': case '\\': v.s.push_back(x); break;
            default: return std::string("expected a known string escape, got \\") + x;
          }
        } else {
          v.s.push_back(d);
        }
      }
    }
    if (c == ':') {
      ++pos_;
      v.type = EdnValue::Type::keyword;
      v.s = word();
      if (v.s.empty()) return "expected a keyword name after ':'";
      return {};
    }
    if (c == '[') {
      ++pos_;
      v.type = EdnValue::Type::vector;
      for (;;) {
        skip();
        if (eat(']')) return {};
        v.items.emplace_back();
        if (auto err = read_value(v.items.back(), depth + 1); !err.empty()) return err;
      }
    }
    std::string w = word();
    if (w.empty()) return std::string("expected a value, got '") + c + "'";
    if (w == "nil") return {};
    if (w == "true" || w == "false") {
      v.type = EdnValue::Type::boolean;
      v.b = w == "true";
      return {};
    }
    if (parse_int(w, v.i)) {
      v.type = EdnValue::Type::integer;
      return {};
    }
    return "expected nil, true, false, a number, a string, a keyword or a vector, got \"" + w +
           "\"";
  }

  const std::string& t_;
  std::size_t pos_ = 0;
};

}  // namespace

ImportResult import_porcupine_kv(std::istream& in) {
  Builder b;
  std::string line;
  std::int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::map<std::string, EdnValue> m;
    if (auto err = EdnReader(line).read_map(m); !err.empty()) return fail_at(line_no, err);
    auto get = [&](const char* k) -> const EdnValue* {
      auto it = m.find(k);
      return it == m.end() ? nullptr : &it->second;
    };
    using T = EdnValue::Type;
    const EdnValue* process = get("process");
    const EdnValue* type = get("type");
    const EdnValue* f = get("f");
    const EdnValue* key = get("key");
    const EdnValue* value = get("value");
    if (!process || process->type != T::integer)
      return fail_at(line_no, "expected :process with an integer");
    if (!type || type->type != T::keyword)
      return fail_at(line_no, "expected :type with :invoke, :ok, :fail or :info");
    if (!f || f->type != T::keyword || (f->s != "get" && f->s != "put" && f->s != "append"))
      return fail_at(line_no, "expected :f with :get, :put or :append");
    if (!key || (key->type != T::string && key->type != T::integer))
      return fail_at(line_no, "expected :key with a string");
    HistoryEvent e;
    e.process = std::to_string(process->i);
    auto kind = jepsen_type(":" + type->s);
    if (!kind) return fail_at(line_no, "expected :type with :invoke, :ok, :fail or :info");
    e.kind = *kind;
    e.op = f->s;
    std::string k = key->type == T::string ? key->s : std::to_string(key->i);
    bool value_is_string = value && value->type == T::string;
    bool value_is_nil = !value || value->type == T::nil;
    if (!value_is_string && !value_is_nil)
      return fail_at(line_no, "expected :value with a string or nil");
    std::string v = value_is_string ? value->s : std::string();
    if (e.kind == EventKind::invoke) {
      e.args = {{"key", escape_bytes(k)}};
      if (e.op != "get") {
        if (!value_is_string) return fail_at(line_no, "expected :value with the string to " + e.op);
        e.args["value"] = escape_bytes(v);
      }
    } else {
      const HistoryEvent* inv = b.open_invoke(e.process);
      if (inv && inv->args.value("key", std::string()) != escape_bytes(k))
        return fail_at(line_no, "expected the :key invoked on line " +
                                    std::to_string(inv->true_ns));
      if (e.kind == EventKind::ok) {
        if (e.op == "get") {
          e.result = {{"value", escape_bytes(v)}};  // nil reads as "" (a missing key)
        } else if (inv && inv->op == e.op && inv->args.value("value", std::string()) != escape_bytes(v)) {
          return fail_at(line_no, "expected the :value invoked on line " +
                                      std::to_string(inv->true_ns));
        }
      }
    }
    if (auto err = b.add(line_no, std::move(e)); !err.empty()) return fail_at(line_no, err);
  }
  return b.finish("EDN op maps");
}

}  // namespace lockstep
