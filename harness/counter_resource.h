// CounterResource: the protected resource's rules, with no transport. The simulated service
// (sim_resource.h) and the real runner's in-process service (real_run/resource.h) both serve
// requests through it, so the two backends judge tokens and record truth the same way.
//
// Contract: a counter, the highest token seen, and a count of accepted writes. When fenced,
// any call (read or write) whose token is lower than the highest seen is rejected. Each
// served call is described by truth_args() for the history's "resource-read" /
// "resource-write" truth event.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace lockstep {

class CounterResource {
 public:
  explicit CounterResource(bool fenced) : fenced_(fenced) {}

  struct Reply {
    bool accepted = false;
    std::int64_t value = 0;  // the counter after the call
    std::int64_t order = 0;  // for an accepted write: its position among accepted writes
    std::string reason;      // for a rejected call
  };

  Reply serve(bool is_write, std::int64_t base, std::int64_t value, std::int64_t token);

  static const char* truth_op(bool is_write) { return is_write ? "resource-write" : "resource-read"; }
  nlohmann::json truth_args(const std::string& client, bool is_write, std::int64_t base,
                            std::int64_t value, std::int64_t token, const Reply& reply) const;

 private:
  bool fenced_;
  std::int64_t counter_ = 0;
  std::int64_t highest_token_ = 0;
  std::int64_t writes_ = 0;
};

}  // namespace lockstep
