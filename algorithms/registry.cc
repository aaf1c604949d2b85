#include "lockstep/algorithms/registry.h"

#include <deque>

namespace lockstep {

// Each algorithm's file defines its entry.
AlgorithmInfo txn_try_lock_info();
AlgorithmInfo etcd_mutex_info();
AlgorithmInfo naive_get_put_info();
AlgorithmInfo txn_retry_lock_info();
AlgorithmInfo reentrant_info();
AlgorithmInfo rw_lock_info();
AlgorithmInfo prefix_watch_lock_info();
AlgorithmInfo zk_recipe_info();
AlgorithmInfo etcd_mutex_34_info();
AlgorithmInfo etcd_mutex_fenced_info();
AlgorithmInfo etcd_mutex_guarded_info();
AlgorithmInfo setnx_no_ttl_info();
AlgorithmInfo etcd_mutex_safe_unlock_info();
AlgorithmInfo etcd_mutex_synced_watch_info();
AlgorithmInfo etcd_recipes_rwmutex_info();
AlgorithmInfo fixed_ttl_no_renewal_info();
AlgorithmInfo setnx_then_expire_info();
AlgorithmInfo redisson_reentrant_info();
AlgorithmInfo etcd_lock_rpc_info();

const std::vector<AlgorithmInfo>& algorithm_catalogue() {
  static const std::vector<AlgorithmInfo> catalogue = {
      // The order of `lockstep list`, of the demo and of docs/algorithms.md.
      naive_get_put_info(),
      txn_try_lock_info(),
      txn_retry_lock_info(),
      reentrant_info(),
      redisson_reentrant_info(),
      rw_lock_info(),
      etcd_recipes_rwmutex_info(),
      prefix_watch_lock_info(),
      zk_recipe_info(),
      etcd_mutex_34_info(),
      etcd_mutex_info(),
      etcd_mutex_safe_unlock_info(),
      etcd_mutex_synced_watch_info(),
      etcd_lock_rpc_info(),
      etcd_mutex_fenced_info(),
      etcd_mutex_guarded_info(),
      setnx_no_ttl_info(),
      setnx_then_expire_info(),
      fixed_ttl_no_renewal_info(),
  };
  return catalogue;
}

namespace {
// A deque: find_algorithm() hands out pointers that later registrations must not move.
std::deque<AlgorithmInfo>& registered_algorithms() {
  static std::deque<AlgorithmInfo> registered;
  return registered;
}
}  // namespace

const AlgorithmInfo* find_algorithm(const std::string& name) {
  for (const auto& a : algorithm_catalogue())
    if (a.name == name) return &a;
  for (const auto& a : registered_algorithms())
    if (a.name == name) return &a;
  return nullptr;
}

std::optional<std::string> register_algorithm(AlgorithmInfo info) {
  if (info.name.empty() || !info.make) return "an algorithm needs a name and a make function";
  if (find_algorithm(info.name)) return "an algorithm named \"" + info.name + "\" exists already";
  registered_algorithms().push_back(std::move(info));
  return std::nullopt;
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
  for (const auto& spec : info.options) {
    const auto [value, defaulted] = options.emplace(spec.name, spec.default_value);
    if (!defaulted && (value->second < spec.min_value || value->second > spec.max_value))
      return "option " + spec.name + " of \"" + info.name + "\" must be between " +
             std::to_string(spec.min_value) + " and " + std::to_string(spec.max_value) + ", not " +
             std::to_string(value->second);
  }
  return std::nullopt;
}

}  // namespace lockstep
