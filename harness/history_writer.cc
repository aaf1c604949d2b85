#include "lockstep/harness/history_writer.h"

#include <stdexcept>

namespace lockstep {

HistoryEvent& HistoryWriter::append(std::int64_t true_ns, const std::string& process,
                                    EventKind kind, const std::string& op, nlohmann::json args,
                                    nlohmann::json result) {
  // Built with its args and result: a default event's empty objects would be allocated only to
  // be replaced (a run records an event or more for every request).
  return history_.events.emplace_back(HistoryEvent{
      .index = static_cast<std::int64_t>(history_.events.size()),
      .process = process,
      .kind = kind,
      .op = op,
      .args = args.is_null() ? nlohmann::json::object() : std::move(args),
      .result = result.is_null() ? nlohmann::json::object() : std::move(result),
      .true_ns = true_ns,
      .local_ns = std::nullopt});
}

void HistoryWriter::invoke(std::int64_t true_ns, const std::string& process,
                           const std::string& op, nlohmann::json args, Duration local) {
  if (!open_ops_.emplace(process, op).second)
    throw std::logic_error("history: " + process + " invoked " + op + " with an operation open");
  HistoryEvent& e = append(true_ns, process, EventKind::invoke, op, std::move(args));
  e.local_ns = local.count();
}

void HistoryWriter::complete(std::int64_t true_ns, const std::string& process, EventKind kind,
                             nlohmann::json result, Duration local) {
  auto it = open_ops_.find(process);
  if (it == open_ops_.end())
    throw std::logic_error("history: " + process + " completed an operation it did not invoke");
  const std::string op = it->second;
  open_ops_.erase(it);
  HistoryEvent& e = append(true_ns, process, kind, op, nullptr, std::move(result));
  e.local_ns = local.count();
}

void HistoryWriter::complete_open(std::int64_t true_ns, const std::string& process,
                                  const std::string& why) {
  auto it = open_ops_.find(process);
  if (it == open_ops_.end()) return;
  const std::string op = it->second;
  open_ops_.erase(it);
  append(true_ns, process, EventKind::info, op, nullptr, {{"error", why}});
}

void HistoryWriter::record(std::int64_t true_ns, const std::string& process, EventKind kind,
                           const std::string& op, nlohmann::json args) {
  append(true_ns, process, kind, op, std::move(args));
}

void HistoryWriter::trace(std::int64_t true_ns, const std::string& process,
                          Duration local_monotonic, const std::string& message) {
  HistoryEvent& e = append(true_ns, process, EventKind::trace, "trace", {{"message", message}});
  e.local_ns = local_monotonic.count();
}

}  // namespace lockstep
