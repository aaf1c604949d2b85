// CheckResult: what every checker returns, and what verdict.json lists per check.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace lockstep {

enum class CheckStatus { ok, violated, unknown };

const char* check_status_name(CheckStatus status);

struct CheckResult {
  std::string name;       // "mutex", "resource", "liveness", "linearizability"
  CheckStatus status = CheckStatus::ok;
  std::string summary;    // one sentence, for people
  nlohmann::json figures = nlohmann::json::object();  // counts and durations
  nlohmann::json witness = nlohmann::json::object();  // on a violation: what proves it

  nlohmann::json to_json() const;
};

}  // namespace lockstep
