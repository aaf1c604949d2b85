// The history: what a run recorded, and the contract between runners, checkers and reports.
//
// A history is a sequence of events in the order they happened on the true clock. Operations
// follow Jepsen's convention: a process has at most one operation outstanding; an `invoke`
// event opens it and the next `ok`, `fail` or `info` event of the same process closes it.
//   ok    the operation took effect, with `result`;
//   fail  it definitely did not take effect;
//   info  indeterminate: it may have taken effect at any time after its invoke, or never.
// Other kinds record what is not an operation: injected faults (`fault`), and free-form lines
// from algorithms and the runner (`trace`), and facts the simulator knows but no client saw
// (`truth`: e.g. a lock key really created or deleted in the store at a revision).
//
// The JSON Lines encoding is documented in docs/history-format.md. Keys and values inside
// `args`/`result` are strings; bytes that are not printable ASCII are escaped by the writer.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lockstep/kv/types.h"  // escape_bytes

namespace lockstep {

enum class EventKind { invoke, ok, fail, info, fault, trace, truth };

const char* event_kind_name(EventKind kind);
std::optional<EventKind> parse_event_kind(std::string_view name);

struct HistoryEvent {
  std::int64_t index = 0;         // position in the history, from 0
  std::string process;            // "client-0", "member-1", "resource", "world"
  EventKind kind = EventKind::trace;
  std::string op;                 // "acquire", "release", "write", "partition", ...
  nlohmann::json args = nlohmann::json::object();
  nlohmann::json result = nlohmann::json::object();
  std::int64_t true_ns = 0;       // the true (reference) clock
  std::optional<std::int64_t> local_ns;  // the process's own monotonic clock, when it has one

  bool is_completion() const {
    return kind == EventKind::ok || kind == EventKind::fail || kind == EventKind::info;
  }
};

struct HistoryHeader {
  int version = 1;
  nlohmann::json meta = nlohmann::json::object();  // seed, algorithm, backend, ...
};

struct History {
  HistoryHeader header;
  std::vector<HistoryEvent> events;
};

// Serialisation. write_* never throws on odd bytes: strings are escaped to valid UTF-8.
nlohmann::json event_to_json(const HistoryEvent& event);
void write_history_jsonl(std::ostream& out, const History& history);
std::string history_event_line(const HistoryEvent& event);
std::string history_header_line(const HistoryHeader& header);

// Parsing. On malformed input returns an error naming the line number and what was expected.
// A line's JSON may nest objects and arrays at most kMaxHistoryJsonDepth deep (the event's own
// object is the first level), and no object may give a key twice.
inline constexpr int kMaxHistoryJsonDepth = 256;

// The first key given twice in one object of the JSON `text`, or "" when none is before any
// syntax error. nlohmann keeps the last of two equal keys; lockstep's readers (histories,
// scenarios) refuse such a text instead: it says two things.
std::string first_duplicate_json_key(const std::string& text);
struct HistoryParseError {
  std::int64_t line = 0;
  std::string message;
};
struct HistoryParseResult {
  std::optional<History> history;
  std::optional<HistoryParseError> error;
  std::vector<std::int64_t> event_lines;  // with a history: the input line of each event
};
HistoryParseResult parse_history_jsonl(std::istream& in);

// A 64-bit FNV-1a digest of the JSON Lines text: equal histories have equal hashes on every
// build type and platform.
std::uint64_t history_hash(const History& history);
// The digest history_hash uses, fed in pieces: fnv1a_64(fnv1a_64(kFnv1a64Start, a), b) is the
// digest of a followed by b, so a caller can hash a prefix once and extend it many times.
inline constexpr std::uint64_t kFnv1a64Start = 0xcbf29ce484222325ULL;
std::uint64_t fnv1a_64(std::uint64_t hash, std::string_view text);
std::string hash_hex(std::uint64_t hash);

}  // namespace lockstep
