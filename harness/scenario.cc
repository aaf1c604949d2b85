#include "lockstep/harness/scenario.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "lockstep/checker/history.h"
#include "lockstep/checker/input_file.h"
#include "lockstep/harness/checks.h"
#include "lockstep/harness/json_layout.h"
#include "lockstep/harness/output_file.h"
#include "lockstep/harness/scenario_fields.h"
#include "lockstep/kv_json/json_fields.h"
#include "lockstep/harness/sim_runner.h"
#include "lockstep/kv/types.h"

namespace lockstep {

namespace {

using ojson = nlohmann::ordered_json;

constexpr std::int64_t kOneDayMs = kScenarioMaxMs;  // the longest time a file may give

std::int64_t ms(Duration d) { return to_ms(d); }
std::int64_t us(Duration d) {
  return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

bool is_network_fault(const std::string& kind) {
  return kind == "partition" || kind == "delay" || kind == "loss" || kind == "duplicate" ||
         kind == "reorder";
}

// The fields a fault of each class has in a file: required ones, and optional ones (which
// fault_to_json leaves out at their default). Anything else is refused, so that every parsed
// fault is written back the same way.
struct FaultFields {
  std::vector<std::string> required;
  std::vector<std::string> optional;
};

FaultFields fault_fields(const std::string& kind) {
  FaultFields f;
  f.required = {"kind", "start_ms", "duration_ms"};
  if (is_network_fault(kind)) {
    f.required.insert(f.required.end(), {"from", "to", "symmetric"});
    if (kind == "loss" || kind == "duplicate") f.required.push_back("probability");
    if (kind == "delay" || kind == "reorder") f.optional.push_back("amount_ms");
  } else if (kind == "pause" || kind == "crash" || kind == "lease-drop") {
    f.required.push_back("targets");
  } else if (kind == "clock") {
    f.required.insert(f.required.end(), {"targets", "rate_ppm", "clock"});
    f.optional.push_back("amount_ms");
  } else if (kind == "compaction") {
    f.required.push_back("revision");
  } else if (kind == "slow-revoke") {
    f.optional.push_back("amount_ms");
  }
  return f;
}

// Reads every field of scenario_fields.h into `c`: the sections etcd, network and workload
// (each an object of `top`, refusing unknown fields) and the top-level bounds.
void parse_scalar_fields(JsonFields& top, RunConfig& c) {
  JsonFields etcd(top.get("etcd", "an object"), "etcd");
  JsonFields network(top.get("network", "an object"), "network");
  JsonFields workload(top.get("workload", "an object"), "workload");
  auto section = [&](const ScalarField& field) -> JsonFields& {
    const std::string name = field.section;
    return name == "etcd" ? etcd : name == "network" ? network : name == "workload" ? workload : top;
  };
  for_each_scalar_field(c, [&](const ScalarField& field, auto& value) {
    JsonFields& f = section(field);
    if (field.optional && !f.has_optional(field.key)) return;  // RunConfig's default
    using T = std::remove_cvref_t<decltype(value)>;
    if constexpr (std::is_same_v<T, sim::EtcdVersion>) {
      if (!sim::parse_etcd_version(f.string(field.key), value))
        throw JsonFieldError{field.path(), "expected \"3.4.23\" or \"3.5.13\""};
    } else if constexpr (std::is_same_v<T, Duration>) {
      const std::int64_t n = f.integer(field.key, field.min, field.max);
      value = field.unit == FieldUnit::microseconds ? microseconds(n) : milliseconds(n);
    } else if constexpr (std::is_same_v<T, bool>) {
      value = f.boolean(field.key);
    } else if constexpr (std::is_same_v<T, double>) {
      value = f.fraction(field.key);
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
      value = f.unsigned64(field.key);
    } else {
      value = static_cast<T>(f.integer(field.key, field.min, field.max));
    }
  });
  // What one field's range cannot say.
  const sim::EtcdConfig& e = c.etcd;
  if (e.members != 1 && e.members != 3 && e.members != 5)
    throw JsonFieldError{"etcd.members", "expected 1, 3 or 5"};
  if (e.election_timeout <= e.heartbeat_interval)
    throw JsonFieldError{"etcd.election_timeout_ms",
                   "expected more than etcd.heartbeat_interval_ms (" +
                       std::to_string(ms(e.heartbeat_interval)) + ")"};
  etcd.finish();
  network.finish();
  workload.finish();
}

void parse_algorithm(JsonFields f, RunConfig& c) {
  c.algorithm = f.string("name");
  const AlgorithmInfo* info = find_algorithm(c.algorithm);
  if (!info) {
    std::vector<std::string> names;
    for (const auto& a : algorithm_catalogue()) names.push_back(a.name);
    throw JsonFieldError{f.path_of("name"),
                   "unknown algorithm \"" + c.algorithm + "\" (known: " + join_names(names) + ")"};
  }
  const auto& options = f.get("options", "an object of integer options");
  if (!options.is_object()) throw JsonFieldError{f.path_of("options"), "expected an object of integer options"};
  for (auto it = options.begin(); it != options.end(); ++it) {
    if (!it.value().is_number_integer() ||
        (it.value().is_number_unsigned() &&
         it.value().get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())))
      throw JsonFieldError{f.path_of("options") + "." + it.key(), "expected an integer"};
    c.algorithm_options[it.key()] = it.value().get<std::int64_t>();
  }
  // Options left out take the algorithm's published defaults (resolve_options fills them in).
  if (auto err = resolve_options(*info, c.algorithm_options))
    throw JsonFieldError{f.path_of("options"), *err};
  f.finish();
}

// The names of the processes a run has, which faults may name.
std::set<std::string> process_names(const RunConfig& c) {
  std::set<std::string> names;
  for (int i = 0; i < c.etcd.members; ++i) names.insert("member-" + std::to_string(i));
  for (int i = 0; i < c.workload.clients; ++i) names.insert("client-" + std::to_string(i));
  names.insert("resource");  // the protected resource's service is always there
  return names;
}

sim::FaultSpec parse_fault(const nlohmann::json& j, const std::string& path,
                           const std::set<std::string>& processes) {
  if (!j.is_object()) throw JsonFieldError{path, "expected a JSON object (a fault)"};
  if (!j.contains("kind") || !j["kind"].is_string())
    throw JsonFieldError{path + ".kind", "missing (expected a fault class name, see `lockstep list`)"};
  const std::string kind = j["kind"].get<std::string>();
  if (!sim::is_fault_class(kind)) {
    std::vector<std::string> names;
    for (const auto& c : sim::fault_catalogue()) names.push_back(c.name);
    throw JsonFieldError{path + ".kind", "unknown fault class \"" + kind + "\" (known: " + join_names(names) + ")"};
  }
  const FaultFields fields = fault_fields(kind);
  for (const auto& r : fields.required)
    if (!j.contains(r)) throw JsonFieldError{path + "." + r, "missing (a " + kind + " fault needs it)"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (const auto* list : {&fields.required, &fields.optional})
      for (const auto& k : *list) known = known || k == it.key();
    if (!known)
      throw JsonFieldError{path + "." + it.key(),
                     "not a field of a " + kind + " fault (its fields: " +
                         join_names(fields.required) + (fields.optional.empty() ? "" : ", ") +
                         join_names(fields.optional) + ")"};
  }
  // Each field of the class, read and typed; which ones the class has was checked above.
  JsonFields fields_of(j, path);
  sim::FaultSpec f;
  f.kind = fields_of.string("kind");
  f.start = milliseconds(fields_of.integer("start_ms", 0, kOneDayMs));
  f.duration = milliseconds(fields_of.integer("duration_ms", 0, kOneDayMs));
  if (ms(f.start) + ms(f.duration) > kOneDayMs)
    throw JsonFieldError{path, "start_ms + duration_ms: expected at most " + std::to_string(kOneDayMs) +
                             " (one day)"};
  if (sim::is_instant_fault(kind) && f.duration != Duration(0))
    throw JsonFieldError{path + ".duration_ms", "expected 0: a " + kind + " fault is instant"};
  if (fields_of.has_optional("amount_ms")) {
    // Only a clock's jump may go back.
    f.amount = milliseconds(fields_of.integer("amount_ms", kind == "clock" ? -kOneDayMs : 0, kOneDayMs));
  }
  // Lists of the run's processes (names repeated are harmless: a process is faulted once).
  auto processes_in = [&](const char* list_name, std::vector<std::string>& out) {
    if (!fields_of.has_optional(list_name)) return;
    const nlohmann::json& list = fields_of.get(list_name, "a list of process names");
    const std::string at = fields_of.path_of(list_name);
    if (!list.is_array()) throw JsonFieldError{at, "expected a list of process names"};
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string item = at + "[" + std::to_string(i) + "]";
      if (!list[i].is_string()) throw JsonFieldError{item, "expected a process name"};
      const std::string name = list[i].get<std::string>();
      if (!processes.count(name))
        throw JsonFieldError{item, "unknown process \"" + name + "\" (known: " +
                                       join_names({processes.begin(), processes.end()}) + ")"};
      out.push_back(name);
    }
  };
  processes_in("from", f.from);
  processes_in("to", f.to);
  processes_in("targets", f.targets);
  if (fields_of.has_optional("symmetric")) f.symmetric = fields_of.boolean("symmetric");
  if (fields_of.has_optional("probability")) f.probability = fields_of.fraction("probability");
  if (fields_of.has_optional("rate_ppm")) {
    f.rate_ppm = fields_of.integer("rate_ppm", 0);
    // A clock 100 times fast already makes every timer fire 100 times as often; faster ones
    // would only grow the run without end.
    if (f.rate_ppm > sim::kMaxClockRatePpm)
      throw JsonFieldError{fields_of.path_of("rate_ppm"),
                           "expected at most " + std::to_string(sim::kMaxClockRatePpm) +
                               " (a clock 100 times fast; 1000000 is nominal, 0 unchanged)"};
  }
  if (fields_of.has_optional("clock")) f.clock = fields_of.one_of("clock", {"monotonic", "wall", "both"});
  if (fields_of.has_optional("revision")) f.revision = fields_of.integer("revision", 0);
  if (is_network_fault(kind) && f.from.empty() && f.to.empty())
    throw JsonFieldError{path, "a " + kind + " fault needs processes in \"from\" or \"to\""};
  if (j.contains("targets") && f.targets.empty())
    throw JsonFieldError{path + ".targets", "expected at least one process"};
  if (kind == "lease-drop")
    for (std::size_t i = 0; i < f.targets.size(); ++i)
      if (f.targets[i].rfind("client-", 0) != 0)
        throw JsonFieldError{path + ".targets[" + std::to_string(i) + "]",
                       "lease-drop hits clients only, not \"" + f.targets[i] + "\""};
  return f;
}

void parse_expect(JsonFields f, Scenario& s) {
  if (f.has("verdict")) {
    s.config.expected_verdict = f.string("verdict");
    if (s.config.expected_verdict != "ok" && s.config.expected_verdict != "violated")
      throw JsonFieldError{f.path_of("verdict"), "expected \"ok\" or \"violated\""};
  }
  if (f.has("history_hash")) {
    s.expected_history_hash = f.string("history_hash");
    bool hex = s.expected_history_hash.size() == 16;
    for (char ch : s.expected_history_hash) hex = hex && std::isxdigit(static_cast<unsigned char>(ch)) && !std::isupper(static_cast<unsigned char>(ch));
    if (!hex) throw JsonFieldError{f.path_of("history_hash"), "expected 16 lower-case hex digits"};
  }
  f.finish();
}

void parse_scenario(const nlohmann::json& j, Scenario& s) {
  s = Scenario{};  // what a file leaves out is the default, whatever `s` held
  JsonFields f(j, "");
  const auto& format = f.get("format", "\"lockstep-scenario\"");
  if (!format.is_string() || format.get<std::string>() != kScenarioFormat)
    throw JsonFieldError{"format", "expected \"lockstep-scenario\""};
  const std::int64_t version = f.integer("version", 1);
  if (version != kScenarioVersion)
    throw JsonFieldError{"version", "this lockstep reads version " + std::to_string(kScenarioVersion) +
                                  ", the file is version " + std::to_string(version)};
  if (f.has("description")) s.description = f.string("description");
  if (f.has("client_cmd")) {
    s.client_cmd = f.string("client_cmd");
    if (s.client_cmd.empty()) throw JsonFieldError{"client_cmd", "expected a non-empty command"};
  }
  if (f.has("expect")) parse_expect(JsonFields(f.get("expect", "an object"), "expect"), s);
  RunConfig& c = s.config;
  c.seed = f.unsigned64("seed");
  parse_algorithm(JsonFields(f.get("algorithm", "an object"), "algorithm"), c);
  const auto lock_name = unescape_bytes(f.string("lock_name"));
  if (!lock_name || lock_name->empty())
    throw JsonFieldError{"lock_name", "expected a non-empty key (bytes escaped as \\\\ and \\xNN)"};
  c.lock_name = *lock_name;
  parse_scalar_fields(f, c);
  const auto& known_checks = known_check_names();
  c.checks = f.string_list(
      "checks",
      [&](const std::string& n) {
        return std::find(known_checks.begin(), known_checks.end(), n) != known_checks.end();
      },
      join_names(known_checks));
  std::vector<std::string> class_names;
  for (const auto& fc : sim::fault_catalogue()) class_names.push_back(fc.name);
  const auto classes = f.string_list(
      "fault_classes", [](const std::string& n) { return sim::is_fault_class(n); }, join_names(class_names));
  c.fault_classes = {classes.begin(), classes.end()};
  const auto& faults = f.get("faults", "a list of faults");
  if (!faults.is_array()) throw JsonFieldError{"faults", "expected a list of faults"};
  const auto processes = process_names(c);
  for (std::size_t i = 0; i < faults.size(); ++i)
    c.faults.push_back(parse_fault(faults[i], "faults[" + std::to_string(i) + "]", processes));
  f.finish();
  // The runner's own validation, last: whatever it refuses must not reach run_simulation.
  if (auto err = validate_run_config(c); !err.empty()) throw JsonFieldError{"", err};
}

ojson fault_ordered(const sim::FaultSpec& fault) {
  // fault_to_json decides which fields a fault has; this only fixes a readable key order.
  static const char* kOrder[] = {"kind",      "start_ms", "duration_ms", "targets",
                                 "from",      "to",       "symmetric",   "probability",
                                 "amount_ms", "rate_ppm", "clock",       "revision"};
  const nlohmann::json j = sim::fault_to_json(fault);
  ojson out = ojson::object();
  for (const char* key : kOrder)
    if (j.contains(key)) out[key] = ojson::parse(j[key].dump());
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!out.contains(it.key())) out[it.key()] = ojson::parse(it.value().dump());
  return out;
}

// The file's JSON, whether or not it can be read back (scenario_ordered checks first).
ojson scenario_ordered_unchecked(const Scenario& s) {
  const RunConfig& c = s.config;
  ojson j = ojson::object();
  j["format"] = kScenarioFormat;
  j["version"] = kScenarioVersion;
  if (!s.description.empty()) j["description"] = s.description;
  if (!s.client_cmd.empty()) j["client_cmd"] = s.client_cmd;
  ojson expect = ojson::object();
  if (!c.expected_verdict.empty()) expect["verdict"] = c.expected_verdict;
  if (!s.expected_history_hash.empty()) expect["history_hash"] = s.expected_history_hash;
  j["expect"] = expect;
  j["seed"] = c.seed;
  ojson options = ojson::object();
  for (const auto& [name, value] : c.algorithm_options) options[name] = value;
  j["algorithm"] = {{"name", c.algorithm}, {"options", options}};
  j["lock_name"] = escape_bytes(c.lock_name);
  // Placeholders fix the sections' place; the top-level bounds follow "checks".
  j["etcd"] = ojson::object();
  j["network"] = ojson::object();
  j["workload"] = ojson::object();
  j["checks"] = c.checks;
  for_each_scalar_field(c, [&](const ScalarField& field, const auto& value) {
    ojson& section = *field.section ? j[field.section] : j;
    using T = std::remove_cvref_t<decltype(value)>;
    if constexpr (std::is_same_v<T, sim::EtcdVersion>)
      section[field.key] = sim::etcd_version_name(value);
    else if constexpr (std::is_same_v<T, Duration>)
      section[field.key] = field.unit == FieldUnit::microseconds ? us(value) : ms(value);
    else
      section[field.key] = value;
  });
  j["fault_classes"] = c.fault_classes;
  j["faults"] = ojson::array();
  for (const auto& f : c.faults) j["faults"].push_back(fault_ordered(f));
  return j;
}

ojson scenario_ordered(const Scenario& s) {
  if (auto err = scenario_representable(s.config); !err.empty()) throw std::invalid_argument(err);
  return scenario_ordered_unchecked(s);
}

}  // namespace

const std::vector<std::string>& known_check_names() { return all_check_names(); }

std::string scenario_representable(const RunConfig& c) {
  auto whole_ms = [](Duration d) { return d % milliseconds(1) == Duration(0); };
  std::string problem;
  for_each_scalar_field(c, [&](const ScalarField& field, const auto& value) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(value)>, Duration>) {
      const bool in_us = field.unit == FieldUnit::microseconds;
      if (problem.empty() && value % (in_us ? microseconds(1) : milliseconds(1)) != Duration(0))
        problem = field.path() + " is not a whole number of " +
                  (in_us ? "microseconds" : "milliseconds");
    }
  });
  if (!problem.empty()) return problem;
  for (std::size_t i = 0; i < c.faults.size(); ++i) {
    const auto& f = c.faults[i];
    if (!whole_ms(f.start) || !whole_ms(f.duration) || !whole_ms(f.amount))
      return "fault " + std::to_string(i) + " has times that are not whole milliseconds";
  }
  // Then the reader itself, on the file this config would be: whatever it refuses (a
  // liveness bound or a fault end past one day, an option out of its range) is not written,
  // so that `replay` reads back every scenario.json lockstep writes. One validation for both.
  Scenario written;
  written.config = c;
  Scenario back;
  try {
    parse_scenario(nlohmann::json::parse(scenario_ordered_unchecked(written).dump()), back);
  } catch (const JsonFieldError& e) {
    return e.path.empty() ? e.message : e.path + ": " + e.message;
  }
  return {};
}

std::string run_config_difference(const RunConfig& a, const RunConfig& b) {
  // Each scalar field of `a`, then of `b`, in the same order, as comparable values.
  using Value = std::variant<std::int64_t, std::uint64_t, Duration, bool, double, sim::EtcdVersion>;
  auto scalars = [](const RunConfig& c) {
    std::vector<std::pair<std::string, Value>> out;
    for_each_scalar_field(c, [&](const ScalarField& field, const auto& value) {
      using T = std::remove_cvref_t<decltype(value)>;
      if constexpr (std::is_same_v<T, int>)
        out.emplace_back(field.path(), Value(std::int64_t{value}));
      else
        out.emplace_back(field.path(), Value(value));
    });
    return out;
  };
  const std::pair<const char*, bool> same_before[] = {
      {"seed", a.seed == b.seed},
      {"algorithm.name", a.algorithm == b.algorithm},
      {"algorithm.options", a.algorithm_options == b.algorithm_options},
      {"lock_name", a.lock_name == b.lock_name},
  };
  for (const auto& [path, equal] : same_before)
    if (!equal) return path;
  const auto scalars_a = scalars(a), scalars_b = scalars(b);
  for (std::size_t i = 0; i < scalars_a.size(); ++i)
    if (scalars_a[i].second != scalars_b[i].second) return scalars_a[i].first;
  const std::pair<const char*, bool> same[] = {
      {"checks", a.checks == b.checks},
      {"fault_classes", a.fault_classes == b.fault_classes},
      {"expect.verdict", a.expected_verdict == b.expected_verdict},
  };
  for (const auto& [path, equal] : same)
    if (!equal) return path;
  if (a.faults.size() != b.faults.size()) return "faults";
  for (std::size_t i = 0; i < a.faults.size(); ++i)
    if (!(a.faults[i] == b.faults[i])) return "faults[" + std::to_string(i) + "]";
  return {};
}

nlohmann::json scenario_to_json(const Scenario& scenario) {
  return nlohmann::json::parse(scenario_ordered(scenario).dump());
}

std::string scenario_to_text(const Scenario& scenario) {
  return readable_json_text(scenario_ordered(scenario));
}

nlohmann::json run_config_to_json(const RunConfig& config) {
  Scenario s;
  s.config = config;
  return scenario_to_json(s);
}

std::string scenario_from_json(const nlohmann::json& j, const std::string& source, Scenario& out) {
  try {
    parse_scenario(j, out);
    return {};
  } catch (const JsonFieldError& e) {
    return e.line(source);
  }
}

std::string run_config_from_json(const nlohmann::json& j, const std::string& source,
                                 RunConfig& out) {
  Scenario s;
  auto err = scenario_from_json(j, source, s);
  if (err.empty()) out = std::move(s.config);
  return err;
}

std::string scenario_from_text(const std::string& text, const std::string& source,
                               Scenario& out) {
  // A scenario with "seed" twice says two things: refused, as a history line is (a key given
  // twice before a syntax error is the error named).
  const auto twice = [&source](const std::string& key) {
    return source + ": the key \"" + escape_bytes(key) + "\" appears twice in one object (which one is meant?)";
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e999
    if (const std::string key = first_duplicate_json_key(text); !key.empty()) return twice(key);
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 3, ..." -> "parse error at line 3, ..."
    if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    return source + ": not valid JSON: " + what;
  }
  if (const std::string key = first_duplicate_json_key(text); !key.empty()) return twice(key);
  return scenario_from_json(j, source, out);
}

std::string load_scenario_file(const std::filesystem::path& path, Scenario& out) {
  std::string text;
  if (auto err = read_input_file(path, text); !err.empty()) return err;
  return scenario_from_text(text, path.string(), out);
}

std::string save_scenario_file(const std::filesystem::path& path, const Scenario& scenario,
                               bool overwrite) {
  std::string taken_error;
  const bool taken = path_taken(path, taken_error);  // a dangling link is taken too
  if (!taken_error.empty()) return taken_error;
  if (!overwrite && taken)
    return path.string() + " already exists; choose another name or pass --force to overwrite";
  if (auto err = scenario_representable(scenario.config); !err.empty())
    return path.string() + ": cannot be written exactly: " + err;
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return "cannot create directory " + path.parent_path().string() + ": " + ec.message();
  return write_file_replacing(path, scenario_to_text(scenario));
}

}  // namespace lockstep
