#include "harness/history_recorder.h"

#include <cassert>

namespace lockstep {

HistoryEvent& HistoryRecorder::append(const std::string& process, EventKind kind,
                                      const std::string& op) {
  HistoryEvent e;
  e.index = static_cast<std::int64_t>(history_.events.size());
  e.process = process;
  e.kind = kind;
  e.op = op;
  e.true_ns = world_.now().time_since_epoch().count();
  history_.events.push_back(std::move(e));
  return history_.events.back();
}

void HistoryRecorder::invoke(const std::string& process, const std::string& op,
                             nlohmann::json args, Duration local) {
  assert(!open_ops_.count(process) && "one open operation per process");
  open_ops_[process] = op;
  HistoryEvent& e = append(process, EventKind::invoke, op);
  if (!args.is_null()) e.args = std::move(args);
  e.local_ns = local.count();
}

void HistoryRecorder::complete(const std::string& process, EventKind kind, nlohmann::json result,
                               Duration local) {
  auto it = open_ops_.find(process);
  assert(it != open_ops_.end() && "a completion needs an open operation");
  const std::string op = it->second;
  open_ops_.erase(it);
  HistoryEvent& e = append(process, kind, op);
  if (!result.is_null()) e.result = std::move(result);
  e.local_ns = local.count();
}

void HistoryRecorder::complete_open(const std::string& process, const std::string& why) {
  auto it = open_ops_.find(process);
  if (it == open_ops_.end()) return;
  const std::string op = it->second;
  open_ops_.erase(it);
  HistoryEvent& e = append(process, EventKind::info, op);
  e.result = {{"error", why}};
}

void HistoryRecorder::on_fault(TrueTime, const std::string& process, const std::string& op,
                               const nlohmann::json& args) {
  HistoryEvent& e = append(process, EventKind::fault, op);
  if (!args.is_null()) e.args = args;
}

void HistoryRecorder::on_truth(TrueTime, const std::string& process, const std::string& op,
                               const nlohmann::json& args) {
  HistoryEvent& e = append(process, EventKind::truth, op);
  if (!args.is_null()) e.args = args;
}

void HistoryRecorder::on_trace(TrueTime, const std::string& process, Duration local_monotonic,
                               const std::string& message) {
  HistoryEvent& e = append(process, EventKind::trace, "trace");
  e.args = {{"message", message}};
  e.local_ns = local_monotonic.count();
}

}  // namespace lockstep
