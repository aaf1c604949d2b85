#include "lockstep/sim/raft_safety.h"

#include "lockstep/kv/invariant.h"

namespace lockstep::sim {

void RaftSafety::elected(std::uint64_t term, int member) {
  const auto [it, first] = leader_of_term_.emplace(term, member);
  LOCKSTEP_INVARIANT(first || it->second == member, "one leader per term");
}

void RaftSafety::applied(std::uint64_t index, std::uint64_t term, Revision revision_after) {
  LOCKSTEP_INVARIANT(index >= 1 && index <= applied_.size() + 1,
                     "entries are applied in log order, by every member from the first");
  if (index == applied_.size() + 1) {
    LOCKSTEP_INVARIANT(applied_.empty() || applied_.back().revision_after <= revision_after,
                       "store revisions only grow along the log");
    applied_.push_back({term, revision_after});
    return;
  }
  const Applied& first = applied_[index - 1];
  LOCKSTEP_INVARIANT(first.term == term, "every member applies the same entry at an index");
  LOCKSTEP_INVARIANT(first.revision_after == revision_after,
                     "every member's store is at the same revision after the same entries");
}

}  // namespace lockstep::sim
