#include "algorithms/registry.h"

namespace lockstep {

// Each algorithm's file defines its entry.
AlgorithmInfo txn_try_lock_info();
AlgorithmInfo etcd_mutex_info();

const std::vector<AlgorithmInfo>& algorithm_catalogue() {
  static const std::vector<AlgorithmInfo> catalogue = {
      txn_try_lock_info(),
      etcd_mutex_info(),
  };
  return catalogue;
}

const AlgorithmInfo* find_algorithm(const std::string& name) {
  for (const auto& a : algorithm_catalogue())
    if (a.name == name) return &a;
  return nullptr;
}

std::optional<std::string> resolve_options(const AlgorithmInfo& info, AlgorithmOptions& options) {
  for (const auto& [name, value] : options) {
    bool known = false;
    for (const auto& spec : info.options) known = known || spec.name == name;
    if (!known) {
      std::string names;
      for (const auto& spec : info.options) names += (names.empty() ? "" : ", ") + spec.name;
      return "algorithm \"" + info.name + "\" has no option \"" + name + "\" (its options: " +
             (names.empty() ? "none" : names) + ")";
    }
  }
  for (const auto& spec : info.options) options.emplace(spec.name, spec.default_value);
  return std::nullopt;
}

}  // namespace lockstep
