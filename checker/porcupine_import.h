// Importers for the two history formats of Porcupine's test data (testdata/porcupine):
//
//   Jepsen etcd logs (jepsen/etcd_NNN.log), one jepsen.util log line per event, fields separated
//   by whitespace (tabs or spaces):   INFO  jepsen.util - PROCESS  :TYPE  :F  VALUE
//     :invoke :read nil | :invoke :write N | :invoke :cas [EXPECTED NEW]
//     :ok :read nil|N   | :ok :write N     | :ok :cas [E N]   | :fail :cas [E N]
//     :fail :read :timed-out   | :info :write|:cas :timed-out
//   EDN op maps (kv/cNN-*.txt), one Jepsen/Knossos op map per line:
//     {:process 0, :type :invoke, :f :append, :key "0", :value "x 0 0 y"}
//
// Both become a lockstep History (checker/history.h) with the op names the cas-register and kv
// models read (docs/history-format.md), one event per input line, true_ns = the line number, so
// that everything downstream sees one format. The mapping of outcomes:
//   :ok -> ok;  :info -> info (indeterminate: a crashed client);
//   :fail of a cas -> ok with succeeded=false: in Jepsen's etcd test a failed cas is etcd's
//     "compare failed" answer, an observation of the register, not an operation that did not
//     happen (Porcupine's and Knossos' etcd models read it the same way);
//   any other :fail -> fail (did not happen; a timed-out read has no effect either way).
// An operation whose completion is missing at the end of the log (the client crashed) stays
// open, which the checker treats as indeterminate.
//
// Malformed input returns an error naming the line and what was expected; an empty file (no
// events) is an error, not an empty history.
//
// The EDN importer reads the text in one pass, without a value tree or a string per token. Its
// second output, import_porcupine_kv_partitions, skips the History altogether: the kv model's
// partitions, exactly what history_partitions(import_porcupine_kv(text), kv) gives (the same
// operations, intervals, labels and partitions, and the same errors), made straight from the
// text. `lockstep check` takes that way for a kv file checked against the kv model.
#pragma once

#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/checker/history.h"
#include "lockstep/checker/history_ops.h"

namespace lockstep {

struct ImportResult {
  std::optional<History> history;
  std::vector<std::int64_t> event_lines;  // the input line of each event
  std::optional<HistoryParseError> error;
};

ImportResult import_jepsen_etcd_log(std::istream& in);
ImportResult import_porcupine_kv(std::istream& in);
ImportResult import_porcupine_kv(std::string_view text);
PartitionsResult import_porcupine_kv_partitions(std::string_view text);

}  // namespace lockstep
