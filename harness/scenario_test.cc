#include "lockstep/harness/scenario.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

#include "lockstep/harness/output_file.h"
#include "lockstep/harness/replay.h"
#include "lockstep/harness/run_files.h"
#include "lockstep/harness/run_request.h"
#include "lockstep/harness/scenario_fields.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

// A fresh, empty directory under the system temp dir, removed at the end of the test.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) {
    // The pid keeps test processes run at once (ctest -j, two build types) apart.
    path = fs::temp_directory_path() /
           ("lockstep-scenario-test-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

RunConfig expanded(const std::string& algorithm, std::uint64_t seed, const std::string& faults) {
  RunRequest r;
  r.algorithm = algorithm;
  r.seed = seed;
  r.clients = 4;
  r.duration = seconds(10);
  r.faults = faults;
  RunConfig c;
  REQUIRE(expand_run_request(r, c).empty());
  return c;
}

// A short config every field of which differs from its default.
RunConfig unusual_config() {
  RunConfig c = expanded("txn-try-lock", 0xfedcba9876543210ULL, "all");
  c.algorithm_options["lease_ttl_seconds"] = 3;
  c.lock_name = std::string("/locks/\x01odd\\name\xff", 17);
  c.etcd.version = sim::EtcdVersion::v3_5_13;
  c.etcd.members = 5;
  c.etcd.heartbeat_interval = milliseconds(50);
  c.etcd.election_timeout = milliseconds(700);
  c.etcd.min_lease_ttl_seconds = 1;
  c.etcd.lease_check_interval = milliseconds(250);
  c.etcd.server_request_timeout = seconds(3);
  c.etcd.max_txn_ops = 64;
  c.etcd.cluster_id = 0xffffffffffffffffULL;
  c.etcd.lease_revoke_delay = milliseconds(10);
  c.etcd.held_cancel_race_probability = 0.5;
  c.network.one_way_base = microseconds(1234);
  c.network.one_way_jitter = microseconds(7);
  c.workload.clients = 4;
  c.workload.max_cycles_per_client = 3;
  c.workload.critical_section = milliseconds(1);
  c.workload.think_time = milliseconds(0);
  c.workload.acquire_timeout = milliseconds(2500);
  c.workload.try_retry_interval = milliseconds(33);
  c.workload.drain_timeout = milliseconds(4000);
  c.workload.request_timeout = milliseconds(900);
  c.workload.shared_percent = 10;
  c.workload.reentrant_depth = 3;
  c.workload.use_resource = false;
  c.checks = {"liveness", "mutex"};
  c.liveness_bound = milliseconds(12345);
  c.extend_load_for_liveness = false;
  c.expected_verdict = "violated";
  return c;
}

nlohmann::json valid_json() { return run_config_to_json(expanded("etcd-mutex", 7, "pause,partition")); }

// The error for a scenario that is valid_json() changed by `edit`.
std::string error_after(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = valid_json();
  edit(j);
  RunConfig out;
  return run_config_from_json(j, "scenario.json", out);
}

TEST_CASE("every field of a run config survives the scenario format exactly") {
  const RunConfig original = unusual_config();
  REQUIRE(!original.faults.empty());
  RunConfig parsed;
  REQUIRE(run_config_from_json(run_config_to_json(original), "x", parsed) == "");
  REQUIRE(run_config_difference(original, parsed) == "");
  // And the text form: writing the parsed config again gives the same JSON.
  REQUIRE(run_config_to_json(parsed) == run_config_to_json(original));
}

TEST_CASE("run_config_difference names the first field that differs") {
  RunConfig a = unusual_config();
  RunConfig b = a;
  REQUIRE(run_config_difference(a, b) == "");
  b.workload.reentrant_depth = 4;
  REQUIRE(run_config_difference(a, b) == "workload.reentrant_depth");
  b = a;
  b.faults[1].duration += milliseconds(1);
  REQUIRE(run_config_difference(a, b) == "faults[1]");
}

// The number of members of an aggregate: the most initializers `T{...}` accepts, each an
// Anything that converts to whatever member it meets.
struct Anything {
  template <class T>
  operator T() const;  // never defined: only asked about in unevaluated contexts
};
template <class T, class... Initializers>
constexpr std::size_t aggregate_member_count() {
  if constexpr (requires { T{std::declval<Initializers>()..., Anything{}}; })
    return aggregate_member_count<T, Initializers..., Anything>();
  else
    return sizeof...(Initializers);
}

std::size_t scalar_fields_in(const std::string& section) {
  std::size_t n = 0;
  const RunConfig defaults;
  for_each_scalar_field(defaults, [&](const ScalarField& field, const auto&) {
    n += field.section == section;
  });
  return n;
}

// A member added to these structs without adding it to the scenario format would silently
// be lost by every scenario file.
TEST_CASE("the scenario format knows every field of RunConfig") {
  INFO("a member was added: add it to harness/scenario_fields.h (or, for RunConfig itself, to "
       "harness/scenario.cc), docs/scenario-format.md and docs/scenario.schema.json, and to "
       "unusual_config() here");
  CHECK(aggregate_member_count<sim::EtcdConfig>() == scalar_fields_in("etcd"));
  CHECK(aggregate_member_count<sim::LatencyConfig>() == scalar_fields_in("network"));
  CHECK(aggregate_member_count<WorkloadConfig>() == scalar_fields_in("workload"));
  // RunConfig's own: seed, algorithm, algorithm_options, lock_name, the three sections, faults,
  // fault_classes, checks, expected_verdict (scenario.cc), the two top-level bounds
  // (scenario_fields.h), and record_kv_calls, which is deliberately not in the format: it
  // changes what is recorded, never what happens, and a replay always records.
  CHECK(aggregate_member_count<RunConfig>() == 11 + scalar_fields_in("") + 1);
  // A fault's members, each a field of the fault's JSON (sim/faults.cc writes and reads them,
  // fault_fields() in harness/scenario.cc says which class has which): kind, start, duration,
  // from, to, symmetric, targets, probability, amount, rate_ppm, clock, revision.
  CHECK(aggregate_member_count<sim::FaultSpec>() == 12);
}

// docs/scenario.schema.json says what scenario_fields.h says: the same keys in each section,
// the same required ones, the same ranges.
TEST_CASE("the scenario schema matches the fields the reader knows") {
  std::ifstream in(std::string(LOCKSTEP_SOURCE_DIR) + "/docs/scenario.schema.json");
  REQUIRE(in);
  const auto schema = nlohmann::json::parse(in);
  std::map<std::string, std::set<std::string>> keys, required;
  const RunConfig defaults;
  for_each_scalar_field(defaults, [&](const ScalarField& field, const auto&) {
    INFO(field.path());
    const auto& object = *field.section ? schema["properties"][field.section] : schema;
    keys[field.section].insert(field.key);
    if (!field.optional) required[field.section].insert(field.key);
    REQUIRE(object["properties"].contains(field.key));
    const auto& property = object["properties"][field.key];
    const bool integer = field.unit == FieldUnit::count || field.unit == FieldUnit::milliseconds ||
                         field.unit == FieldUnit::microseconds;
    if (integer && property.contains("type")) {
      CHECK(property["type"] == "integer");
      CHECK(property["minimum"] == field.min);
      if (field.max != std::numeric_limits<std::int64_t>::max()) CHECK(property["maximum"] == field.max);
      else CHECK_FALSE(property.contains("maximum"));
    }
    if (integer && !property.contains("type")) {  // an enum of allowed values (etcd.members)
      for (const auto& allowed : property["enum"]) {
        CHECK(allowed.get<std::int64_t>() >= field.min);
        CHECK(allowed.get<std::int64_t>() <= field.max);
      }
    }
    if (field.unit == FieldUnit::flag) CHECK(property["type"] == "boolean");
    if (field.unit == FieldUnit::fraction) CHECK(property["type"] == "number");
  });
  for (const char* section : {"etcd", "network", "workload"}) {
    INFO(section);
    std::set<std::string> in_schema, required_in_schema;
    for (auto it = schema["properties"][section]["properties"].begin();
         it != schema["properties"][section]["properties"].end(); ++it)
      in_schema.insert(it.key());
    for (const auto& r : schema["properties"][section]["required"]) required_in_schema.insert(r);
    CHECK(in_schema == keys[section]);
    CHECK(required_in_schema == required[section]);
  }
  // Every field is documented too, by its path.
  std::ifstream doc(std::string(LOCKSTEP_SOURCE_DIR) + "/docs/scenario-format.md");
  const std::string text((std::istreambuf_iterator<char>(doc)), {});
  for_each_scalar_field(defaults, [&](const ScalarField& field, const auto&) {
    INFO(field.path());
    CHECK(text.find("`" + field.path() + "`") != std::string::npos);
  });
}

TEST_CASE("bad fields are refused with one message naming the JSON path") {
  using J = nlohmann::json;
  struct Case {
    std::function<void(J&)> edit;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](J& j) { j["workload"]["clients"] = 0; },
       "scenario.json: workload.clients: expected an integer >= 1"},
      {[](J& j) { j["workload"]["clients"] = "3"; },
       "scenario.json: workload.clients: expected an integer >= 1"},
      {[](J& j) { j["workload"]["duration_ms"] = 1.5; },
       "scenario.json: workload.duration_ms: expected an integer >= 1"},
      {[](J& j) { j["workload"]["shared_percent"] = 101; },
       "scenario.json: workload.shared_percent: expected an integer <= 100"},
      {[](J& j) { j.erase("seed"); },
       "scenario.json: seed: missing (expected an integer >= 0)"},
      {[](J& j) { j["client_cmd"] = ""; }, "scenario.json: client_cmd: expected a non-empty command"},
      {[](J& j) { j["client_cmd"] = 3; }, "scenario.json: client_cmd: expected a string"},
      {[](J& j) { j["seed"] = -1; },
       "scenario.json: seed: expected an integer between 0 and 18446744073709551615"},
      {[](J& j) { j["format"] = "lockstep-history"; },
       "scenario.json: format: expected \"lockstep-scenario\""},
      {[](J& j) { j["version"] = 2; },
       "scenario.json: version: this lockstep reads version 1, the file is version 2"},
      {[](J& j) { j["etcd"]["members"] = 2; }, "scenario.json: etcd.members: expected 1, 3 or 5"},
      {[](J& j) { j["etcd"]["colour"] = "red"; },
       "scenario.json: etcd.colour: unknown field (expected one of: cluster_id, "
       "election_timeout_ms, heartbeat_interval_ms, held_cancel_race_probability, "
       "lease_check_interval_ms, "
       "lease_revoke_delay_ms, max_txn_ops, members, min_lease_ttl_seconds, "
       "server_request_timeout_ms, version)"},
      {[](J& j) { j["etcd"]["held_cancel_race_probability"] = 1.5; },
       "scenario.json: etcd.held_cancel_race_probability: expected a number from 0 to 1"},
      {[](J& j) { j["etcd"]["version"] = "3.4.22"; },
       "scenario.json: etcd.version: expected \"3.4.23\" or \"3.5.13\""},
      {[](J& j) { j["algorithm"]["name"] = "nope"; },
       "scenario.json: algorithm.name: unknown algorithm \"nope\""},
      {[](J& j) { j["algorithm"]["options"]["ttl"] = 5; },
       "scenario.json: algorithm.options: algorithm \"etcd-mutex\" has no option \"ttl\""},
      {[](J& j) { j["algorithm"]["options"]["lease_ttl_seconds"] = "5"; },
       "scenario.json: algorithm.options.lease_ttl_seconds: expected an integer"},
      {[](J& j) { j["checks"] = {"mutex", "speed"}; },
       "scenario.json: checks[1]: unknown value \"speed\""},
      {[](J& j) { j["checks"] = {"mutex", "mutex"}; },
       "scenario.json: checks[1]: \"mutex\" is listed twice"},
      {[](J& j) { j["lock_name"] = "bad\\q"; }, "scenario.json: lock_name: expected a non-empty key"},
      {[](J& j) { j["extend_load_for_liveness"] = "no"; },
       "scenario.json: extend_load_for_liveness: expected true or false"},
      {[](J& j) { j["expect"] = {{"verdict", "fine"}}; },
       "scenario.json: expect.verdict: expected \"ok\" or \"violated\""},
      {[](J& j) { j["faults"] = {{{"kind", "pause"}, {"start_ms", 5}, {"duration_ms", 10}}}; },
       "scenario.json: faults[0].targets: missing (a pause fault needs it)"},
      {[](J& j) {
         j["faults"] = {{{"kind", "pause"}, {"start_ms", 5}, {"duration_ms", 10},
                         {"targets", {"client-9"}}}};
       },
       "scenario.json: faults[0].targets[0]: unknown process \"client-9\""},
      {[](J& j) {
         j["faults"] = {{{"kind", "pause"}, {"start_ms", 5}, {"duration_ms", 10},
                         {"targets", {"client-0"}}, {"probability", 0.5}}};
       },
       "scenario.json: faults[0].probability: not a field of a pause fault"},
      {[](J& j) { j["faults"] = {{{"kind", "meteor"}, {"start_ms", 5}, {"duration_ms", 10}}}; },
       "scenario.json: faults[0].kind: unknown fault class \"meteor\""},
      {[](J& j) {
         j["faults"] = {{{"kind", "lease-drop"}, {"start_ms", 5}, {"duration_ms", 10},
                         {"targets", {"member-0"}}}};
       },
       "scenario.json: faults[0].targets[0]: lease-drop hits clients only"},
      {[](J& j) {
         j["faults"] = {{{"kind", "crash"}, {"start_ms", 86'400'000}, {"duration_ms", 10},
                         {"targets", {"client-0"}}}};
       },
       "scenario.json: faults[0]: start_ms + duration_ms: expected at most 86400000"},
      // A clock a million times fast made the run's timers fire without end.
      {[](J& j) {
         j["faults"] = {{{"kind", "clock"}, {"start_ms", 5}, {"duration_ms", 10},
                         {"targets", {"member-0"}}, {"rate_ppm", 1'000'000'000'000},
                         {"clock", "both"}}};
       },
       "scenario.json: faults[0].rate_ppm: expected at most 100000000"},
      {[](J& j) {
         j["faults"] = {{{"kind", "compaction"}, {"start_ms", 5}, {"duration_ms", 500},
                         {"revision", 3}}};
       },
       "scenario.json: faults[0].duration_ms: expected 0: a compaction fault is instant"},
      {[](J& j) {
         j["faults"] = {{{"kind", "delay"}, {"start_ms", 5}, {"duration_ms", 10},
                         {"from", {"client-0"}}, {"to", J::array()}, {"symmetric", true},
                         {"amount_ms", -50}}};
       },
       "scenario.json: faults[0].amount_ms: expected an integer >= 0"},
      {[](J& j) { j["algorithm"]["options"]["lease_ttl_seconds"] = -5; },
       "scenario.json: algorithm.options: option lease_ttl_seconds of \"etcd-mutex\" must be "
       "between 1 and 600, not -5"},
      // A TTL of a day stretched a run with faults into a day of simulation (gigabytes).
      {[](J& j) { j["algorithm"]["options"]["lease_ttl_seconds"] = 86'400; },
       "scenario.json: algorithm.options: option lease_ttl_seconds of \"etcd-mutex\" must be "
       "between 1 and 600, not 86400"},
  };
  for (const auto& c : cases) {
    const std::string err = error_after(c.edit);
    INFO(err);
    CHECK(err.rfind(c.message, 0) == 0);
    CHECK(err.find('\n') == std::string::npos);
  }
  REQUIRE(error_after([](J&) {}) == "");
}

TEST_CASE("a scenario without etcd.version is etcd 3.4.23's") {
  nlohmann::json j = valid_json();
  j["etcd"].erase("version");
  RunConfig out;
  REQUIRE(run_config_from_json(j, "scenario.json", out) == "");
  REQUIRE(out.etcd.version == sim::EtcdVersion::v3_4_23);
  REQUIRE(run_config_to_json(out)["etcd"]["version"] == "3.4.23");
}

TEST_CASE("a scenario written before extend_load_for_liveness existed extends its load") {
  nlohmann::json j = valid_json();
  REQUIRE(j.at("extend_load_for_liveness") == true);  // written whatever its value
  j["extend_load_for_liveness"] = false;
  RunConfig fixed;
  REQUIRE(run_config_from_json(j, "scenario.json", fixed) == "");
  REQUIRE(!fixed.extend_load_for_liveness);
  j.erase("extend_load_for_liveness");
  RunConfig older;
  REQUIRE(run_config_from_json(j, "scenario.json", older) == "");
  REQUIRE(older.extend_load_for_liveness);
}

TEST_CASE("a scenario file is written readably - refuses to overwrite - and reads back") {
  TempDir dir("file");
  Scenario s;
  s.config = unusual_config();
  s.description = "pause the holder past its lease";
  s.client_cmd = "python3 my_lock.py --ttl 5";
  s.expected_history_hash = "0123456789abcdef";
  const auto path = dir.path / "s.json";
  REQUIRE(save_scenario_file(path, s, false) == "");
  REQUIRE(save_scenario_file(path, s, false).find("already exists") != std::string::npos);
  Scenario back;
  REQUIRE(load_scenario_file(path, back) == "");
  REQUIRE(back.description == s.description);
  REQUIRE(back.client_cmd == s.client_cmd);
  REQUIRE(back.expected_history_hash == s.expected_history_hash);
  REQUIRE(run_config_difference(back.config, s.config) == "");
  // One fault per line.
  std::ifstream in(path);
  std::string line;
  int fault_lines = 0;
  while (std::getline(in, line)) fault_lines += line.find("{\"kind\": ") != std::string::npos;
  REQUIRE(fault_lines == static_cast<int>(s.config.faults.size()));
}

TEST_CASE("unreadable and malformed files get a message naming the file") {
  TempDir dir("bad");
  Scenario s;
  REQUIRE(load_scenario_file(dir.path / "missing.json", s).find("missing.json: no such file") !=
          std::string::npos);
  REQUIRE(load_scenario_file(dir.path, s).find(": is a directory") != std::string::npos);
  // A device never ends: it is refused before reading (this once filled memory).
  REQUIRE(load_scenario_file("/dev/zero", s) ==
          "/dev/zero: not a regular file (a device or socket cannot be read as input)");
  // Two equal keys in one object say two things; nlohmann would keep the last silently.
  const std::string twice =
      scenario_from_text("{\"format\": \"lockstep-scenario\", \"seed\": 1, \"seed\": 7}", "twice.json", s);
  REQUIRE(twice == "twice.json: the key \"seed\" appears twice in one object (which one is meant?)");
  // Equal keys in different objects are fine (they fail later for other reasons, not this).
  REQUIRE(scenario_from_text("{\"a\": {\"k\": 1}, \"b\": {\"k\": 2}}", "apart.json", s)
              .find("appears twice") == std::string::npos);
  std::ofstream(dir.path / "broken.json") << "{\"format\": \"lockstep-scenario\",\n  \"seed\": }";
  const std::string err = load_scenario_file(dir.path / "broken.json", s);
  INFO(err);
  REQUIRE(err.find("broken.json: not valid JSON: parse error at line 2") != std::string::npos);
  // Found by the fuzzer: a number too large for a double is JSON's out_of_range, not a crash.
  const std::string huge = scenario_from_text("{\"seed\": 1e999}", "huge.json", s);
  INFO(huge);
  REQUIRE(huge.find("huge.json: not valid JSON: number overflow") != std::string::npos);
}

TEST_CASE("a run directory's scenario replays to the same history and verdict") {
  TempDir dir("run");
  RunConfig c = expanded("txn-try-lock", 3, "pause");
  c.workload.clients = 3;
  c.workload.duration = seconds(5);
  c.liveness_bound = seconds(5);
  const RunResult first = run_simulation(c);
  REQUIRE(write_run_directory(dir.path, c, first, false) == "");
  REQUIRE(write_run_directory(dir.path, c, first, false).find("already exists") != std::string::npos);

  Scenario s;
  REQUIRE(load_scenario_file(dir.path / "scenario.json", s) == "");
  REQUIRE(s.config.expected_verdict == run_verdict(first));
  REQUIRE(s.expected_history_hash == hash_hex(history_hash(first.history)));
  for (int i = 0; i < 2; ++i) {
    const ReplayOutcome again = replay_scenario(s);
    INFO((again.mismatches.empty() ? std::string() : again.mismatches[0]));
    REQUIRE(again.as_expected());
    REQUIRE(again.history_hash == s.expected_history_hash);
  }
  std::ifstream verdict_in(dir.path / "verdict.json");
  const auto verdict = nlohmann::json::parse(verdict_in);
  REQUIRE(verdict["replay"] == "lockstep replay " + (dir.path / "scenario.json").string());
}

TEST_CASE("a replay that gives another verdict says what differs") {
  Scenario s;
  s.config = expanded("naive-get-put", 1, "none");
  s.config.workload.duration = seconds(5);
  s.config.checks = {"mutex"};
  s.config.expected_verdict = "ok";  // naive-get-put races with no fault at all
  s.expected_history_hash = "0000000000000000";
  const ReplayOutcome outcome = replay_scenario(s);
  REQUIRE(outcome.verdict == "violated");
  REQUIRE(outcome.mismatches.size() == 2);
  REQUIRE(outcome.mismatches[0].rfind("expected verdict ok, got violated (mutex violated", 0) == 0);
  REQUIRE(outcome.mismatches[1].rfind("expected history hash 0000000000000000, got ", 0) == 0);
  const auto verdict = verdict_to_json(s, outcome.result, "r");
  REQUIRE(verdict["as_expected"] == false);
  REQUIRE(verdict["expected"]["verdict"] == "ok");
}

TEST_CASE("a config with times finer than the format's units is refused - not rounded") {
  RunConfig c = expanded("etcd-mutex", 1, "none");
  c.workload.think_time = microseconds(1500);
  REQUIRE(scenario_representable(c) == "workload.think_time_ms is not a whole number of milliseconds");
  REQUIRE_THROWS_AS(run_config_to_json(c), std::invalid_argument);
  TempDir dir("fine");
  REQUIRE(save_scenario_file(dir.path / "x.json", Scenario{c, "", "", ""}, false)
              .find("cannot be written exactly") != std::string::npos);
}

TEST_CASE("a config the scenario reader would refuse is not representable - run and replay agree") {
  // run --out wrote "liveness_bound_ms": 86410000 (a lease TTL of 86390 s), which replay refused.
  RunConfig c = expanded("etcd-mutex", 1, "none");
  c.liveness_bound = seconds(86'410);
  CHECK(scenario_representable(c) == "liveness_bound_ms: expected an integer <= 86400000");
  REQUIRE_THROWS_AS(run_config_to_json(c), std::invalid_argument);
  TempDir dir("unreadable");
  CHECK(save_scenario_file(dir.path / "x.json", Scenario{c, "", "", ""}, false)
            .find("liveness_bound_ms: expected an integer <= 86400000") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path / "x.json"));
  // A fault that ends after one day (drawn for a run of --duration 86400).
  c = expanded("etcd-mutex", 1, "none");
  sim::FaultSpec pause;
  pause.kind = "pause";
  pause.start = seconds(86'390);
  pause.duration = seconds(20);
  pause.targets = {"client-0"};
  c.faults = {pause};
  CHECK(scenario_representable(c) ==
        "faults[0]: start_ms + duration_ms: expected at most 86400000 (one day)");
  RunRequest request;
  request.algorithm = "etcd-mutex";
  request.duration = seconds(86'400);
  request.faults = "pause";
  RunConfig expanded_config;
  CHECK(expand_run_request(request, expanded_config)
            .rfind("the run cannot be written as a scenario that replay reads back: faults[", 0) == 0);
  // What the reader accepts stays representable.
  c.faults[0].start = seconds(86'380);
  CHECK(scenario_representable(c).empty());
}

TEST_CASE("output files are written under a fresh temporary name - errors say why") {
  TempDir dir("output");
  const fs::path file = dir.path / "x.json";
  {
    std::ofstream user(dir.path / "x.json.tmp");
    user << "mine";
  }
  REQUIRE(write_file_replacing(file, "one") == "");
  REQUIRE(write_file_replacing(file, "two") == "");
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK(text == "two");
  std::ifstream user(dir.path / "x.json.tmp");
  std::string mine((std::istreambuf_iterator<char>(user)), {});
  CHECK(mine == "mine");  // a fixed OUT.tmp was written and renamed away
  // A failure names the output and the reason, and leaves no temporary behind.
  CHECK(write_file_replacing(dir.path / "none" / "x.json", "x") ==
        "cannot write " + (dir.path / "none" / "x.json").string() + ": No such file or directory");
  fs::create_directories(dir.path / "sub");
  CHECK(write_file_replacing(dir.path / "sub", "x") ==
        "cannot write " + (dir.path / "sub").string() + ": Is a directory");
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path)) names.insert(e.path().filename().string());
  CHECK(names == std::set<std::string>{"sub", "x.json", "x.json.tmp"});
  // Checked up front, before a command's work.
  CHECK(output_directory_problem(file) == file.string() + ": not a directory (a file is there)");
  CHECK(output_directory_problem(file / "a") ==
        (file / "a").string() + ": cannot be created: " + file.string() + " is not a directory");
  CHECK(output_directory_problem(dir.path / "new" / "deeper") == "");
  CHECK(output_file_problem(dir.path / "sub") == (dir.path / "sub").string() + ": is a directory (give a file name)");
  CHECK(output_file_problem(dir.path / "new.json") == "");
  // A dangling link is taken.
  fs::create_symlink(dir.path / "nowhere", dir.path / "link");
  std::string error;
  CHECK(path_taken(dir.path / "link", error));
  CHECK_FALSE(path_taken(dir.path / "free", error));
  CHECK(error.empty());
}

// The catalogue's "survives" and "rejects" scenarios expect only a verdict of ok: these check
// that each really shows what its name says, so that a change which stopped the fault from
// hitting the holder (or the stale write from being sent) cannot pass them unnoticed.
struct CatalogueRun {
  History history;
  std::string target;          // the process of the scenario's first fault
  std::int64_t fault_start_ns = 0;
};

CatalogueRun run_catalogue_scenario(const std::string& name) {
  Scenario s;
  const fs::path file = fs::path(LOCKSTEP_SOURCE_DIR) / "scenarios" / name;
  REQUIRE(load_scenario_file(file, s) == "");
  CatalogueRun r;
  r.history = run_simulation(s.config).history;
  for (const auto& e : r.history.events)
    if (e.kind == EventKind::fault && e.args.value("phase", "") == "start") {
      REQUIRE(e.args.contains("targets"));
      r.target = e.args["targets"][0].get<std::string>();
      r.fault_start_ns = e.true_ns;
      break;
    }
  REQUIRE_FALSE(r.target.empty());
  return r;
}

// Whether `process` holds the lock at `t_ns`: its last acquire that succeeded before t has no
// release invoked between them.
bool holds_at(const History& h, const std::string& process, std::int64_t t_ns) {
  bool holds = false;
  for (const auto& e : h.events) {
    if (e.true_ns > t_ns) break;
    if (e.process != process) continue;
    if (e.op == "acquire" && e.kind == EventKind::ok) holds = true;
    if (e.op == "release" && e.kind == EventKind::invoke) holds = false;
  }
  return holds;
}

TEST_CASE("the catalogue's survival scenarios fault the holder while it holds") {
  for (const char* name : {"etcd-mutex-survives-pause-below-ttl.json",
                           "txn-try-lock-survives-pause-below-ttl.json",
                           "etcd-mutex-crashed-holder-released-by-lease.json",
                           "etcd-mutex-fenced-rejects-stale-write.json",
                           "etcd-mutex-guarded-rejects-stale-write.json"}) {
    INFO(name);
    const CatalogueRun r = run_catalogue_scenario(name);
    CHECK(holds_at(r.history, r.target, r.fault_start_ns));
  }
}

TEST_CASE("the rejects-stale-write scenarios send the paused holder's late write - and refuse it") {
  {
    const CatalogueRun r = run_catalogue_scenario("etcd-mutex-fenced-rejects-stale-write.json");
    // The holder's first write after its pause reaches the resource with a stale token.
    const HistoryEvent* late_write = nullptr;
    for (const auto& e : r.history.events)
      if (e.kind == EventKind::truth && e.op == "resource-write" && e.true_ns > r.fault_start_ns &&
          e.args.value("client", "") == r.target) {
        late_write = &e;
        break;
      }
    REQUIRE(late_write != nullptr);
    CHECK_FALSE(late_write->args.value("accepted", true));
    CHECK(late_write->args.value("reason", "").rfind("stale token", 0) == 0);
  }
  {
    const CatalogueRun r = run_catalogue_scenario("etcd-mutex-guarded-rejects-stale-write.json");
    // The holder's first write after its pause fails its guard: the lock key is gone.
    const HistoryEvent* late_write = nullptr;
    for (const auto& e : r.history.events)
      if (e.process == r.target && e.op == "write" && e.is_completion() &&
          e.true_ns > r.fault_start_ns) {
        late_write = &e;
        break;
      }
    REQUIRE(late_write != nullptr);
    CHECK(late_write->kind == EventKind::fail);
    CHECK(late_write->result.value("error", "") == "rejected");
  }
}

}  // namespace
}  // namespace lockstep
