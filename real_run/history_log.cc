#include "lockstep/real_run/history_log.h"

#include <algorithm>

namespace lockstep {

RealHistoryLog::RealHistoryLog() : start_(std::chrono::steady_clock::now()) {}

std::int64_t RealHistoryLog::true_now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start_)
      .count();
}

// Each event reads the clock under the lock that appends it: the order of events is the order
// of their true times.

void RealHistoryLog::invoke(const std::string& process, const std::string& op,
                            nlohmann::json args, Duration local) {
  std::lock_guard<std::mutex> g(mu_);
  writer_.invoke(true_now_ns(), process, op, std::move(args), local);
}

void RealHistoryLog::complete(const std::string& process, EventKind kind, nlohmann::json result,
                              Duration local) {
  std::lock_guard<std::mutex> g(mu_);
  if (kind == EventKind::ok && writer_.open_op(process) == "acquire" &&
      std::find(first_holders_.begin(), first_holders_.end(), process) == first_holders_.end())
    first_holders_.push_back(process);
  writer_.complete(true_now_ns(), process, kind, std::move(result), local);
}

std::vector<std::string> RealHistoryLog::first_holders() const {
  std::lock_guard<std::mutex> g(mu_);
  return first_holders_;
}

void RealHistoryLog::complete_open(const std::string& process, const std::string& why) {
  std::lock_guard<std::mutex> g(mu_);
  writer_.complete_open(true_now_ns(), process, why);
}

void RealHistoryLog::fault(const std::string& op, const nlohmann::json& args) {
  std::lock_guard<std::mutex> g(mu_);
  writer_.record(true_now_ns(), "world", EventKind::fault, op, args);
}

void RealHistoryLog::truth(const std::string& process, const std::string& op,
                           const nlohmann::json& args) {
  std::lock_guard<std::mutex> g(mu_);
  writer_.record(true_now_ns(), process, EventKind::truth, op, args);
}

void RealHistoryLog::client_event(const std::string& process, const std::string& op,
                                  nlohmann::json args) {
  std::lock_guard<std::mutex> g(mu_);
  writer_.record(true_now_ns(), process, EventKind::trace, op, std::move(args));
}

void RealHistoryLog::trace(const std::string& process, Duration local_monotonic,
                           const std::string& message) {
  std::lock_guard<std::mutex> g(mu_);
  writer_.trace(true_now_ns(), process, local_monotonic, message);
}

void RealHistoryLog::set_meta(nlohmann::json meta) {
  std::lock_guard<std::mutex> g(mu_);
  writer_.history().header.meta = std::move(meta);
}

History RealHistoryLog::take() {
  std::lock_guard<std::mutex> g(mu_);
  return std::move(writer_.history());
}

}  // namespace lockstep
