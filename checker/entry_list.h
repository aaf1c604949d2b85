// The linearizability search's list of a partition's calls and returns in time order.
//
// Node 0 is the head sentinel; then one call entry per operation and one return entry per
// determinate operation, linked in time order (closed intervals: at equal times calls come
// before returns). Lifting an operation unlinks its call and return; unlifting in reverse order
// relinks them (dancing links), so the search can undo its steps exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "lockstep/checker/linearizability.h"

namespace lockstep {

struct EntryList {
  struct Entry {
    std::int32_t prev = -1, next = -1;
    std::int32_t op = -1;
    std::int32_t match = -1;  // a call's return entry (-1: indeterminate); -1 for returns
    bool is_call = false;
  };
  std::vector<Entry> e;
  std::vector<std::int32_t> call_of;  // op -> its call entry
  std::vector<std::int32_t> order;    // entries in time order (for the witness)

  explicit EntryList(const PartitionModel& m);

  void unlink(std::int32_t i) {
    e[e[i].prev].next = e[i].next;
    if (e[i].next >= 0) e[e[i].next].prev = e[i].prev;
  }
  void relink(std::int32_t i) {
    e[e[i].prev].next = i;
    if (e[i].next >= 0) e[e[i].next].prev = i;
  }
  void lift(std::int32_t call) {
    unlink(call);
    if (e[call].match >= 0) unlink(e[call].match);
  }
  void unlift(std::int32_t call) {
    if (e[call].match >= 0) relink(e[call].match);
    relink(call);
  }
};

}  // namespace lockstep
