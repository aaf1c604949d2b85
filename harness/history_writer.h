// HistoryWriter: a run's History as it is written, shared by the simulated run
// (HistoryRecorder) and the real one (RealHistoryLog), which differ only in their clock and
// in locking.
//
// Contract: events are appended in the order of the calls, with the true time the caller
// gives (callers append in true-time order). Client operations follow the history's
// invoke/complete discipline: at most one open operation per process; breaking it is a bug of
// the caller and throws std::logic_error. complete_open() closes a process's open operation,
// if any, as `info`. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "lockstep/checker/history.h"
#include "lockstep/kv/time.h"

namespace lockstep {

class HistoryWriter {
 public:
  void invoke(std::int64_t true_ns, const std::string& process, const std::string& op,
              nlohmann::json args, Duration local);
  void complete(std::int64_t true_ns, const std::string& process, EventKind kind,
                nlohmann::json result, Duration local);
  void complete_open(std::int64_t true_ns, const std::string& process, const std::string& why);
  bool has_open(const std::string& process) const { return open_ops_.count(process) != 0; }
  // The name of `process`'s open operation, or "" when it has none.
  std::string open_op(const std::string& process) const {
    auto it = open_ops_.find(process);
    return it == open_ops_.end() ? std::string() : it->second;
  }

  // fault and truth events (args may be null: none).
  void record(std::int64_t true_ns, const std::string& process, EventKind kind,
              const std::string& op, nlohmann::json args);
  void trace(std::int64_t true_ns, const std::string& process, Duration local_monotonic,
             const std::string& message);

  History& history() { return history_; }

 private:
  // Appends an event with `args` and `result` (each an empty object when null).
  HistoryEvent& append(std::int64_t true_ns, const std::string& process, EventKind kind,
                       const std::string& op, nlohmann::json args = nullptr,
                       nlohmann::json result = nullptr);

  History history_;
  std::map<std::string, std::string> open_ops_;  // process -> op name
};

}  // namespace lockstep
