// Keeping the timeline small enough to open quickly, whatever the history's size.
//
// Contract: a timeline with at most `full_detail_items` items is left alone. A larger one
// keeps full detail inside the window around the violations (their context spans, padded)
// and merges everything else: within each lane, row and item kind, items closer than a gap
// become one item with a count (the gap starts at the run's span / `coarse_columns`, about a
// pixel of the whole-run view, and doubles until at most `coarse_items` remain). Inside the
// window, if more than `detail_items` items fall there, they are merged the same way at the
// window's own scale. Fault bands are merged by kind and lanes with the same rules. Merging
// never moves an instant: a merged item spans from its first member's start to its last
// member's end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lockstep/reports/timeline_model.h"
#include "lockstep/reports/violation_focus.h"

namespace lockstep::reports {

struct AggregateOptions {
  std::size_t full_detail_items = 25'000;
  std::size_t detail_items = 20'000;
  std::size_t coarse_items = 20'000;
  std::int64_t coarse_columns = 1'500;
};

struct AggregateOutcome {
  bool aggregated = false;
  bool has_window = false;
  std::int64_t window_start_ns = 0;
  std::int64_t window_end_ns = 0;
  std::int64_t coarse_gap_ns = 0;
  std::int64_t window_gap_ns = -1;  // -1: nothing merged inside the window
  std::size_t items_before = 0;
  std::size_t items_after = 0;
  std::string note;                 // one sentence for the page, empty when not aggregated
};

AggregateOutcome aggregate_timeline(TimelineModel& model, const std::vector<ViolationFocus>& foci,
                                    const AggregateOptions& options = {});

}  // namespace lockstep::reports
