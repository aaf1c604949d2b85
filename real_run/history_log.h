// RealHistoryLog: the history of a real run, written from several threads (one per client,
// the fault injector, the truth watcher).
//
// Contract: the same events, with the same fields, as the simulator's HistoryRecorder; true
// time is one monotonic clock of the runner (steady_clock since construction), read under
// the same lock that appends, so events are in true-time order. Client operations keep the
// invoke/complete discipline (at most one open operation per process); complete_open()
// closes a crashed client's open operation as `info`. Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "lockstep/checker/history.h"
#include "lockstep/harness/history_writer.h"
#include "lockstep/harness/workload.h"

namespace lockstep {

class RealHistoryLog final : public OperationLog {
 public:
  RealHistoryLog();

  void invoke(const std::string& process, const std::string& op, nlohmann::json args,
              Duration local) override;
  void complete(const std::string& process, EventKind kind, nlohmann::json result,
                Duration local) override;
  void complete_open(const std::string& process, const std::string& why);
  void fault(const std::string& op, const nlohmann::json& args);  // process "world"
  void truth(const std::string& process, const std::string& op, const nlohmann::json& args);
  // A client's call record (kv-send, kv-end, member-switch): a `trace` event with `op`.
  void client_event(const std::string& process, const std::string& op, nlohmann::json args);
  void trace(const std::string& process, Duration local_monotonic, const std::string& message);

  // The clients in the order their first acquire succeeded, so far.
  std::vector<std::string> first_holders() const;
  // Nanoseconds of the run's true clock now.
  std::int64_t true_now_ns() const;
  void set_meta(nlohmann::json meta);
  // Moves the history out; the log must not be written afterwards.
  History take();

 private:
  const std::chrono::steady_clock::time_point start_;
  mutable std::mutex mu_;
  HistoryWriter writer_;  // guarded by mu_
  std::vector<std::string> first_holders_;     // guarded by mu_
};

}  // namespace lockstep
