#include "lockstep/harness/history_recorder.h"

namespace lockstep {

void HistoryRecorder::invoke(const std::string& process, const std::string& op,
                             nlohmann::json args, Duration local) {
  writer_.invoke(now_ns(), process, op, std::move(args), local);
}

void HistoryRecorder::complete(const std::string& process, EventKind kind, nlohmann::json result,
                               Duration local) {
  writer_.complete(now_ns(), process, kind, std::move(result), local);
}

void HistoryRecorder::complete_open(const std::string& process, const std::string& why) {
  writer_.complete_open(now_ns(), process, why);
}

void HistoryRecorder::on_fault(TrueTime, const std::string& process, const std::string& op,
                               nlohmann::json args) {
  writer_.record(now_ns(), process, EventKind::fault, op, std::move(args));
}

void HistoryRecorder::on_truth(TrueTime, const std::string& process, const std::string& op,
                               nlohmann::json args) {
  writer_.record(now_ns(), process, EventKind::truth, op, std::move(args));
}

void HistoryRecorder::on_trace(TrueTime, const std::string& process, Duration local_monotonic,
                               const std::string& message) {
  writer_.trace(now_ns(), process, local_monotonic, message);
}

void HistoryRecorder::on_client_event(TrueTime, const std::string& process,
                                      Duration local_monotonic, const std::string& op,
                                      nlohmann::json args) {
  writer_.record(now_ns(), process, EventKind::trace, op, std::move(args));
  writer_.history().events.back().local_ns = local_monotonic.count();
}

}  // namespace lockstep
