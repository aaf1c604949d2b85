// RequestWay: where a client's write went in the cluster, and what held it on the way, from the
// members' records of it (request-forwarded, request-appended: simulated runs that record
// details; docs/history-format.md).
//
// Contract: the way is cut into legs, each with the member that had the request and when: from
// its sending, at the member it was sent to; after each pass-on, at the member it was passed to;
// after its append, in the appending leader's log until it was applied. A fault is said to have
// held the request only where it could: a pause or crash of a leg's member while it had the
// request (after any cut link delivered it); a cut, delay, loss or reorder of the leg's link (the
// client's to its member, or the passing member's to the next) when the request was sent on it;
// while it was in a leader's log and not committed within a round trip, a pause or crash of that
// leader or of the other members, and faults on its links to them (it needed a majority).
// Nothing is said of a request whose steps are not recorded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lockstep/reports/run_facts.h"

namespace lockstep::reports {

struct RequestLeg {
  std::string member;          // the member that had the request
  std::string sender;          // who sent it there: the client, or the member that passed it on
  std::int64_t from_ns = 0;    // sent to `member` (or appended, for the log leg)
  std::int64_t reached_ns = 0; // when `member` had it: from_ns, or later when a cut link held it
  std::int64_t to_ns = 0;      // passed on, appended, or applied
  const RequestStep* out = nullptr;  // the step that ended the leg, or nullptr: it was applied
  bool in_log = false;         // the leg after the append: in `member`'s log as leader
};

// The legs of `by`'s way, sent at by.sent_ns and applied at `applied_ns`; empty when the history
// records no step of it.
std::vector<RequestLeg> request_legs(const RunFacts& facts, const ChangeCause& by, std::int64_t applied_ns);

// The faults that held the request on its legs (see the contract), in start order.
std::vector<const FaultBand*> faults_on_legs(const RunFacts& facts, const std::vector<RequestLeg>& legs);

// The way in words: "member-2 passed it on at 14.591 s to member-0, the leader it knew; member-0
// passed it on at 23.200 s, when its pause ended, to member-1; member-1 appended it at 26.500 s,
// when its pause ended, as entry 124 of term 2, and stepped down at 26.502 s before committing
// it; member-1 committed it as leader of term 14, elected at 35.225 s". Said only when a fault
// held it (`held`), a member had it a tenth of a second or more, or its leader stepped down
// before committing it; else "".
std::string request_way_words(const RunFacts& facts, const std::vector<RequestLeg>& legs, std::int64_t applied_ns,
                              bool held);

}  // namespace lockstep::reports
