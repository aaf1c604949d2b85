// The timeline's content: lanes (one per client, etcd member, the resource, ...) and the
// intervals and points drawn in them, before any aggregation.
//
// Contract: built from the history alone. A client lane has four rows: what the client
// believed (holding intervals, as the mutex check defines them), what etcd really held (its
// lock key's lifetime), its leases, and its operations (any op name; ok/fail/info colours; an
// indeterminate or unanswered operation is open-ended). A member lane shows its leader terms
// and its truth events (leases it expired). The resource lane shows accepted and rejected
// writes and reads with their tokens. Truth events nobody owns go to an "etcd" lane; any
// other process with events gets a lane of its own. Faults become bands over the lanes they
// hit (the cluster's members when they name nobody).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lockstep/checker/history.h"
#include "lockstep/reports/run_facts.h"

namespace lockstep::reports {

struct Lane {
  std::string name;               // the process name
  std::string kind;               // "client", "member", "resource", "other"
  std::vector<std::string> rows;  // row captions, top to bottom
};

// What an item is; the page styles it by this name.
enum class ItemKind {
  belief, belief_open, key, key_open, lease, lease_expired,
  op_ok, op_fail, op_info, op_open,
  leader, truth_point, write_accepted, write_rejected, read, trace
};
const char* item_kind_name(ItemKind kind);
constexpr int kItemKindCount = 16;

struct TimelineItem {
  int lane = 0;
  int row = 0;
  ItemKind kind = ItemKind::truth_point;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;     // == start_ns for a point
  std::int64_t count = 1;      // > 1 once aggregated
  std::string label;           // short text drawn beside it when there is room (a token)
  std::string tip;             // the hover text
};

struct TimelineBand {
  std::string kind;            // the fault class
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  bool open_end = false;
  std::vector<int> lanes;      // lanes it shades
  std::int64_t count = 1;
  std::string tip;
};

struct TimelineModel {
  std::vector<Lane> lanes;
  std::vector<TimelineItem> items;
  std::vector<TimelineBand> bands;
  std::int64_t start_ns = 0;   // the first event's true time
  std::int64_t end_ns = 0;     // the last event's true time
  std::map<std::string, int> lane_index;  // process -> position in `lanes`

  int lane_of(const std::string& process) const;  // -1 when the process has no lane
};

TimelineModel build_timeline(const RunFacts& facts);

}  // namespace lockstep::reports
