#include "lockstep/harness/replay.h"

namespace lockstep {

std::string run_verdict(const RunResult& result) {
  bool unknown = false;
  for (const auto& c : result.checks) {
    if (c.status == CheckStatus::violated) return "violated";
    unknown = unknown || c.status == CheckStatus::unknown;
  }
  return unknown ? "unknown" : "ok";
}

bool has_expectation(const Scenario& scenario) {
  return !scenario.config.expected_verdict.empty() || !scenario.expected_history_hash.empty();
}

std::vector<std::string> expectation_mismatches(const Scenario& scenario, const RunResult& result) {
  std::vector<std::string> out;
  const std::string verdict = run_verdict(result);
  const std::string& expected = scenario.config.expected_verdict;
  if (!expected.empty() && expected != verdict) {
    std::string checks;
    for (const auto& c : result.checks)
      checks += (checks.empty() ? "" : "; ") + c.name + " " + check_status_name(c.status) +
                (c.summary.empty() ? "" : ": " + c.summary);
    out.push_back("expected verdict " + expected + ", got " + verdict +
                  (checks.empty() ? "" : " (" + checks + ")"));
  }
  const std::string hash = hash_hex(history_hash(result.history));
  if (!scenario.expected_history_hash.empty() && scenario.expected_history_hash != hash)
    out.push_back("expected history hash " + scenario.expected_history_hash + ", got " + hash +
                  " (the simulator behaves differently from the build that wrote the scenario, "
                  "or the run is not deterministic)");
  return out;
}

ReplayOutcome judge_replay(const Scenario& scenario, RunResult result) {
  ReplayOutcome out;
  out.mismatches = expectation_mismatches(scenario, result);
  out.result = std::move(result);
  out.verdict = run_verdict(out.result);
  out.history_hash = hash_hex(history_hash(out.result.history));
  out.has_expectation = has_expectation(scenario);
  return out;
}

ReplayOutcome replay_scenario(const Scenario& scenario) {
  return judge_replay(scenario, run_simulation(scenario.config));
}

}  // namespace lockstep
