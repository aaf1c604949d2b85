// Putting text into HTML safely (the reports, and the demo's index page).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace lockstep::reports {

// Escapes &, <, >, " and ' for element text and attribute values.
std::string html_escape(const std::string& text);

// JSON text safe inside <script type="application/json">: '<', '>' and '&' become \u escapes
// (so no "</script>" can end the element early); invalid UTF-8 is replaced, never thrown on.
std::string json_for_script(const nlohmann::json& j);

}  // namespace lockstep::reports
