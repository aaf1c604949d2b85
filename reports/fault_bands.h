// Fault bands: the injected faults of a history as time intervals, with the processes they hit.
//
// Contract: the injector records a `fault` event at each edge of a fault, with args.phase
// "start" or "end" and otherwise identical args (sim/faults.h). A band pairs a start with the
// first later end of the same op and args; a start with no end lasts to the end of the history
// (open_end). A fault without a phase is instant. The processes hit are args.targets,
// args.from and args.to; a leader change hits members from_member and to_member; a fault that
// names nobody (compaction, slow-revoke) hits the whole cluster, which `hits_cluster` says.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lockstep/checker/history.h"

namespace lockstep::reports {

struct FaultBand {
  std::string kind;                   // the fault class: "pause", "partition", ...
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;            // == start_ns for an instant fault
  bool open_end = false;              // no end event: still active when the history ends
  std::int64_t start_event = 0;
  std::vector<std::string> processes; // who it hits, in the order the args name them
  bool hits_cluster = false;          // names nobody: the etcd cluster as a whole
  nlohmann::json args;                // the start event's args
  // A leader change with from_member and to_member: whether the next leader elected after it
  // was to_member, within two election timeouts (etcd aborts a hand-over after one). Unset when
  // the history records no elections (a real cluster) or the change named no members.
  std::optional<bool> leader_moved;

  bool instant() const { return end_ns == start_ns && !open_end; }
  bool hits(const std::string& process) const;
  // Whether this link fault (one with "from"/"to") acts on messages from `sender` to
  // `receiver`: an empty side is any process, and a symmetric fault acts both ways.
  bool on_link(const std::string& sender, const std::string& receiver) const;
};

// In start order.
std::vector<FaultBand> fault_bands(const History& history);

// A clause saying what the fault did, with its subject first: "client-4 was paused",
// "messages from client-3 to member-0, member-1 were cut", "the leader was moved from member-1
// to member-0" ("member-1 was told, in vain, to hand the leadership over to member-0" when it
// was not). No times: callers add them.
std::string describe_fault(const FaultBand& band);

// A clock fault's rate (absolute, in ppm of nominal speed) by its effect: "ran slow, at 25 %
// of nominal speed", "ran fast, at 4 times nominal speed", "ran at nominal speed".
std::string clock_rate_words(std::int64_t rate_ppm);

// When `ttl_ns` of `member`'s monotonic clock, counted from `from_ns` (true time), had passed,
// in true time: what its lessor takes for a lease's end. Follows the member's clock faults in
// `bands` (a jump moves the clock at once and stays; a drift sets its rate while it lasts).
std::int64_t monotonic_deadline_ns(const std::vector<FaultBand>& bands, const std::string& member,
                                   std::int64_t from_ns, std::int64_t ttl_ns);

}  // namespace lockstep::reports
