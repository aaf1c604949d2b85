// Shared by the fuzz targets: after a parser accepts an input, push the history through the
// rest of `lockstep check` (every model's adapter, and a budgeted search when it is small), so
// that whatever a parser lets through is also exercised downstream.
#pragma once

#include "lockstep/checker/linearizability_check.h"

namespace lockstep::fuzz {

inline void check_downstream(const LoadedHistory& loaded) {
  for (auto model : {ModelKind::mutex, ModelKind::fenced_mutex, ModelKind::cas_register,
                     ModelKind::kv, ModelKind::etcd}) {
    // The search is exponential by nature: only small histories, and a budget.
    if (loaded.history.events.size() > 40) {
      (void)history_partitions(loaded.history, model, loaded.event_lines);
      continue;
    }
    Budget budget;
    budget.time_seconds = 0.05;
    budget.memory_bytes = 64 << 20;
    (void)check_history(loaded, model, budget);
  }
  std::string why;
  (void)detect_model(loaded.history, why);
}

}  // namespace lockstep::fuzz
