#include "lockstep/harness/run_files.h"

#include "lockstep/harness/output_file.h"
#include "lockstep/harness/replay.h"

#include <cctype>
#include <sstream>

namespace lockstep {

namespace {

// A duration as `--duration` reads it back exactly: whole seconds, then the nanoseconds
// left without trailing zeros (1.5, 0.0015, 86400), never rounded to 6 digits as a stream
// prints a double.
std::string exact_seconds(Duration d) {
  const std::int64_t ns = d.count();
  std::string text = std::to_string(ns / 1'000'000'000);
  if (std::int64_t fraction = ns % 1'000'000'000; fraction != 0) {
    std::string digits = std::to_string(fraction);
    digits.insert(0, 9 - digits.size(), '0');
    while (digits.back() == '0') digits.pop_back();
    text += "." + digits;
  }
  return text;
}

}  // namespace

std::string replay_command(const RunConfig& config) {
  std::ostringstream s;
  s << "lockstep run --algorithm " << config.algorithm << " --seed " << config.seed
    << " --clients " << config.workload.clients << " --duration "
    << exact_seconds(config.workload.duration) << " --members " << config.etcd.members;
  if (!config.fault_classes.empty()) {
    std::string classes;
    for (const auto& c : config.fault_classes) classes += (classes.empty() ? "" : ",") + c;
    s << " --faults " << classes;
  }
  if (!config.extend_load_for_liveness) s << " --fixed-length";
  // The algorithm's options that differ from its defaults (a run without them, a TTL of 7
  // left out, gave another verdict); all of them when the algorithm is unknown here.
  const AlgorithmInfo* info = find_algorithm(config.algorithm);
  for (const auto& [name, value] : config.algorithm_options) {
    bool is_default = false;
    if (info)
      for (const auto& spec : info->options)
        is_default = is_default || (spec.name == name && spec.default_value == value);
    if (!is_default) s << " --option " << name << "=" << value;
  }
  return s.str();
}

nlohmann::json verdict_to_json(const Scenario& scenario, const RunResult& result,
                               const std::string& replay) {
  const RunConfig& config = scenario.config;
  const auto mismatches = expectation_mismatches(scenario, result);
  nlohmann::json j;
  j["format"] = "lockstep-verdict";
  j["version"] = 1;
  j["verdict"] = run_verdict(result);
  if (has_expectation(scenario)) {
    nlohmann::json expected = nlohmann::json::object();
    if (!config.expected_verdict.empty()) expected["verdict"] = config.expected_verdict;
    if (!scenario.expected_history_hash.empty())
      expected["history_hash"] = scenario.expected_history_hash;
    j["expected"] = expected;
    j["as_expected"] = mismatches.empty();
    j["mismatches"] = mismatches;
  }
  j["algorithm"] = config.algorithm;
  j["seed"] = config.seed;
  j["history_hash"] = hash_hex(history_hash(result.history));
  j["events"] = static_cast<std::int64_t>(result.history.events.size());
  j["replay"] = replay;
  j["checks"] = nlohmann::json::array();
  for (const auto& c : result.checks) j["checks"].push_back(c.to_json());
  j["stats"] = {{"simulated_seconds", result.stats.simulated_seconds},
                {"events_run", result.stats.events_run},
                {"messages_sent", result.stats.messages_sent},
                {"messages_dropped", result.stats.messages_dropped}};
  return j;
}

nlohmann::json verdict_to_json(const RunConfig& config, const RunResult& result) {
  Scenario s;
  s.config = config;
  return verdict_to_json(s, result, replay_command(config));
}

std::string verdict_text(const RunConfig& config, const RunResult& result) {
  return verdict_text(config, result, replay_command(config));
}

std::string verdict_text(const RunConfig& config, const RunResult& result,
                         const std::string& replay) {
  std::string verdict = run_verdict(result);
  for (auto& ch : verdict) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  std::ostringstream s;
  s << config.algorithm << " seed " << config.seed << ": " << verdict << " ("
    << result.history.events.size()
    << " events, " << result.stats.simulated_seconds << " simulated seconds)\n";
  for (const auto& c : result.checks)
    s << "  " << c.name << ": " << check_status_name(c.status) << " - " << c.summary << "\n";
  s << "  history hash " << hash_hex(history_hash(result.history)) << "\n";
  s << "  replay: " << replay << "\n";
  return s.str();
}

std::string run_directory_taken(const std::filesystem::path& dir) {
  return files_taken(dir, kRunDirectoryFiles);
}

std::string files_taken(const std::filesystem::path& dir, std::span<const char* const> names) {
  for (const char* name : names) {
    std::string error;  // a loop of links or an over-long name: say so instead of throwing
    const bool taken = path_taken(dir / name, error);  // a dangling link too
    if (!error.empty()) return error;
    if (taken)
      return (dir / name).string() +
             " already exists; choose another --out directory or pass --force to overwrite";
  }
  return {};
}

std::string write_run_directory(const std::filesystem::path& dir, const RunConfig& config,
                                const RunResult& result, bool overwrite) {
  Scenario s;
  s.config = config;
  return write_run_directory(dir, s, result, overwrite);
}

std::string write_run_directory(const std::filesystem::path& dir, const Scenario& scenario,
                                const RunResult& result, bool overwrite) {
  // Checked before anything is written, so that a refused scenario leaves no half directory.
  if (auto err = scenario_representable(scenario.config); !err.empty())
    return (dir / "scenario.json").string() + ": cannot be written exactly: " + err;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot create output directory " + dir.string() + ": " + ec.message();
  if (!overwrite)
    if (auto err = run_directory_taken(dir); !err.empty()) return err;
  auto write = [&](const char* name, const std::string& text) {
    return write_file_replacing(dir / name, text);
  };
  std::ostringstream history;
  write_history_jsonl(history, result.history);
  if (auto err = write("history.jsonl", history.str()); !err.empty()) return err;
  const std::string replay = "lockstep replay " + (dir / "scenario.json").string();
  if (auto err = write("verdict.json", verdict_to_json(scenario, result, replay).dump(2) + "\n");
      !err.empty())
    return err;
  Scenario ran = scenario;
  if (ran.config.expected_verdict.empty() && ran.expected_history_hash.empty()) {
    ran.config.expected_verdict = run_verdict(result);
    // "unknown" is no verdict a scenario can expect: a checker ran out of budget.
    if (ran.config.expected_verdict == "unknown") ran.config.expected_verdict.clear();
    ran.expected_history_hash = hash_hex(history_hash(result.history));
  }
  // save_scenario_file writes through its own temporary file; the existence check above
  // already covered scenario.json.
  if (auto err = save_scenario_file(dir / "scenario.json", ran, /*overwrite=*/true); !err.empty())
    return err;
  return {};
}

}  // namespace lockstep
