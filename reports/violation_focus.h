// Where in a run each violated check points: the instants and processes its witness names.
//
// Contract: works for any check in verdict.json without knowing its witness layout. It walks
// the witness and takes as instants: integers under keys ending in "_ns" that name a moment
// (not a duration: "*bound_ns", "idle_ns", "*duration*", "*overlap_ns"), and event indices
// under keys "event" or ending in "_event" (looked up in the history); as processes: strings
// under "process", "client" or "*_by", and any string equal to a process of the history.
// The highlighted span ("core") is the witness's "overlap_start_ns".."overlap_end_ns" when it
// has them (the mutex check), else the span of every instant found. The context span is the
// span of every instant: what to zoom to so the whole story is on screen. A witness that says
// when faults healed ("heal_ns", the liveness check) is about everything after that instant, so
// its context runs to the end of the history.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lockstep/checker/history.h"

namespace lockstep::reports {

struct ViolationFocus {
  std::string check;            // the check's name
  std::string summary;          // the check's one sentence
  bool located = false;         // false: the witness named no instant; spans cover the run
  std::int64_t core_start_ns = 0;
  std::int64_t core_end_ns = 0;
  std::int64_t context_start_ns = 0;
  std::int64_t context_end_ns = 0;
  std::vector<std::string> processes;
};

// One per check whose status is "violated", in verdict order.
std::vector<ViolationFocus> violation_foci(const History& history, const nlohmann::json& verdict);

}  // namespace lockstep::reports
