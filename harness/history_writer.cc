#include "lockstep/harness/history_writer.h"

#include <stdexcept>

namespace lockstep {

HistoryEvent& HistoryWriter::append(std::int64_t true_ns, const std::string& process,
                                    EventKind kind, const std::string& op) {
  HistoryEvent e;
  e.index = static_cast<std::int64_t>(history_.events.size());
  e.process = process;
  e.kind = kind;
  e.op = op;
  e.true_ns = true_ns;
  history_.events.push_back(std::move(e));
  return history_.events.back();
}

void HistoryWriter::invoke(std::int64_t true_ns, const std::string& process,
                           const std::string& op, nlohmann::json args, Duration local) {
  if (!open_ops_.emplace(process, op).second)
    throw std::logic_error("history: " + process + " invoked " + op + " with an operation open");
  HistoryEvent& e = append(true_ns, process, EventKind::invoke, op);
  if (!args.is_null()) e.args = std::move(args);
  e.local_ns = local.count();
}

void HistoryWriter::complete(std::int64_t true_ns, const std::string& process, EventKind kind,
                             nlohmann::json result, Duration local) {
  auto it = open_ops_.find(process);
  if (it == open_ops_.end())
    throw std::logic_error("history: " + process + " completed an operation it did not invoke");
  const std::string op = it->second;
  open_ops_.erase(it);
  HistoryEvent& e = append(true_ns, process, kind, op);
  if (!result.is_null()) e.result = std::move(result);
  e.local_ns = local.count();
}

void HistoryWriter::complete_open(std::int64_t true_ns, const std::string& process,
                                  const std::string& why) {
  auto it = open_ops_.find(process);
  if (it == open_ops_.end()) return;
  const std::string op = it->second;
  open_ops_.erase(it);
  HistoryEvent& e = append(true_ns, process, EventKind::info, op);
  e.result = {{"error", why}};
}

void HistoryWriter::record(std::int64_t true_ns, const std::string& process, EventKind kind,
                           const std::string& op, nlohmann::json args) {
  HistoryEvent& e = append(true_ns, process, kind, op);
  if (!args.is_null()) e.args = std::move(args);
}

void HistoryWriter::trace(std::int64_t true_ns, const std::string& process,
                          Duration local_monotonic, const std::string& message) {
  HistoryEvent& e = append(true_ns, process, EventKind::trace, "trace");
  e.args = {{"message", message}};
  e.local_ns = local_monotonic.count();
}

}  // namespace lockstep
