// The mutual-exclusion check: no two clients believe they hold the lock at the same time.
//
// Contract: a client believes it holds the lock from the completion of a successful acquire
// (`ok` event of op "acquire") until the invocation of its next "release", until its process
// crashes (a `fault` event "crash" with phase "start" naming it in args.targets, or whose
// own process it is), or until the end of the history. These
// believed-holding intervals, on the true clock, must not overlap between different clients,
// except two holders in mode "shared" (args.mode) of a reader/writer lock.
// A reentrant holder's belief lasts until the release that matches its first acquire.
// Indeterminate acquires (`info`) give no belief: the client was not told it holds the lock,
// so it must not act as the holder; they are counted, never dropped silently.
// Closed intervals: an acquire completing at the same instant as another client's release is
// invoked counts as overlapping, since nothing orders the two.
#pragma once

#include "lockstep/checker/check_result.h"
#include "lockstep/checker/history.h"

namespace lockstep {

struct HoldingInterval {
  std::string process;
  bool shared = false;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;      // INT64_MAX when still held at the end of the history
  std::int64_t start_event = 0; // index of the acquire's ok event
  std::int64_t end_event = -1;  // index of the release invoke or crash, -1 if none
  std::string ended_by;         // "release", "crash", "end-of-history"
};

std::vector<HoldingInterval> believed_holding_intervals(const History& history);

CheckResult check_mutual_exclusion(const History& history);

}  // namespace lockstep
