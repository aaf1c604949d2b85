// A readable layout for the JSON files people read (scenarios): objects indented one key per
// line, but arrays of scalars and the objects inside arrays on one line each, so that a fault
// schedule reads as one fault per line. Keys keep the order of the ordered_json.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace lockstep {

// Ends with a newline. Strings are escaped as nlohmann::json::dump() escapes them.
std::string readable_json_text(const nlohmann::ordered_json& value);

}  // namespace lockstep
