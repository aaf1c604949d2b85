// The scalar fields of a scenario file (docs/scenario-format.md): every number, flag and
// version of the sections `etcd`, `network` and `workload`, and the top-level bounds, each
// named once with its JSON key, unit and range.
//
// Contract: for_each_scalar_field(config, visit) calls visit(field, member) for each of them,
// in the file's order, with `member` a reference to the RunConfig member it stands for (const
// when `config` is). The scenario reader, writer, run_config_difference and
// scenario_representable (harness/scenario.cc) walk this one list, and harness/scenario_test.cc
// holds docs/scenario.schema.json and the struct definitions to it: a member added to
// EtcdConfig, LatencyConfig or WorkloadConfig without a line here fails that test.
// Why a visitor and not a table of member pointers: the members have six types across three
// structs; a generic lambda sees each with its own type.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "lockstep/harness/run_config.h"

namespace lockstep {

enum class FieldUnit {
  count,         // an integer (int or std::int64_t member) in [min, max]
  unsigned64,    // any unsigned 64-bit integer
  milliseconds,  // a Duration, written as whole milliseconds in [min, max]
  microseconds,  // a Duration, written as whole microseconds in [min, max]
  flag,          // a bool
  fraction,      // a double from 0 to 1
  etcd_version,  // sim::EtcdVersion, written as its release name
};

struct ScalarField {
  const char* section;  // "etcd", "network", "workload", or "" for the top level
  const char* key;      // the JSON key, with its unit: "duration_ms"
  FieldUnit unit;
  std::int64_t min = 0;
  std::int64_t max = std::numeric_limits<std::int64_t>::max();
  // Files written before the field existed leave it out; it then keeps RunConfig's default.
  bool optional = false;

  std::string path() const { return *section ? std::string(section) + "." + key : key; }
};

inline constexpr std::int64_t kScenarioMaxMs = 86'400'000;  // one day
inline constexpr std::int64_t kScenarioMaxUs = 60'000'000;  // one minute

template <class Config, class Visit>  // Config: RunConfig or const RunConfig
void for_each_scalar_field(Config& c, Visit&& visit) {
  using U = FieldUnit;
  constexpr std::int64_t day = kScenarioMaxMs;
  auto& e = c.etcd;
  visit(ScalarField{"etcd", "version", U::etcd_version, 0, 0, true}, e.version);
  visit(ScalarField{"etcd", "members", U::count, 1, 5}, e.members);
  visit(ScalarField{"etcd", "heartbeat_interval_ms", U::milliseconds, 1, day}, e.heartbeat_interval);
  visit(ScalarField{"etcd", "election_timeout_ms", U::milliseconds, 1, day}, e.election_timeout);
  visit(ScalarField{"etcd", "min_lease_ttl_seconds", U::count, 1, 86'400}, e.min_lease_ttl_seconds);
  visit(ScalarField{"etcd", "lease_check_interval_ms", U::milliseconds, 1, day}, e.lease_check_interval);
  visit(ScalarField{"etcd", "server_request_timeout_ms", U::milliseconds, 1, day},
        e.server_request_timeout);
  visit(ScalarField{"etcd", "max_txn_ops", U::count, 1, 1'000'000}, e.max_txn_ops);
  visit(ScalarField{"etcd", "cluster_id", U::unsigned64}, e.cluster_id);
  visit(ScalarField{"etcd", "lease_revoke_delay_ms", U::milliseconds, 0, day}, e.lease_revoke_delay);
  visit(ScalarField{"etcd", "held_cancel_race_probability", U::fraction, 0, 1, true},
        e.held_cancel_race_probability);
  auto& n = c.network;
  visit(ScalarField{"network", "one_way_base_us", U::microseconds, 0, kScenarioMaxUs}, n.one_way_base);
  visit(ScalarField{"network", "one_way_jitter_us", U::microseconds, 0, kScenarioMaxUs},
        n.one_way_jitter);
  auto& w = c.workload;
  visit(ScalarField{"workload", "clients", U::count, 1, 256}, w.clients);
  visit(ScalarField{"workload", "duration_ms", U::milliseconds, 1, day}, w.duration);
  visit(ScalarField{"workload", "max_cycles_per_client", U::count, 0}, w.max_cycles_per_client);
  visit(ScalarField{"workload", "critical_section_ms", U::milliseconds, 0, day}, w.critical_section);
  visit(ScalarField{"workload", "think_time_ms", U::milliseconds, 0, day}, w.think_time);
  visit(ScalarField{"workload", "acquire_timeout_ms", U::milliseconds, 1, day}, w.acquire_timeout);
  visit(ScalarField{"workload", "try_retry_interval_ms", U::milliseconds, 1, day}, w.try_retry_interval);
  visit(ScalarField{"workload", "drain_timeout_ms", U::milliseconds, 0, day}, w.drain_timeout);
  visit(ScalarField{"workload", "request_timeout_ms", U::milliseconds, 1, day}, w.request_timeout);
  visit(ScalarField{"workload", "shared_percent", U::count, 0, 100}, w.shared_percent);
  visit(ScalarField{"workload", "reentrant_depth", U::count, 0, 1000}, w.reentrant_depth);
  visit(ScalarField{"workload", "use_resource", U::flag}, w.use_resource);
  visit(ScalarField{"", "liveness_bound_ms", U::milliseconds, 1, day}, c.liveness_bound);
  visit(ScalarField{"", "extend_load_for_liveness", U::flag, 0, 1, true}, c.extend_load_for_liveness);
}

}  // namespace lockstep
