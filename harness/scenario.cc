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

#include "lockstep/checker/input_file.h"
#include "lockstep/harness/checks.h"
#include "lockstep/harness/json_layout.h"
#include "lockstep/harness/scenario_fields.h"
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

// The first problem found while parsing. Thrown inside this file only (a parser reads better
// without an error check after every field) and turned into a message at its boundary.
struct BadField {
  std::string path;
  std::string message;
};

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// One JSON object of the file: typed getters that name the field's path on error, and a
// check that no unknown field is left.
class Fields {
 public:
  Fields(const nlohmann::json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j_.is_object()) throw BadField{path_, "expected a JSON object"};
  }

  std::string path_of(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  bool has(const std::string& key) const { return j_.contains(key); }
  // Whether an optional field is there; either way it is one of the fields this object knows.
  bool has_optional(const std::string& key) {
    seen_.insert(key);
    return j_.contains(key);
  }

  const nlohmann::json& get(const std::string& key, const std::string& expected) {
    seen_.insert(key);
    if (!j_.contains(key)) throw BadField{path_of(key), "missing (expected " + expected + ")"};
    return j_.at(key);
  }

  std::int64_t integer(const std::string& key, std::int64_t min,
                       std::int64_t max = std::numeric_limits<std::int64_t>::max()) {
    const std::string expected = "an integer >= " + std::to_string(min);
    const auto& v = get(key, expected);
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() >
                                       static_cast<std::uint64_t>(max)))
      throw BadField{path_of(key), v.is_number_integer()
                                       ? "expected an integer <= " + std::to_string(max)
                                       : "expected " + expected};
    const auto x = v.get<std::int64_t>();
    if (x < min) throw BadField{path_of(key), "expected " + expected};
    if (x > max) throw BadField{path_of(key), "expected an integer <= " + std::to_string(max)};
    return x;
  }

  std::uint64_t unsigned64(const std::string& key) {
    const auto& v = get(key, "an integer >= 0");
    if (!v.is_number_unsigned())
      throw BadField{path_of(key), "expected an integer between 0 and 18446744073709551615"};
    return v.get<std::uint64_t>();
  }

  Duration millis(const std::string& key, std::int64_t min_ms, std::int64_t max_ms = kOneDayMs) {
    return milliseconds(integer(key, min_ms, max_ms));
  }
  Duration micros(const std::string& key, std::int64_t min_us, std::int64_t max_us) {
    return microseconds(integer(key, min_us, max_us));
  }

  // A number from 0 to 1 (an integer such as 0 or 1 too).
  double fraction(const std::string& key) {
    const auto& v = get(key, "a number from 0 to 1");
    if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1)
      throw BadField{path_of(key), "expected a number from 0 to 1"};
    return v.get<double>();
  }

  bool boolean(const std::string& key) {
    const auto& v = get(key, "true or false");
    if (!v.is_boolean()) throw BadField{path_of(key), "expected true or false"};
    return v.get<bool>();
  }

  std::string string(const std::string& key) {
    const auto& v = get(key, "a string");
    if (!v.is_string()) throw BadField{path_of(key), "expected a string"};
    return v.get<std::string>();
  }

  // A list of distinct strings, each accepted by `valid` (which names the valid values).
  std::vector<std::string> string_list(const std::string& key,
                                       const std::function<bool(const std::string&)>& valid,
                                       const std::string& valid_values) {
    const auto& v = get(key, "a list of strings");
    if (!v.is_array()) throw BadField{path_of(key), "expected a list of strings"};
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string at = path_of(key) + "[" + std::to_string(i) + "]";
      if (!v[i].is_string()) throw BadField{at, "expected a string"};
      const auto s = v[i].get<std::string>();
      if (!valid(s)) throw BadField{at, "unknown value \"" + s + "\" (known: " + valid_values + ")"};
      for (const auto& earlier : out)
        if (earlier == s) throw BadField{at, "\"" + s + "\" is listed twice"};
      out.push_back(s);
    }
    return out;
  }

  // Refuses fields that were never asked for: a typo must not be silently ignored.
  void finish() const {
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (!seen_.count(it.key()))
        throw BadField{path_of(it.key()),
                       "unknown field (expected one of: " + join({seen_.begin(), seen_.end()}) +
                           ")"};
  }

  void mark_optional(const std::string& key) { seen_.insert(key); }

 private:
  const nlohmann::json& j_;
  std::string path_;
  std::set<std::string> seen_;
};

// Reads every field of scenario_fields.h into `c`: the sections etcd, network and workload
// (each an object of `top`, refusing unknown fields) and the top-level bounds.
void parse_scalar_fields(Fields& top, RunConfig& c) {
  Fields etcd(top.get("etcd", "an object"), "etcd");
  Fields network(top.get("network", "an object"), "network");
  Fields workload(top.get("workload", "an object"), "workload");
  auto section = [&](const ScalarField& field) -> Fields& {
    const std::string name = field.section;
    return name == "etcd" ? etcd : name == "network" ? network : name == "workload" ? workload : top;
  };
  for_each_scalar_field(c, [&](const ScalarField& field, auto& value) {
    Fields& f = section(field);
    if (field.optional && !f.has_optional(field.key)) return;  // RunConfig's default
    using T = std::remove_cvref_t<decltype(value)>;
    if constexpr (std::is_same_v<T, sim::EtcdVersion>) {
      if (!sim::parse_etcd_version(f.string(field.key), value))
        throw BadField{field.path(), "expected \"3.4.23\" or \"3.5.13\""};
    } else if constexpr (std::is_same_v<T, Duration>) {
      value = field.unit == FieldUnit::microseconds ? f.micros(field.key, field.min, field.max)
                                                    : f.millis(field.key, field.min, field.max);
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
    throw BadField{"etcd.members", "expected 1, 3 or 5"};
  if (e.election_timeout <= e.heartbeat_interval)
    throw BadField{"etcd.election_timeout_ms",
                   "expected more than etcd.heartbeat_interval_ms (" +
                       std::to_string(ms(e.heartbeat_interval)) + ")"};
  etcd.finish();
  network.finish();
  workload.finish();
}

void parse_algorithm(Fields f, RunConfig& c) {
  c.algorithm = f.string("name");
  const AlgorithmInfo* info = find_algorithm(c.algorithm);
  if (!info) {
    std::vector<std::string> names;
    for (const auto& a : algorithm_catalogue()) names.push_back(a.name);
    throw BadField{f.path_of("name"),
                   "unknown algorithm \"" + c.algorithm + "\" (known: " + join(names) + ")"};
  }
  const auto& options = f.get("options", "an object of integer options");
  if (!options.is_object()) throw BadField{f.path_of("options"), "expected an object of integer options"};
  for (auto it = options.begin(); it != options.end(); ++it) {
    if (!it.value().is_number_integer() ||
        (it.value().is_number_unsigned() &&
         it.value().get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())))
      throw BadField{f.path_of("options") + "." + it.key(), "expected an integer"};
    c.algorithm_options[it.key()] = it.value().get<std::int64_t>();
  }
  // Options left out take the algorithm's published defaults (resolve_options fills them in).
  if (auto err = resolve_options(*info, c.algorithm_options))
    throw BadField{f.path_of("options"), *err};
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
  if (!j.is_object()) throw BadField{path, "expected a JSON object (a fault)"};
  if (!j.contains("kind") || !j["kind"].is_string())
    throw BadField{path + ".kind", "missing (expected a fault class name, see `lockstep list`)"};
  const std::string kind = j["kind"].get<std::string>();
  if (!sim::is_fault_class(kind)) {
    std::vector<std::string> names;
    for (const auto& c : sim::fault_catalogue()) names.push_back(c.name);
    throw BadField{path + ".kind", "unknown fault class \"" + kind + "\" (known: " + join(names) + ")"};
  }
  const FaultFields fields = fault_fields(kind);
  for (const auto& r : fields.required)
    if (!j.contains(r)) throw BadField{path + "." + r, "missing (a " + kind + " fault needs it)"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (const auto* list : {&fields.required, &fields.optional})
      for (const auto& k : *list) known = known || k == it.key();
    if (!known)
      throw BadField{path + "." + it.key(),
                     "not a field of a " + kind + " fault (its fields: " +
                         join(fields.required) + (fields.optional.empty() ? "" : ", ") +
                         join(fields.optional) + ")"};
  }
  sim::FaultSpec f;
  if (auto err = sim::fault_from_json(j, f)) throw BadField{path, *err};
  if (ms(f.start) + ms(f.duration) > kOneDayMs)
    throw BadField{path, "start_ms + duration_ms: expected at most " + std::to_string(kOneDayMs) +
                             " (one day)"};
  if (ms(f.amount) > kOneDayMs || ms(f.amount) < -kOneDayMs)
    throw BadField{path + ".amount_ms", "expected an integer between -86400000 and 86400000"};
  for (const char* list_name : {"from", "to", "targets"}) {
    const auto& list = std::string(list_name) == "from" ? f.from
                       : std::string(list_name) == "to" ? f.to
                                                        : f.targets;
    for (std::size_t i = 0; i < list.size(); ++i)
      if (!processes.count(list[i]))
        throw BadField{path + "." + list_name + "[" + std::to_string(i) + "]",
                       "unknown process \"" + list[i] + "\" (known: " +
                           join({processes.begin(), processes.end()}) + ")"};
  }
  if (is_network_fault(kind) && f.from.empty() && f.to.empty())
    throw BadField{path, "a " + kind + " fault needs processes in \"from\" or \"to\""};
  if (j.contains("targets") && f.targets.empty())
    throw BadField{path + ".targets", "expected at least one process"};
  if (kind == "lease-drop")
    for (std::size_t i = 0; i < f.targets.size(); ++i)
      if (f.targets[i].rfind("client-", 0) != 0)
        throw BadField{path + ".targets[" + std::to_string(i) + "]",
                       "lease-drop hits clients only, not \"" + f.targets[i] + "\""};
  return f;
}

void parse_expect(Fields f, Scenario& s) {
  if (f.has("verdict")) {
    s.config.expected_verdict = f.string("verdict");
    if (s.config.expected_verdict != "ok" && s.config.expected_verdict != "violated")
      throw BadField{f.path_of("verdict"), "expected \"ok\" or \"violated\""};
  }
  if (f.has("history_hash")) {
    s.expected_history_hash = f.string("history_hash");
    bool hex = s.expected_history_hash.size() == 16;
    for (char ch : s.expected_history_hash) hex = hex && std::isxdigit(static_cast<unsigned char>(ch)) && !std::isupper(static_cast<unsigned char>(ch));
    if (!hex) throw BadField{f.path_of("history_hash"), "expected 16 lower-case hex digits"};
  }
  f.finish();
}

void parse_scenario(const nlohmann::json& j, Scenario& s) {
  s = Scenario{};  // what a file leaves out is the default, whatever `s` held
  Fields f(j, "");
  const auto& format = f.get("format", "\"lockstep-scenario\"");
  if (!format.is_string() || format.get<std::string>() != kScenarioFormat)
    throw BadField{"format", "expected \"lockstep-scenario\""};
  const std::int64_t version = f.integer("version", 1);
  if (version != kScenarioVersion)
    throw BadField{"version", "this lockstep reads version " + std::to_string(kScenarioVersion) +
                                  ", the file is version " + std::to_string(version)};
  if (f.has("description")) s.description = f.string("description");
  if (f.has("client_cmd")) {
    s.client_cmd = f.string("client_cmd");
    if (s.client_cmd.empty()) throw BadField{"client_cmd", "expected a non-empty command"};
  }
  if (f.has("expect")) parse_expect(Fields(f.get("expect", "an object"), "expect"), s);
  RunConfig& c = s.config;
  c.seed = f.unsigned64("seed");
  parse_algorithm(Fields(f.get("algorithm", "an object"), "algorithm"), c);
  const auto lock_name = unescape_bytes(f.string("lock_name"));
  if (!lock_name || lock_name->empty())
    throw BadField{"lock_name", "expected a non-empty key (bytes escaped as \\\\ and \\xNN)"};
  c.lock_name = *lock_name;
  parse_scalar_fields(f, c);
  const auto& known_checks = known_check_names();
  c.checks = f.string_list(
      "checks",
      [&](const std::string& n) {
        return std::find(known_checks.begin(), known_checks.end(), n) != known_checks.end();
      },
      join(known_checks));
  std::vector<std::string> class_names;
  for (const auto& fc : sim::fault_catalogue()) class_names.push_back(fc.name);
  const auto classes = f.string_list(
      "fault_classes", [](const std::string& n) { return sim::is_fault_class(n); }, join(class_names));
  c.fault_classes = {classes.begin(), classes.end()};
  const auto& faults = f.get("faults", "a list of faults");
  if (!faults.is_array()) throw BadField{"faults", "expected a list of faults"};
  const auto processes = process_names(c);
  for (std::size_t i = 0; i < faults.size(); ++i)
    c.faults.push_back(parse_fault(faults[i], "faults[" + std::to_string(i) + "]", processes));
  f.finish();
  // The runner's own validation, last: whatever it refuses must not reach run_simulation.
  if (auto err = validate_run_config(c); !err.empty()) throw BadField{"", err};
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

ojson scenario_ordered(const Scenario& s) {
  const RunConfig& c = s.config;
  if (auto err = scenario_representable(c); !err.empty()) throw std::invalid_argument(err);
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
  } catch (const BadField& e) {
    return source + ": " + (e.path.empty() ? "" : e.path + ": ") + e.message;
  }
}

std::string run_config_from_json(const nlohmann::json& j, const std::string& source,
                                 RunConfig& out) {
  Scenario s;
  auto err = scenario_from_json(j, source, s);
  if (err.empty()) out = std::move(s.config);
  return err;
}

namespace {

// nlohmann keeps the last of two equal keys in an object; a scenario with "seed" twice says two
// things, so the reader refuses it instead (the parser's callback sees every key).
struct DuplicateKey {
  std::string key;
};

}  // namespace

std::string scenario_from_text(const std::string& text, const std::string& source,
                               Scenario& out) {
  nlohmann::json j;
  std::vector<std::set<std::string>> keys_per_open_object;
  const nlohmann::json::parser_callback_t refuse_duplicate_keys =
      [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using E = nlohmann::json::parse_event_t;
        if (event == E::object_start) keys_per_open_object.emplace_back();
        if (event == E::object_end) keys_per_open_object.pop_back();
        if (event == E::key && !keys_per_open_object.back().insert(parsed.get<std::string>()).second)
          throw DuplicateKey{parsed.get<std::string>()};
        return true;
      };
  try {
    j = nlohmann::json::parse(text, refuse_duplicate_keys);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e999
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 3, ..." -> "parse error at line 3, ..."
    if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    return source + ": not valid JSON: " + what;
  } catch (const DuplicateKey& d) {
    return source + ": the key \"" + escape_bytes(d.key) +
           "\" appears twice in one object (which one is meant?)";
  }
  return scenario_from_json(j, source, out);
}

std::string load_scenario_file(const std::filesystem::path& path, Scenario& out) {
  std::string text;
  if (auto err = read_input_file(path, text); !err.empty()) return err;
  return scenario_from_text(text, path.string(), out);
}

std::string save_scenario_file(const std::filesystem::path& path, const Scenario& scenario,
                               bool overwrite) {
  if (!overwrite && std::filesystem::exists(path))
    return path.string() + " already exists; choose another name or pass --force to overwrite";
  if (auto err = scenario_representable(scenario.config); !err.empty())
    return path.string() + ": cannot be written exactly: " + err;
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return "cannot create directory " + path.parent_path().string() + ": " + ec.message();
  const auto tmp = std::filesystem::path(path.string() + ".tmp");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return "cannot write " + tmp.string();
    out << scenario_to_text(scenario);
    if (!out.flush()) return "cannot write " + tmp.string();
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) return "cannot write " + path.string() + ": " + ec.message();
  return {};
}

}  // namespace lockstep
