#include "harness/real_history_log.h"

#include <stdexcept>

namespace lockstep {

RealHistoryLog::RealHistoryLog() : start_(std::chrono::steady_clock::now()) {}

std::int64_t RealHistoryLog::true_now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start_)
      .count();
}

HistoryEvent& RealHistoryLog::append(const std::string& process, EventKind kind,
                                     const std::string& op) {
  HistoryEvent e;
  e.index = static_cast<std::int64_t>(history_.events.size());
  e.process = process;
  e.kind = kind;
  e.op = op;
  // Read under the lock: the order of events is the order of their true times.
  e.true_ns = true_now_ns();
  history_.events.push_back(std::move(e));
  return history_.events.back();
}

void RealHistoryLog::invoke(const std::string& process, const std::string& op,
                            nlohmann::json args, Duration local) {
  std::lock_guard<std::mutex> g(mu_);
  if (open_ops_.count(process))
    throw std::logic_error("history: " + process + " invoked " + op + " with an operation open");
  open_ops_[process] = op;
  HistoryEvent& e = append(process, EventKind::invoke, op);
  if (!args.is_null()) e.args = std::move(args);
  e.local_ns = local.count();
}

void RealHistoryLog::complete(const std::string& process, EventKind kind, nlohmann::json result,
                              Duration local) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = open_ops_.find(process);
  if (it == open_ops_.end())
    throw std::logic_error("history: " + process + " completed an operation it did not invoke");
  const std::string op = it->second;
  open_ops_.erase(it);
  HistoryEvent& e = append(process, kind, op);
  if (!result.is_null()) e.result = std::move(result);
  e.local_ns = local.count();
}

void RealHistoryLog::complete_open(const std::string& process, const std::string& why) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = open_ops_.find(process);
  if (it == open_ops_.end()) return;
  const std::string op = it->second;
  open_ops_.erase(it);
  HistoryEvent& e = append(process, EventKind::info, op);
  e.result = {{"error", why}};
}

void RealHistoryLog::fault(const std::string& op, const nlohmann::json& args) {
  std::lock_guard<std::mutex> g(mu_);
  HistoryEvent& e = append("world", EventKind::fault, op);
  if (!args.is_null()) e.args = args;
}

void RealHistoryLog::truth(const std::string& process, const std::string& op,
                           const nlohmann::json& args) {
  std::lock_guard<std::mutex> g(mu_);
  HistoryEvent& e = append(process, EventKind::truth, op);
  if (!args.is_null()) e.args = args;
}

void RealHistoryLog::trace(const std::string& process, Duration local_monotonic,
                           const std::string& message) {
  std::lock_guard<std::mutex> g(mu_);
  HistoryEvent& e = append(process, EventKind::trace, "trace");
  e.args = {{"message", message}};
  e.local_ns = local_monotonic.count();
}

void RealHistoryLog::set_meta(nlohmann::json meta) {
  std::lock_guard<std::mutex> g(mu_);
  history_.header.meta = std::move(meta);
}

History RealHistoryLog::take() {
  std::lock_guard<std::mutex> g(mu_);
  return std::move(history_);
}

}  // namespace lockstep
