#include "lockstep/checker/linearization_search.h"

#include <algorithm>
#include <cassert>

namespace lockstep {

namespace {

// How many of the next unlinearized reads (in call order) a move is checked against
// (reduction 6), and how many list entries the check walks at most to find them. On the kv
// set 4 reads prune as much as 8 or all of them do, at a quarter of the cost of 16; the
// entry bound keeps the check short where reads are rare.
constexpr int kFutureReads = 4;
constexpr int kFutureEntries = 64;

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::size_t count_determinate(const PartitionModel& m) {
  std::size_t n = 0;
  for (std::size_t op = 0; op < m.size(); ++op)
    if (m.interval(op).ret) ++n;
  return n;
}

}  // namespace

LinearizationSearch::LinearizationSearch(PartitionModel& model)
    : model_(model),
      list_(model),
      det_((count_determinate(model) + 63) / 64, 0),
      ind_((model.size() - count_determinate(model) + 63) / 64, 0),
      cache_(det_.size(), ind_.size()) {
  std::uint32_t det_count = 0, ind_count = 0;
  for (std::size_t op = 0; op < model.size(); ++op) {
    const bool determinate = model.interval(op).ret.has_value();
    std::uint32_t& n = determinate ? det_count : ind_count;
    bit_.push_back({determinate, n / 64, std::uint64_t{1} << (n % 64)});
    // The hash covers D (and the state): I is compared, never hashed, so that configurations
    // differing only in I meet in one record and can cover one another.
    zobrist_.push_back(determinate ? splitmix64(op + 1) : 0);
    ++n;
  }
  for (std::size_t op = 0; op < model.size(); ++op) {
    read_only_.push_back(model.read_only(op));
    read_state_.push_back(read_only_.back() ? model.read_state(op) : -1);
  }
  writer_list_.assign(model.size(), kUnasked);
  remaining_ = det_count;
  has_indeterminate_ = ind_count > 0;
  // Each indeterminate operation's nearest earlier-called twin (equal input).
  twin_before_.assign(model.size(), -1);
  std::vector<std::int32_t> seen;  // indeterminate ops in call order
  for (std::int32_t i = list_.e[0].next; i >= 0; i = list_.e[i].next) {
    const auto& x = list_.e[i];
    if (!x.is_call || x.match >= 0) continue;
    for (auto it = seen.rbegin(); it != seen.rend(); ++it)
      if (model.same_input(static_cast<std::size_t>(*it), static_cast<std::size_t>(x.op))) {
        twin_before_[static_cast<std::size_t>(x.op)] = *it;
        break;
      }
    seen.push_back(x.op);
  }
  state_ = model.initial_state();
  cache_.insert(key(state_), state_, det_.data(), ind_.data());
  states_ = 1;
  entry_ = list_.e[0].next;
  if (remaining_ == 0) verdict_ = LinVerdict::linearizable;
}

std::uint64_t LinearizationSearch::key(std::uint32_t state) const {
  return det_hash_ ^ splitmix64(~std::uint64_t{state});
}

void LinearizationSearch::flip(std::uint32_t op) {
  const Bit& b = bit_[op];
  (b.determinate ? det_ : ind_)[b.word] ^= b.mask;
  det_hash_ ^= zobrist_[op];
}

std::size_t LinearizationSearch::bytes() const {
  return cache_.bytes() + model_.memory_bytes() + stack_.capacity() * sizeof(Frame);
}

bool LinearizationSearch::run(std::uint64_t steps, const SearchLimits& limits) {
  const std::uint64_t stop_at = steps == 0 ? UINT64_MAX : iterations_ + steps;
  while (!done()) {
    if ((++iterations_ & 0x3ff) == 0) {
      const std::size_t now_bytes = bytes();
      peak_bytes_ = std::max(peak_bytes_, now_bytes);
      if (limits.memory_bytes != 0 && now_bytes > limits.memory_bytes) {
        unknown_reason_ = "memory budget exhausted";
        break;
      }
      if (std::chrono::steady_clock::now() > limits.deadline) {
        unknown_reason_ = "time budget exhausted";
        break;
      }
      if (iterations_ >= stop_at) break;
    }
    step();
  }
  peak_bytes_ = std::max(peak_bytes_, bytes());
  return done();
}

// One move: try the call at entry_ if it is of this phase's kind, or, at a return entry, go
// on to the next phase or backtrack. The determinate phase takes its candidates in return
// order (next_by_return) instead of walking the list.
void LinearizationSearch::step() {
  // With a determinate operation left, its return entry stops the walk before the end.
  assert(entry_ >= 0);
  if (phase_ == kDeterminate) {
    entry_ = next_by_return();
    if (entry_ < 0) {
      end_of_window();
      return;
    }
    after_return_ = list_.e[entry_].match;
  }
  const auto& cur = list_.e[entry_];
  if (!cur.is_call) {
    end_of_window();
    return;
  }
  const bool determinate = cur.match >= 0;
  const auto op = static_cast<std::uint32_t>(cur.op);
  const bool candidate = phase_ == kStutter        ? determinate && read_only_[op]
                         : phase_ == kDeterminate  ? true  // next_by_return chose it
                                                   : !determinate && !twin_waits(cur.op);
  if (!candidate) {
    entry_ = cur.next;
    return;
  }
  const std::int64_t next = step_model(state_, op);
  if (next == PartitionModel::kIllegal && phase_ == kStutter && read_can_never_be_legal(op, state_)) {
    backtrack();  // this configuration is dead
    return;
  }
  // An indeterminate operation that changes nothing here leads to a configuration covered by
  // this one (the same D and state, a larger I): not worth a look in the cache.
  if (next == PartitionModel::kIllegal ||
      (phase_ == kIndeterminate && (next == state_ || absorbs_last_move(op, next)))) {
    entry_ = cur.next;
    return;
  }
  flip(op);
  const auto next_state = static_cast<std::uint32_t>(next);
  // Dead configurations (reduction 6) are not recorded: the check is cheaper than the cache.
  // A move that leaves the state as it was (a read) cannot make a read impossible that was
  // not already, and is not checked: the check costs a lookup per read.
  const bool dead = next_state != state_ && future_read_dead(op, next_state);
  // A dead move still extends a linearizable prefix: the witness shows the read it dooms.
  if (dead && stack_.size() + 1 > best_prefix_.size()) note_prefix(cur.op);
  if (dead || !cache_.insert(key(next_state), next_state, det_.data(), ind_.data())) {
    flip(op);  // dead, explored, or covered by an explored configuration: not again
    // A stutter is the only move tried from here: with it explored (or dead), so is this
    // configuration, since the read can be moved to the front of any way on from here.
    if (phase_ == kStutter) backtrack();
    else entry_ = cur.next;
    return;
  }
  ++states_;
  stack_.push_back({entry_, state_, phase_});
  state_ = next_state;
  list_.lift(entry_);
  if (determinate && --remaining_ == 0) {
    verdict_ = LinVerdict::linearizable;
    return;
  }
  if (stack_.size() > best_prefix_.size()) note_prefix(-1);
  phase_ = kStutter;
  entry_ = list_.e[0].next;
}

// Records the operations linearized on the stack, then `last` unless it is -1, as the longest
// linearizable prefix found (the witness's).
void LinearizationSearch::note_prefix(std::int32_t last) {
  best_prefix_.clear();
  for (const auto& f : stack_) best_prefix_.push_back(list_.e[f.call].op);
  if (last >= 0) best_prefix_.push_back(last);
}

// The window's determinate call, not read-only, whose return comes next after after_return_;
// -1 when none is left. Read-only ones are left out: the stutter phase before found each
// illegal here (a legal one would have been the only move tried).
std::int32_t LinearizationSearch::next_by_return() const {
  std::int32_t best = -1, best_return = INT32_MAX;
  for (std::int32_t i = list_.e[0].next; i >= 0 && list_.e[i].is_call; i = list_.e[i].next) {
    const auto& x = list_.e[i];
    if (x.match > after_return_ && x.match < best_return &&
        !read_only_[static_cast<std::size_t>(x.op)]) {
      best = i;
      best_return = x.match;
    }
  }
  return best;
}

// The walk reached the first return entry: the phase's candidates are all tried.
void LinearizationSearch::end_of_window() {
  if (phase_ == kStutter) {
    phase_ = kDeterminate;
    after_return_ = 0;
  } else if (phase_ == kDeterminate && has_indeterminate_) {
    phase_ = kIndeterminate;
  } else {
    backtrack();  // that operation had to be linearized by now
    return;
  }
  entry_ = list_.e[0].next;
}

// Whether `op` (indeterminate, leading to `next` from here) would hide the indeterminate move
// that led here: applied in the state before that move, it leads to `next` as well (a crashed
// write right after another). Then the configuration it leads to is covered by the one that
// `op` leads to from the configuration before, which that configuration tries itself (`op` is
// a candidate there too: indeterminate moves leave the window as it is). Without this, a run
// of k crashed writes would be explored in every one of its 2^k subsets.
bool LinearizationSearch::absorbs_last_move(std::uint32_t op, std::int64_t next) {
  if (stack_.empty()) return false;
  const Frame& last = stack_.back();
  const auto& moved = list_.e[last.call];
  if (moved.match >= 0) return false;  // the last move was determinate
  // At the configuration before, `op` must not wait for a twin: the one moved last.
  if (twin_before_[static_cast<std::size_t>(op)] == moved.op) return false;
  return model_.step(last.state_before, op) == next;
}

// Whether read-only `op`, illegal here, can never become legal on any way on: no operation
// that could set a state where it is legal is left, and the others cannot get there from this
// state (a get of "ab" when the value is "x" and no put of "", "a" or "ab" is left). Then this
// configuration has no way on, since `op` must be linearized.
bool LinearizationSearch::read_can_never_be_legal(std::uint32_t op, std::uint32_t state) {
  if (model_.may_reach_without_writers(state, op)) return false;
  const std::vector<std::uint32_t>* w = writers(op);
  if (!w) return false;  // unknown to the model: never provable
  for (std::uint32_t x : *w)
    if (!linearized(x)) return false;  // still to come
  return true;
}

// The writers of read-only `read` (see writer_list_), or null when the model cannot tell.
const std::vector<std::uint32_t>* LinearizationSearch::writers(std::uint32_t read) {
  std::int32_t& list = writer_list_[read];
  if (list == kUnasked && read_state_[read] >= 0) {
    auto shared = writer_list_of_state_.find(read_state_[read]);
    if (shared != writer_list_of_state_.end()) list = shared->second;
  }
  if (list == kUnasked) {
    auto known = model_.writers_of(read);
    if (!known) {
      list = kUnknown;
    } else {
      // Latest call first: the search linearizes roughly in time order, so the first writer
      // looked at is most often one still to come, which ends read_can_never_be_legal's loop.
      std::sort(known->begin(), known->end(), [&](std::uint32_t a, std::uint32_t b) {
        return list_.call_of[a] > list_.call_of[b];
      });
      list = static_cast<std::int32_t>(writer_lists_.size());
      writer_lists_.push_back(std::move(*known));
      if (read_state_[read] >= 0) writer_list_of_state_.emplace(read_state_[read], list);
    }
  }
  return list == kUnknown ? nullptr : &writer_lists_[static_cast<std::size_t>(list)];
}

// Reduction 6: whether, with `moved` just linearized (its bit set, its entries still in the
// list) and `state` reached, one of the next kFutureReads unlinearized read-only operations in
// call order is illegal there and can never be legal. Sound for any read checked: a
// determinate operation must be linearized on every way on.
bool LinearizationSearch::future_read_dead(std::uint32_t moved, std::uint32_t state) {
  int reads = 0, entries = 0;
  for (std::int32_t i = list_.e[0].next; i >= 0 && reads < kFutureReads && entries < kFutureEntries;
       i = list_.e[i].next, ++entries) {
    const auto& x = list_.e[i];
    const auto op = static_cast<std::uint32_t>(x.op);
    // Determinate reads only: a crashed one may stay out of the linearization.
    if (!x.is_call || x.match < 0 || !read_only_[op] || op == moved) continue;
    ++reads;
    if (step_model(state, op) == PartitionModel::kIllegal && read_can_never_be_legal(op, state))
      return true;
  }
  return false;
}

// Twins (indeterminate, equal inputs) are interchangeable once both are called, which the
// later one being a candidate implies: whatever linearizing the later one leads to, linearizing
// the earlier one leads to the same with the two swapped. So a twin is tried only after every
// earlier twin is linearized: at most one candidate per input, and the linearized twins of an
// input are always its earliest ones (fewer sets I for the cache to tell apart).
bool LinearizationSearch::twin_waits(std::int32_t op) const {
  const std::int32_t twin = twin_before_[static_cast<std::size_t>(op)];
  if (twin < 0) return false;
  const Bit& b = bit_[static_cast<std::size_t>(twin)];
  return (ind_[b.word] & b.mask) == 0;
}

// The current configuration has no way on: undo the move that led to it and try the next
// candidate of the configuration before, or, if that move was a stutter (the only move tried
// there), undo that one too.
void LinearizationSearch::backtrack() {
  for (;;) {
    if (stack_.empty()) {
      verdict_ = LinVerdict::not_linearizable;
      return;
    }
    const Frame f = stack_.back();
    stack_.pop_back();
    flip(static_cast<std::uint32_t>(list_.e[f.call].op));
    state_ = f.state_before;
    list_.unlift(f.call);
    if (list_.e[f.call].match >= 0) ++remaining_;
    if (f.phase == kStutter) continue;
    phase_ = f.phase;
    entry_ = list_.e[f.call].next;
    after_return_ = list_.e[f.call].match;  // used in the determinate phase only
    return;
  }
}

}  // namespace lockstep
