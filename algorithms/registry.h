// The algorithm registry: every lock of the catalogue by name, with its options.
//
// Contract: names are stable (they appear in scenario files and reports). Each algorithm
// declares its options with the published defaults; make() refuses unknown option names.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/algorithms/lock.h"
#include "lockstep/kv/node_context.h"

namespace lockstep {

// The longest lease TTL an algorithm option may ask for: ten minutes, ten times etcd's
// session default. A run with faults lasts about 2.5 TTLs past its last fault (see
// OptionSpec), so with every fault class a default run (30 s, 3 clients) of any algorithm
// then simulates at most about half an hour, in seconds and a few hundred megabytes.
inline constexpr std::int64_t kMaxLeaseTtlSeconds = 600;

// The shortest pause between a retrying lock's attempts (retry_interval_ms): a retry every
// millisecond is a busy loop; with 64 clients it made a 30 s run take minutes and gigabytes.
inline constexpr std::int64_t kMinRetryIntervalMs = 10;

struct OptionSpec {
  std::string name;   // e.g. "lease_ttl_seconds"
  std::int64_t default_value = 0;
  std::string description;
  // The values resolve_options accepts. By default 1 to kMaxLeaseTtlSeconds (the options
  // left at the default range are all lease TTLs in seconds): a TTL of 0 or less means
  // nothing, and a longer one stretches a run with faults without end (faults last up to
  // 1.5 TTLs and the load goes on for TTL + 20 s after the last one heals: a TTL of a year
  // made `run --faults all` simulate a year and use gigabytes).
  std::int64_t min_value = 1;
  std::int64_t max_value = kMaxLeaseTtlSeconds;
};

// Option values by name; every declared option is present once resolved.
using AlgorithmOptions = std::map<std::string, std::int64_t>;

struct LockSetup {
  std::string lock_name = "/lockstep/lock";  // the key or key prefix the lock uses
  AlgorithmOptions options;                  // resolved: defaults filled in
};

struct AlgorithmInfo {
  std::string name;
  std::string summary;  // one line, for `lockstep list`
  LockCapabilities capabilities;
  std::vector<OptionSpec> options;
  std::function<std::unique_ptr<Lock>(NodeContext&, const LockSetup&)> make;
};

const std::vector<AlgorithmInfo>& algorithm_catalogue();
// Finds an algorithm of the catalogue or one added by register_algorithm().
const AlgorithmInfo* find_algorithm(const std::string& name);

// Adds an algorithm that is not part of the catalogue: a user's own lock class, run by the
// simulator and judged by the checkers like the catalogue's (see examples/). Call it before
// any run, from one thread; the name must be new. Returns an error message or nullopt.
// algorithm_catalogue() keeps listing lockstep's own algorithms only.
std::optional<std::string> register_algorithm(AlgorithmInfo info);

// Fills in defaults; returns an error message naming an unknown option, or nullopt.
std::optional<std::string> resolve_options(const AlgorithmInfo& info, AlgorithmOptions& options);

}  // namespace lockstep
