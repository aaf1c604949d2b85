// Scenario files: a RunConfig as JSON ("lockstep-scenario", version 1), documented in
// docs/scenario-format.md with the schema docs/scenario.schema.json.
//
// Contract:
//   - run_config_from_json(run_config_to_json(c)) == c for every config that passed
//     validate_run_config() and whose durations are whole milliseconds (network latencies:
//     whole microseconds); scenario_representable() says when they are not.
//   - Parsing is strict: every field of the format is required (except `description`,
//     `expect` and the entries of `algorithm.options`, which default to the algorithm's
//     published values), unknown fields are refused, and the first error comes back as one
//     line "<source>: <json path>: <what was expected>", e.g.
//     "scenario.json: workload.clients: expected an integer >= 1".
//   - A config that parses is safe to run: run_simulation() never throws on it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lockstep/harness/run_config.h"

namespace lockstep {

inline constexpr const char* kScenarioFormat = "lockstep-scenario";
inline constexpr int kScenarioVersion = 1;

// A scenario file: the run, what it is for, and what replaying it must give.
struct Scenario {
  RunConfig config;  // config.expected_verdict: "ok", "violated" or "" (no expectation)
  std::string description;  // what the scenario shows, for people; may be empty
  // The history hash (hash_hex of history_hash) replaying must reproduce; empty: not pinned.
  // Catalogue files leave it empty so that they survive changes of the simulator (their hashes
  // are pinned apart, in harness/testdata/scenario_hashes.golden, and checked on every build
  // type by the determinism test); a run's own scenario.json pins it.
  std::string expected_history_hash;
  // A command to run as every client when the scenario is replayed on a real etcd: someone's
  // own lock code, speaking the client protocol (docs/external-clients.md); config.algorithm is
  // the algorithm it implements. Empty: the algorithm's own code. The simulator ignores it.
  std::string client_cmd;

};

// The check names a scenario may list (RunConfig::checks).
const std::vector<std::string>& known_check_names();

// Why `config` cannot be written exactly (a duration finer than the format's unit) or read
// back (the reader's own checks: a value past its range, such as a liveness bound or a fault
// end after one day), or empty. "<json path>: <what was expected>".
std::string scenario_representable(const RunConfig& config);

// Throws std::invalid_argument when !scenario_representable(config).empty(): configs come
// from files or from the CLI's whole-millisecond options, so that is a bug.
nlohmann::json scenario_to_json(const Scenario& scenario);
nlohmann::json run_config_to_json(const RunConfig& config);

// The file's text: readable_json_text() (one fault per line), keys in the documented order.
std::string scenario_to_text(const Scenario& scenario);

// Parse and validate; on error return the message described above (`source` is its first
// part, normally the file name), leaving `out` unspecified.
std::string scenario_from_json(const nlohmann::json& j, const std::string& source, Scenario& out);
std::string run_config_from_json(const nlohmann::json& j, const std::string& source,
                                 RunConfig& out);

// The JSON path of the first field where two configs differ ("workload.clients",
// "faults[2]"), or empty when they are equal in every field the format holds.
std::string run_config_difference(const RunConfig& a, const RunConfig& b);

// Parses a file's text; errors start with `source` (for bad JSON, then the line and column).
std::string scenario_from_text(const std::string& text, const std::string& source,
                               Scenario& out);
// Reads and parses a file; errors name the file (and for bad JSON, the line and column).
std::string load_scenario_file(const std::filesystem::path& path, Scenario& out);
// Writes a scenario (pretty-printed, trailing newline) through a temporary file; refuses to
// replace an existing file unless `overwrite`. Returns an error message or empty.
std::string save_scenario_file(const std::filesystem::path& path, const Scenario& scenario,
                               bool overwrite);

}  // namespace lockstep
