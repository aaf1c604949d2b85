#include "lockstep/cli/algorithm_options.h"

#include <stdexcept>

namespace lockstep::cli {

std::string parse_algorithm_options(const std::vector<std::string>& items, AlgorithmOptions& out) {
  for (const auto& item : items) {
    const auto eq = item.find('=');
    try {
      std::size_t used = 0;
      if (eq == std::string::npos || eq == 0) throw std::invalid_argument("");
      const std::int64_t value = std::stoll(item.substr(eq + 1), &used);
      if (used != item.size() - eq - 1) throw std::invalid_argument("");
      if (!out.emplace(item.substr(0, eq), value).second)
        return "--option " + item.substr(0, eq) + " is given twice";
    } catch (...) {
      return "--option must be NAME=INTEGER, not \"" + item + "\"";
    }
  }
  return {};
}

}  // namespace lockstep::cli
