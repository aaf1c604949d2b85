// From a lockstep history to the operations of one model, split into partitions.
//
// Which events a model reads (docs/history-format.md has the full reference):
//   mutex, fenced-mutex  "acquire", "release"; partition by args.lock (default ""). fenced-mutex
//                        reads result.token of an acquire (an integer) and, if present,
//                        args.token of a release.
//   cas-register         "read" (result.value: integer or null = absent), "write" (args.value),
//                        "cas" (args.expected, args.new; result.succeeded); partition by
//                        args.key (default "").
//   kv                   "get" (args.key; result.value), "put" and "append" (args.key,
//                        args.value); strings; partition by key.
//   etcd                 "range", "put", "delete_range", "txn", "lease_revoke" with the etcd
//                        request in args and the response in result (kv_json/etcd_json.h); one
//                        partition, since the store revision ties all keys together.
//                        Serializable ranges and ranges at a past revision are not checked
//                        (they are allowed to be stale).
// Events of other ops are ignored (a lock history may also record writes to the protected
// resource, lease keepalives, ...), and so are faults, traces and truths.
//
// Outcomes: `ok` is an operation with its result; `fail` did not happen and is dropped; `info`,
// and an invoke never completed, is indeterminate (no return time, no result).
// Times: an operation is [invoke true_ns, completion true_ns].
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lockstep/checker/history.h"
#include "lockstep/checker/linearizability.h"

namespace lockstep {

enum class ModelKind { mutex, fenced_mutex, cas_register, kv, etcd };

const char* model_kind_name(ModelKind kind);  // "mutex", "fenced-mutex", ...
std::optional<ModelKind> parse_model_kind(const std::string& name);

struct PartitionsResult {
  std::vector<Partition> partitions;  // sorted by name
  std::size_t ignored_events = 0;     // events of operations this model does not read
  std::size_t unchecked_ops = 0;      // read ops excluded by rule (serializable, past revision)
  std::size_t model_invokes = 0;      // invokes of operations this model reads (failed ones too)
  std::optional<HistoryParseError> error;
};

// The operations a model reads, for messages: "acquire, release".
const char* model_ops_words(ModelKind kind);

// `event_lines`, when given, is the input line of each event (used in errors and witness
// labels); otherwise events are named by their index.
PartitionsResult history_partitions(const History& history, ModelKind kind,
                                    const std::vector<std::int64_t>& event_lines = {});

// The model a history is meant for: the header's meta.model if present; else a lock model when
// there are acquire/release operations (fenced-mutex if an acquire returned a token); else the
// one model whose op names the history uses. Returns nullopt and an explanation when none or
// several fit.
std::optional<ModelKind> detect_model(const History& history, std::string& why_not);

}  // namespace lockstep
