#include "lockstep/kv_json/json_fields.h"

#include <utility>

namespace lockstep {

std::string JsonFieldError::line(const std::string& source) const {
  return source + ": " + (path.empty() ? "" : path + ": ") + message;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& s : names) out += (out.empty() ? "" : ", ") + s;
  return out;
}

JsonFields::JsonFields(const nlohmann::json& j, std::string path) : j_(j), path_(std::move(path)) {
  if (!j_.is_object()) throw JsonFieldError{path_, "expected a JSON object"};
}

std::string JsonFields::path_of(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

bool JsonFields::has_optional(const std::string& key) {
  seen_.insert(key);
  return j_.contains(key);
}

const nlohmann::json& JsonFields::get(const std::string& key, const std::string& expected) {
  seen_.insert(key);
  if (!j_.contains(key)) throw JsonFieldError{path_of(key), "missing (expected " + expected + ")"};
  return j_.at(key);
}

std::int64_t JsonFields::integer(const std::string& key, std::int64_t min, std::int64_t max) {
  const std::string expected = "an integer >= " + std::to_string(min);
  const auto& v = get(key, expected);
  const std::string too_large = "expected an integer <= " + std::to_string(max);
  if (!v.is_number_integer()) throw JsonFieldError{path_of(key), "expected " + expected};
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max))
    throw JsonFieldError{path_of(key), too_large};
  const auto x = v.get<std::int64_t>();
  if (x < min) throw JsonFieldError{path_of(key), "expected " + expected};
  if (x > max) throw JsonFieldError{path_of(key), too_large};
  return x;
}

std::uint64_t JsonFields::unsigned64(const std::string& key) {
  const auto& v = get(key, "an integer >= 0");
  if (!v.is_number_unsigned())
    throw JsonFieldError{path_of(key), "expected an integer between 0 and 18446744073709551615"};
  return v.get<std::uint64_t>();
}

double JsonFields::fraction(const std::string& key) {
  const auto& v = get(key, "a number from 0 to 1");
  if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1)
    throw JsonFieldError{path_of(key), "expected a number from 0 to 1"};
  return v.get<double>();
}

bool JsonFields::boolean(const std::string& key) {
  const auto& v = get(key, "true or false");
  if (!v.is_boolean()) throw JsonFieldError{path_of(key), "expected true or false"};
  return v.get<bool>();
}

std::string JsonFields::string(const std::string& key) {
  const auto& v = get(key, "a string");
  if (!v.is_string()) throw JsonFieldError{path_of(key), "expected a string"};
  return v.get<std::string>();
}

std::string JsonFields::one_of(const std::string& key, const std::vector<std::string>& allowed) {
  std::string quoted;
  for (const auto& a : allowed) quoted += (quoted.empty() ? "\"" : ", \"") + a + "\"";
  const auto& v = get(key, "one of " + quoted);
  if (!v.is_string()) throw JsonFieldError{path_of(key), "expected one of " + quoted};
  const std::string s = v.get<std::string>();
  for (const auto& a : allowed)
    if (s == a) return s;
  throw JsonFieldError{path_of(key), "expected one of " + quoted + ", got \"" + s + "\""};
}

JsonFields JsonFields::object(const std::string& key) {
  return JsonFields(get(key, "a JSON object"), path_of(key));
}

std::vector<JsonFields> JsonFields::objects(const std::string& key) {
  const auto& v = get(key, "a list of JSON objects");
  if (!v.is_array()) throw JsonFieldError{path_of(key), "expected a list of JSON objects"};
  std::vector<JsonFields> out;
  for (std::size_t i = 0; i < v.size(); ++i)
    out.emplace_back(v[i], path_of(key) + "[" + std::to_string(i) + "]");
  return out;
}

std::vector<std::string> JsonFields::string_list(const std::string& key,
                                                 const std::function<bool(const std::string&)>& valid,
                                                 const std::string& valid_values) {
  const auto& v = get(key, "a list of strings");
  if (!v.is_array()) throw JsonFieldError{path_of(key), "expected a list of strings"};
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string at = path_of(key) + "[" + std::to_string(i) + "]";
    if (!v[i].is_string()) throw JsonFieldError{at, "expected a string"};
    const auto s = v[i].get<std::string>();
    if (!valid(s)) throw JsonFieldError{at, "unknown value \"" + s + "\" (known: " + valid_values + ")"};
    for (const auto& earlier : out)
      if (earlier == s) throw JsonFieldError{at, "\"" + s + "\" is listed twice"};
    out.push_back(s);
  }
  return out;
}

void JsonFields::finish() const {
  for (auto it = j_.begin(); it != j_.end(); ++it)
    if (!seen_.count(it.key()))
      throw JsonFieldError{path_of(it.key()), "unknown field (expected one of: " +
                                                  join_names({seen_.begin(), seen_.end()}) + ")"};
}

}  // namespace lockstep
