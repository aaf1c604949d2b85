// Elections: why no member led the cluster for a while, read from the members' records of a
// history (leader-elected, leader-stepped-down, leader-view, campaign, vote-refused, and the
// fault bands and link records between members; docs/history-format.md).
//
// Contract: each function returns a clause that is true of the history, or "" when the history
// records nothing to say (a real cluster, an older file). A fault is named only where it could
// keep a member from hearing another: a pause, crash or clock fault of either, or a fault on
// the link between them.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lockstep/reports/run_facts.h"

namespace lockstep::reports {

// The spans with no leader of at least `min_ns` within [from_ns, to_ns], each widened to the
// whole span the history records (from the step-down to the next election), in time order.
std::vector<std::pair<std::int64_t, std::int64_t>> whole_leaderless_spans(const RunFacts& facts,
                                                                          std::int64_t from_ns, std::int64_t to_ns,
                                                                          std::int64_t min_ns);
// "no member led the cluster from 7.763 s to 11.382 s and from ..."; "" for none. A span that
// began with a recorded step-down says why the leader stepped down (step_down_words).
std::string leaderless_span_words(const RunFacts& facts,
                                  const std::vector<std::pair<std::int64_t, std::int64_t>>& spans);
// Why `term`'s leader stepped down, from its leader-stepped-down event: "member-2 stepped down
// at 8.055 s on seeing term 4 in member-0's heartbeat-reply (member-0: ...; ...)", check-quorum,
// or a hand-over; with the faults on the member whose term was newer, and the link between the
// two that held or lost messages just before. "" when no step-down is recorded or it has no
// reason (an older history).
// The faults named are added to `named` when it is not null.
std::string step_down_words(const RunFacts& facts, const LeaderTerm& term,
                            std::vector<const FaultBand*>* named = nullptr);
// "on seeing term 2 in member-1's append": why a leader-stepped-down event's leader stepped down,
// when it saw a higher term in another member's message; "" for any other reason.
std::string higher_term_words(const HistoryEvent& step_down);
// "member-0 knew no leader from 23.201 s (it took up term 6 from member-2's append-reply) to
// 35.225 s": the spans
// of at least `min_ns` within [from_ns, to_ns] in which `member` knew no leader, each said whole,
// from its leader-view records; "" when none is recorded.
std::string member_without_leader_words(const RunFacts& facts, const std::string& member, std::int64_t from_ns,
                                        std::int64_t to_ns, std::int64_t min_ns);
// " (a member holds the requests it cannot serve while it knows no leader)": why that matters,
// said once after the members named so.
extern const char* const kHeldWithoutLeader;
// Why the leaders in `elected` came: the step-down that ended the leadership before each
// (step_down_words), apart by "; ". "" when none is recorded.
std::string new_leader_causes_words(const RunFacts& facts, const std::vector<const LeaderTerm*>& elected);
// Why no member was elected from `from_ns` (a step-down) to `to_ns` (the next election, or the
// history's end), from the campaign and vote-refused records, the faults on members and between
// them active then (less those in `already_named`), and what cut links between members let
// through late or lost: "member-2 campaigned 7 times (terms 9 to 15, from ... to ...) in vain:
// member-1 refused all 7: member-2's log was behind member-1's (...), and each request, of a
// newer term, restarted member-1's election timer; ...; member-1 campaigned at 35.224 s
// (term 16) and won". "" when the history records none of these.
std::string election_words(const RunFacts& facts, std::int64_t from_ns, std::int64_t to_ns,
                           const std::vector<const FaultBand*>& already_named);
// "member-2 campaigned 5 times from 27.739 s to 33.507 s (terms 9 to 13)", with " while cut off
// from the other members" when a cut held its requests at each campaign, and what each voter did
// with its requests.
std::string campaigns_words(const RunFacts& facts, const std::string& m, const std::vector<const Campaign*>& cs,
                            const std::set<std::string>& voters, std::int64_t from_ns, std::int64_t to_ns);
// "no member led the cluster from 7.763 s to 11.382 s": the spans with no leader that took a
// good part of [from_ns, to_ns] (a quarter of it, or a second), each said whole, from where it
// began to where it ended; "" when none.
std::string leaderless_during(const RunFacts& facts, std::int64_t from_ns, std::int64_t to_ns);

}  // namespace lockstep::reports
