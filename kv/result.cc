#include "lockstep/kv/result.h"

namespace lockstep {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_argument: return "invalid-argument";
    case ErrorCode::too_many_ops: return "too-many-ops";
    case ErrorCode::duplicate_key: return "duplicate-key";
    case ErrorCode::lease_not_found: return "lease-not-found";
    case ErrorCode::compacted: return "compacted";
    case ErrorCode::future_revision: return "future-revision";
    case ErrorCode::empty_key: return "empty-key";
    case ErrorCode::unavailable: return "unavailable";
    case ErrorCode::session_expired: return "session-expired";
    case ErrorCode::cancelled: return "cancelled";
    case ErrorCode::lock_busy: return "lock-busy";
    case ErrorCode::deadline_exceeded: return "deadline-exceeded";
    case ErrorCode::not_held: return "not-held";
    case ErrorCode::rejected: return "rejected";
    case ErrorCode::timeout: return "timeout";
    case ErrorCode::leader_changed: return "leader-changed";
    case ErrorCode::no_leader: return "no-leader";
    case ErrorCode::connection_lost: return "connection-lost";
  }
  return "unknown";
}

std::string Error::to_string() const {
  std::string s = error_code_name(code);
  s += indeterminate() ? " (indeterminate)" : " (definite)";
  if (!message.empty()) {
    s += ": ";
    s += message;
  }
  return s;
}

}  // namespace lockstep
