#include "lockstep/checker/porcupine_import.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "lockstep/model/kv_map.h"

namespace lockstep {

namespace {

ImportResult fail_at(std::int64_t line, std::string message) {
  ImportResult r;
  r.error = HistoryParseError{line, std::move(message)};
  return r;
}

bool parse_int(std::string_view s, std::int64_t& out) {
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
//
// Read straight from the file's text: each line is scanned once into the five fields the
// importer reads (views into the line; a string with escapes is decoded into a buffer the line
// reuses), with no value tree, map or string per token. The pairing of invokes and
// completions is shared by the two outputs: a History (import_porcupine_kv) and the kv model's
// partitions (import_porcupine_kv_partitions), so both see the same events and the same errors.

namespace {

// One EDN value as far as the importer needs it: nil, booleans, integers, strings, keywords,
// vectors (whose items are read, for their syntax, and dropped).
struct EdnField {
  enum class Type : std::uint8_t { absent, nil, boolean, integer, string, keyword, vector };
  Type type = Type::absent;
  std::int64_t i = 0;
  std::string_view s;  // string contents or keyword name (without ':')
};

// The fields of one op map that the importer reads; others are checked and skipped.
struct EdnOpMap {
  EdnField process, type, f, key, value;
};

// The characters of a keyword or symbol: ASCII letters and digits (isalnum in the C locale,
// which a bare byte >= 0x80 is not) and -_./?!*+.
constexpr auto kSymbolChars = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[c] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '-' || c == '_' || c == '.' || c == '/' || c == '?' || c == '!' || c == '*' ||
           c == '+';
  return t;
}();

// Whitespace (isspace in the C locale) and EDN's comma.
constexpr bool edn_space(char c) {
  return c == ' ' || c == ',' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// s == the literal, compared inline (string_view's == calls memcmp for a few bytes).
template <std::size_t N>
bool eq(std::string_view s, const char (&lit)[N]) {
  return s.size() == N - 1 && std::memcmp(s.data(), lit, N - 1) == 0;
}

class EdnLineReader {
 public:
  // Reads one line (without its '\n') holding one map of keyword keys into `out`; returns an
  // error message or empty. Views in `out` are valid until the next call.
  std::string read_map(std::string_view line, EdnOpMap& out) {
    if (read_usual_map(line, out)) return {};
    t_ = line;
    pos_ = 0;
    out = EdnOpMap{};
    other_keys_.clear();
    skip();
    if (!eat('{')) return "expected an EDN op map starting with '{'";
    for (;;) {
      skip();
      if (eat('}')) break;
      if (pos_ >= t_.size()) return "expected '}' before the end of the line (truncated?)";
      EdnField key;
      if (auto err = read_value(key, 0, scratch_); !err.empty()) return err;
      if (key.type != EdnField::Type::keyword) return "expected a keyword key such as :process";
      skip();
      if (pos_ >= t_.size() || t_[pos_] == '}')
        return "expected a value after :" + std::string(key.s);
      EdnField* slot = nullptr;
      std::string* buf = &scratch_;
      if (eq(key.s, "process")) {
        slot = &out.process;
      } else if (eq(key.s, "type")) {
        slot = &out.type;
      } else if (eq(key.s, "f")) {
        slot = &out.f;
      } else if (eq(key.s, "key")) {
        slot = &out.key;
        buf = &key_buf_;
      } else if (eq(key.s, "value")) {
        slot = &out.value;
        buf = &value_buf_;
      }
      EdnField value;
      if (auto err = read_value(value, 0, *buf); !err.empty()) return err;
      if (slot) {
        if (slot->type != EdnField::Type::absent) return "duplicate key :" + std::string(key.s);
        *slot = value;
      } else {
        for (std::string_view k : other_keys_)
          if (k == key.s) return "duplicate key :" + std::string(key.s);
        other_keys_.push_back(key.s);
      }
    }
    skip();
    if (pos_ != t_.size()) return "expected nothing after the closing '}'";
    return {};
  }

 private:
  // The lines of Porcupine's (and Jepsen's) kv logs all have one shape:
  //   {:process N, :type :T, :f :F, :key "K", :value "V"}   (or :value nil)
  // with no escape in the strings. Such a line is read here at a glance; any other line (and any
  // line in error) is left to the general reader, which reads this shape to the same fields.
  static bool read_usual_map(std::string_view t, EdnOpMap& out) {
    std::size_t i = 0;
    auto lit = [&]<std::size_t N>(const char(&s)[N]) {
      if (t.size() - i < N - 1 || std::memcmp(t.data() + i, s, N - 1) != 0) return false;
      i += N - 1;
      return true;
    };
    auto symbol = [&](EdnField& f) {  // a keyword's name, after its ':'
      const std::size_t start = i;
      while (i < t.size() && kSymbolChars[static_cast<unsigned char>(t[i])]) ++i;
      f.type = EdnField::Type::keyword;
      f.s = t.substr(start, i - start);
      return !f.s.empty();
    };
    auto string = [&](EdnField& f) {  // after its opening '"'
      const void* quote = std::memchr(t.data() + i, '"', t.size() - i);
      if (!quote) return false;
      const std::size_t end = static_cast<std::size_t>(static_cast<const char*>(quote) - t.data());
      if (std::memchr(t.data() + i, '\\', end - i)) return false;  // an escape
      f.type = EdnField::Type::string;
      f.s = t.substr(i, end - i);
      i = end + 1;
      return true;
    };
    out = EdnOpMap{};
    if (!lit("{:process ")) return false;
    const std::size_t start = i;
    while (i < t.size() && kSymbolChars[static_cast<unsigned char>(t[i])]) ++i;
    if (!parse_int(t.substr(start, i - start), out.process.i)) return false;
    out.process.type = EdnField::Type::integer;
    if (!lit(", :type :") || !symbol(out.type) || !lit(", :f :") || !symbol(out.f) ||
        !lit(", :key \"") || !string(out.key) || !lit(", :value "))
      return false;
    if (lit("nil")) {
      out.value.type = EdnField::Type::nil;
    } else if (!lit("\"") || !string(out.value)) {
      return false;
    }
    if (!lit("}")) return false;
    while (i < t.size() && edn_space(t[i])) ++i;
    return i == t.size();
  }

  void skip() {
    while (pos_ < t_.size() && edn_space(t_[pos_])) ++pos_;
  }
  bool eat(char c) {
    if (pos_ < t_.size() && t_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string_view word() {
    const std::size_t start = pos_;
    while (pos_ < t_.size() && kSymbolChars[static_cast<unsigned char>(t_[pos_])]) ++pos_;
    return t_.substr(start, pos_ - start);
  }

  // A string's contents after its opening '"': a view into the line when it has no escape,
  // else decoded into `buf`.
  std::string read_string(EdnField& v, std::string& buf) {
    v.type = EdnField::Type::string;
    const std::size_t start = pos_;
    while (pos_ < t_.size() && t_[pos_] != '"' && t_[pos_] != '\\') ++pos_;
    if (pos_ >= t_.size()) return "expected a closing '\"' (truncated string?)";
    if (t_[pos_] == '"') {
      v.s = t_.substr(start, pos_ - start);
      ++pos_;
      return {};
    }
    buf.assign(t_.data() + start, pos_ - start);
    for (;;) {
      if (pos_ >= t_.size()) return "expected a closing '\"' (truncated string?)";
      const char d = t_[pos_++];
      if (d == '"') break;
      if (d != '\\') {
        buf.push_back(d);
        continue;
      }
      if (pos_ >= t_.size()) return "expected an escaped character after '\\'";
      const char x = t_[pos_++];
      switch (x) {
        case 'n': buf.push_back('\n'); break;
        case 't': buf.push_back('\t'); break;
        case 'r': buf.push_back('\r'); break;
        case '"': case '\\': buf.push_back(x); break;
        default: return std::string("expected a known string escape, got \\") + x;
      }
    }
    v.s = buf;
    return {};
  }

  std::string read_value(EdnField& v, int depth, std::string& buf) {
    if (depth > 16) return "expected a value nested less deeply";
    skip();
    if (pos_ >= t_.size()) return "expected a value before the end of the line (truncated?)";
    const char c = t_[pos_];
    if (c == '"') {
      ++pos_;
      return read_string(v, buf);
    }
    if (c == ':') {
      ++pos_;
      v.type = EdnField::Type::keyword;
      v.s = word();
      if (v.s.empty()) return "expected a keyword name after ':'";
      return {};
    }
    if (c == '[') {
      ++pos_;
      v.type = EdnField::Type::vector;
      for (;;) {
        skip();
        if (eat(']')) return {};
        EdnField item;
        if (auto err = read_value(item, depth + 1, scratch_); !err.empty()) return err;
      }
    }
    const std::string_view w = word();
    if (w.empty()) return std::string("expected a value, got '") + c + "'";
    if (eq(w, "nil")) {
      v.type = EdnField::Type::nil;
      return {};
    }
    if (eq(w, "true") || eq(w, "false")) {
      v.type = EdnField::Type::boolean;
      return {};
    }
    if (parse_int(w, v.i)) {
      v.type = EdnField::Type::integer;
      return {};
    }
    return "expected nil, true, false, a number, a string, a keyword or a vector, got \"" +
           std::string(w) + "\"";
  }

  std::string_view t_;
  std::size_t pos_ = 0;
  std::string key_buf_, value_buf_, scratch_;  // decoded strings (with escapes)
  std::vector<std::string_view> other_keys_;   // the line's other keys, for duplicates
};

enum class KvOp : std::uint8_t { get, put, append };

const char* kv_op_name(KvOp op) {
  switch (op) {
    case KvOp::get: return "get";
    case KvOp::put: return "put";
    case KvOp::append: return "append";
  }
  return "?";
}

// One line's event, checked: what a sink is handed.
struct KvEvent {
  std::int64_t line = 0;
  std::int64_t process = 0;
  EventKind kind = EventKind::invoke;
  KvOp op = KvOp::get;
  std::string_view key;
  std::string_view value;  // "" when nil or absent
};

// An invoke waiting for its completion. The slot of a process is kept (and its strings'
// capacity reused) from one operation to the next.
struct OpenKvInvoke {
  bool open = false;
  std::int64_t line = 0;
  KvOp op = KvOp::get;
  // Views into the text, or into the stores when the line's field was decoded (an escape, an
  // integer key): the reader's buffers are reused by the next line.
  std::string_view key, value;
  std::string key_store, value_store;
  std::size_t handle = 0;  // the sink's
};

// `v` itself if it lies in `text`, else a copy in `store`.
std::string_view keep(std::string_view v, std::string_view text, std::string& store) {
  const std::less<const char*> before;
  if (!before(v.data(), text.data()) && !before(text.data() + text.size(), v.data() + v.size()))
    return v;
  store.assign(v);
  return store;
}

// Reads the text line by line, checks each op map and pairs completions with invokes per
// process; hands each event to `sink`:
//   std::size_t sink.invoke(const KvEvent&)                            -> a handle
//   void sink.complete(const KvEvent&, std::size_t handle of its invoke)
// Returns the first error (the importer stops there), or nullopt.
template <class Sink>
std::optional<HistoryParseError> read_kv(std::string_view text, Sink& sink) {
  EdnLineReader reader;
  EdnOpMap m;
  std::unordered_map<std::int64_t, OpenKvInvoke> open;
  std::int64_t line_no = 0;
  auto fail = [&](std::string message) {
    return std::optional<HistoryParseError>(HistoryParseError{line_no, std::move(message)});
  };
  auto process_name = [](std::int64_t p) { return std::to_string(p); };
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (auto err = reader.read_map(line, m); !err.empty()) return fail(std::move(err));
    using T = EdnField::Type;
    if (m.process.type != T::integer) return fail("expected :process with an integer");
    if (m.type.type != T::keyword) return fail("expected :type with :invoke, :ok, :fail or :info");
    KvEvent e;
    e.line = line_no;
    e.process = m.process.i;
    if (m.f.type != T::keyword) return fail("expected :f with :get, :put or :append");
    if (eq(m.f.s, "get")) {
      e.op = KvOp::get;
    } else if (eq(m.f.s, "put")) {
      e.op = KvOp::put;
    } else if (eq(m.f.s, "append")) {
      e.op = KvOp::append;
    } else {
      return fail("expected :f with :get, :put or :append");
    }
    std::string key_digits;  // an integer key, as its decimal digits
    if (m.key.type == T::string) {
      e.key = m.key.s;
    } else if (m.key.type == T::integer) {
      key_digits = std::to_string(m.key.i);
      e.key = key_digits;
    } else {
      return fail("expected :key with a string");
    }
    const std::optional<EventKind> kind = parse_event_kind(m.type.s);
    if (!kind || !(*kind == EventKind::invoke || *kind == EventKind::ok || *kind == EventKind::fail ||
                   *kind == EventKind::info))
      return fail("expected :type with :invoke, :ok, :fail or :info");
    e.kind = *kind;
    const bool value_is_string = m.value.type == T::string;
    if (!value_is_string && m.value.type != T::absent && m.value.type != T::nil)
      return fail("expected :value with a string or nil");
    if (value_is_string) e.value = m.value.s;
    OpenKvInvoke& slot = open[e.process];
    if (e.kind == EventKind::invoke) {
      if (e.op != KvOp::get && !value_is_string)
        return fail(std::string("expected :value with the string to ") + kv_op_name(e.op));
      if (slot.open)
        return fail("process " + process_name(e.process) + " invokes :" + kv_op_name(e.op) +
                    " while its :" + kv_op_name(slot.op) + " from line " +
                    std::to_string(slot.line) + " is still open");
      slot.open = true;
      slot.line = line_no;
      slot.op = e.op;
      slot.key = keep(e.key, text, slot.key_store);
      slot.value = e.op == KvOp::get ? std::string_view() : keep(e.value, text, slot.value_store);
      slot.handle = sink.invoke(e);
      continue;
    }
    if (slot.open) {
      if (slot.key != e.key)
        return fail("expected the :key invoked on line " + std::to_string(slot.line));
      if (e.kind == EventKind::ok && e.op != KvOp::get && slot.op == e.op && slot.value != e.value)
        return fail("expected the :value invoked on line " + std::to_string(slot.line));
    }
    if (!slot.open)
      return fail("a completion for process " + process_name(e.process) + " with no open :invoke");
    if (slot.op != e.op)
      return fail("process " + process_name(e.process) + " completes :" + kv_op_name(e.op) +
                  " but invoked :" + kv_op_name(slot.op) + " (line " +
                  std::to_string(slot.line) + ")");
    slot.open = false;
    sink.complete(e, slot.handle);
  }
  return std::nullopt;
}

constexpr const char* kEdnFormat = "EDN op maps";

HistoryParseError empty_edn() {
  return HistoryParseError{0, std::string("empty file: expected ") + kEdnFormat + " events"};
}

// The History import_porcupine_kv returns: args and result as docs/history-format.md has them
// (strings escaped), true_ns = the line.
struct KvHistorySink {
  History history;
  std::vector<std::int64_t> lines;

  HistoryEvent& add(const KvEvent& e) {
    HistoryEvent& h = history.events.emplace_back();
    h.index = static_cast<std::int64_t>(history.events.size() - 1);
    h.process = std::to_string(e.process);
    h.kind = e.kind;
    h.op = kv_op_name(e.op);
    h.true_ns = e.line;
    lines.push_back(e.line);
    return h;
  }
  std::size_t invoke(const KvEvent& e) {
    HistoryEvent& h = add(e);
    h.args = {{"key", escape_bytes(std::string(e.key))}};
    if (e.op != KvOp::get) h.args["value"] = escape_bytes(std::string(e.value));
    return 0;
  }
  void complete(const KvEvent& e, std::size_t) {
    HistoryEvent& h = add(e);
    // nil reads as "" (a missing key)
    if (e.kind == EventKind::ok && e.op == KvOp::get)
      h.result = {{"value", escape_bytes(std::string(e.value))}};
  }
};

// The kv model's operations, one partition per key, as history_partitions makes them of the
// History above: an operation per invoke, in the order of the invokes (= by call time); a
// :fail dropped, an :info or a missing completion left open; labels "line N (process P)".
struct KvPartitionSink {
  using M = model::KvKey;
  struct Ops {
    std::string name;  // the key
    std::vector<ModelOp<M>> ops;
    std::vector<bool> failed;  // per op
  };
  // By key; a key's view is its Ops' name (which stays put: the Ops is on the heap).
  std::unordered_map<std::string_view, std::unique_ptr<Ops>> parts;
  std::vector<std::pair<Ops*, std::size_t>> invokes;  // by handle: the invoke's operation
  std::size_t events = 0;

  std::size_t invoke(const KvEvent& e) {
    ++events;
    auto it = parts.find(e.key);
    if (it == parts.end()) {
      auto p = std::make_unique<Ops>();
      p->name.assign(e.key);
      const std::string_view name = p->name;
      it = parts.emplace(name, std::move(p)).first;
    }
    Ops& p = *it->second;
    ModelOp<M>& op = p.ops.emplace_back();
    op.input.kind = e.op == KvOp::get   ? M::Kind::get
                    : e.op == KvOp::put ? M::Kind::put
                                        : M::Kind::append;
    if (e.op != KvOp::get) op.input.value.assign(e.value);
    op.interval.call = e.line;
    // "line N (process P)", in one allocation (not one per piece).
    char line[24], process[24];
    const std::string_view line_digits(line, std::to_chars(line, line + sizeof line, e.line).ptr);
    const std::string_view process_digits(
        process, std::to_chars(process, process + sizeof process, e.process).ptr);
    constexpr std::string_view a = "line ", b = " (process ", c = ")";
    op.label.resize(a.size() + line_digits.size() + b.size() + process_digits.size() + c.size());
    char* at = op.label.data();
    for (std::string_view piece : {a, line_digits, b, process_digits, c})
      at = std::copy(piece.begin(), piece.end(), at);
    p.failed.push_back(false);
    invokes.emplace_back(&p, p.ops.size() - 1);
    return invokes.size() - 1;
  }
  void complete(const KvEvent& e, std::size_t handle) {
    ++events;
    auto [p, i] = invokes[handle];
    if (e.kind == EventKind::fail) {
      p->failed[i] = true;  // definitely did not happen
      return;
    }
    if (e.kind != EventKind::ok) return;  // :info: indeterminate
    ModelOp<M>& op = p->ops[i];
    op.output = M::Output{};
    if (e.op == KvOp::get) op.output->value.assign(e.value);
    op.interval.ret = e.line;
  }
};

}  // namespace

ImportResult import_porcupine_kv(std::string_view text) {
  KvHistorySink sink;
  if (auto err = read_kv(text, sink)) return fail_at(err->line, std::move(err->message));
  if (sink.history.events.empty()) return fail_at(0, empty_edn().message);
  ImportResult r;
  sink.history.header.meta = {{"imported_from", kEdnFormat}};
  r.history = std::move(sink.history);
  r.event_lines = std::move(sink.lines);
  return r;
}

ImportResult import_porcupine_kv(std::istream& in) {
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return import_porcupine_kv(std::string_view(text));
}

PartitionsResult import_porcupine_kv_partitions(std::string_view text) {
  PartitionsResult r;
  KvPartitionSink sink;
  if (auto err = read_kv(text, sink)) {
    r.error = std::move(err);
    return r;
  }
  if (sink.events == 0) {
    r.error = empty_edn();
    return r;
  }
  // By name, as history_partitions sorts them.
  std::vector<KvPartitionSink::Ops*> parts;
  parts.reserve(sink.parts.size());
  for (auto& [name, p] : sink.parts) parts.push_back(p.get());
  std::sort(parts.begin(), parts.end(), [](auto* a, auto* b) { return a->name < b->name; });
  for (KvPartitionSink::Ops* p : parts) {
    // Without the failed operations; a key none of whose operations happened has none.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < p->ops.size(); ++i)
      if (!p->failed[i]) {
        if (kept != i) p->ops[kept] = std::move(p->ops[i]);
        ++kept;
      }
    p->ops.resize(kept);
    if (p->ops.empty()) continue;
    r.partitions.push_back({std::move(p->name), std::make_unique<ModelPartition<model::KvKey>>(
                                                    model::KvKey{}, std::move(p->ops))});
  }
  return r;
}

}  // namespace lockstep
