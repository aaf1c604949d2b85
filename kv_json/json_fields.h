// Reading the JSON objects of lockstep's own file formats (scenarios, verdicts): typed getters
// that name the field's JSON path when it is wrong, and a check that no unknown field is left.
//
// Contract: a getter returns the field's value, or throws JsonFieldError{path, message} on
// the first problem: the path of the field ("workload.clients", "checks[1].status") and what
// was expected ("expected an integer >= 1"). The reader of a file catches it once, at its
// boundary, and reports one line "<file>: <path>: <message>" (JsonFieldError::line). A getter
// marks its field as known; finish() refuses any field never asked for, so a typo in a file is
// an error, not a silently ignored setting.
// Why exceptions: a parser reads better without an error check after every field, and the
// error never travels beyond the function that reads the file.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lockstep {

struct JsonFieldError {
  std::string path;  // empty: the whole document
  std::string message;
  // "<source>: <path>: <message>" (no path part for the whole document).
  std::string line(const std::string& source) const;
};

class JsonFields {
 public:
  // `j` must be an object (else JsonFieldError at `path`); it must outlive this reader.
  JsonFields(const nlohmann::json& j, std::string path);

  std::string path_of(const std::string& key) const;
  bool has(const std::string& key) const { return j_.contains(key); }
  // Whether an optional field is there; either way it is one of the fields this object knows.
  bool has_optional(const std::string& key);
  // The field's JSON value, required; `expected` says what it should be when it is missing.
  const nlohmann::json& get(const std::string& key, const std::string& expected);

  std::int64_t integer(const std::string& key, std::int64_t min,
                       std::int64_t max = std::numeric_limits<std::int64_t>::max());
  std::uint64_t unsigned64(const std::string& key);
  double fraction(const std::string& key);  // a number from 0 to 1
  bool boolean(const std::string& key);
  std::string string(const std::string& key);
  // A string that is one of `allowed`.
  std::string one_of(const std::string& key, const std::vector<std::string>& allowed);
  // A JSON object, read by a reader of its own (at this field's path).
  JsonFields object(const std::string& key);
  // A list of JSON objects, each read by a reader of its own (at "key[i]").
  std::vector<JsonFields> objects(const std::string& key);
  // A list of distinct strings, each accepted by `valid` (`valid_values` names them).
  std::vector<std::string> string_list(const std::string& key,
                                       const std::function<bool(const std::string&)>& valid,
                                       const std::string& valid_values);

  // Refuses fields that were never asked for.
  void finish() const;

 private:
  const nlohmann::json& j_;
  std::string path_;
  std::set<std::string> seen_;
};

// "a, b, c"
std::string join_names(const std::vector<std::string>& names);

}  // namespace lockstep
