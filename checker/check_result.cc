#include "lockstep/checker/check_result.h"

namespace lockstep {

const char* check_status_name(CheckStatus status) {
  switch (status) {
    case CheckStatus::ok: return "ok";
    case CheckStatus::violated: return "violated";
    case CheckStatus::unknown: return "unknown";
  }
  return "?";
}

nlohmann::json CheckResult::to_json() const {
  nlohmann::json j;
  j["name"] = name;
  j["status"] = check_status_name(status);
  j["summary"] = summary;
  j["figures"] = figures;
  if (!witness.empty()) j["witness"] = witness;
  return j;
}

}  // namespace lockstep
