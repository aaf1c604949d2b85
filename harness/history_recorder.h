// HistoryRecorder: turns what happens in a run into a History.
//
// Contract: events are appended in the order they happen, which is true-time order. Client
// operations follow the history's invoke/complete discipline: at most one open operation per
// process; complete_open() closes a crashed client's open operation as `info`.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "lockstep/checker/history.h"
#include "lockstep/harness/history_writer.h"
#include "lockstep/harness/workload.h"
#include "lockstep/sim/world.h"

namespace lockstep {

class HistoryRecorder : public sim::WorldObserver, public OperationLog {
 public:
  explicit HistoryRecorder(sim::World& world) : world_(world) {}

  void invoke(const std::string& process, const std::string& op, nlohmann::json args,
              Duration local) override;
  void complete(const std::string& process, EventKind kind, nlohmann::json result,
                Duration local) override;
  // Closes the open operation of `process`, if any, as indeterminate.
  void complete_open(const std::string& process, const std::string& why);
  bool has_open(const std::string& process) const { return writer_.has_open(process); }

  void on_fault(TrueTime now, const std::string& process, const std::string& op,
                nlohmann::json args) override;
  void on_truth(TrueTime now, const std::string& process, const std::string& op,
                nlohmann::json args) override;
  void on_trace(TrueTime now, const std::string& process, Duration local_monotonic,
                const std::string& message) override;
  void on_client_event(TrueTime now, const std::string& process, Duration local_monotonic,
                       const std::string& op, nlohmann::json args) override;

  History& history() { return writer_.history(); }

 private:
  std::int64_t now_ns() const { return world_.now().time_since_epoch().count(); }

  sim::World& world_;
  HistoryWriter writer_;
};

}  // namespace lockstep
