// Raft's safety properties, asserted as the simulated cluster runs (LOCKSTEP_INVARIANT: in
// every build, so a simulator that broke them could not hand out a verdict).
//
// The members report to one RaftSafety held by the cluster:
//   - elected(term, member): at most one leader per term (Election Safety);
//   - applied(index, term, revision): every member applies, at each log index, an entry of the
//     same term (by Log Matching, the same entry: State Machine Safety), and its store stands
//     at the same revision afterwards (the store is a function of the applied prefix, and
//     revisions only grow along it).
// A member checks its own rules where they live (a committed entry is never overwritten,
// applied <= committed <= last log index: see EtcdMember).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "lockstep/kv/types.h"

namespace lockstep::sim {

class RaftSafety {
 public:
  void elected(std::uint64_t term, int member);
  void applied(std::uint64_t index, std::uint64_t term, Revision revision_after);

 private:
  std::map<std::uint64_t, int> leader_of_term_;
  struct Applied {
    std::uint64_t term = 0;
    Revision revision_after = 0;
  };
  std::vector<Applied> applied_;  // [index - 1]: what the first member to apply it saw
};

}  // namespace lockstep::sim
