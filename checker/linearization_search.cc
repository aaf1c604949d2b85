#include "lockstep/checker/linearization_search.h"

#include <algorithm>
#include <cassert>

namespace lockstep {

namespace {

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
  for (std::size_t op = 0; op < model.size(); ++op) read_only_.push_back(model.read_only(op));
  writers_.resize(model.size());
  unknown_writers_.assign(model.size(), 0);
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
// on to the next phase or backtrack.
void LinearizationSearch::step() {
  // With a determinate operation left, its return entry stops the walk before the end.
  assert(entry_ >= 0);
  const auto& cur = list_.e[entry_];
  if (!cur.is_call) {
    end_of_window();
    return;
  }
  const bool determinate = cur.match >= 0;
  const auto op = static_cast<std::uint32_t>(cur.op);
  const bool candidate = phase_ == kStutter        ? determinate && read_only_[op]
                         : phase_ == kDeterminate  ? determinate
                                                   : !determinate && !twin_waits(cur.op);
  if (!candidate) {
    entry_ = cur.next;
    return;
  }
  const std::int64_t next = model_.step(state_, op);
  if (next == PartitionModel::kIllegal && phase_ == kStutter && read_can_never_be_legal(op)) {
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
  if (!cache_.insert(key(next_state), next_state, det_.data(), ind_.data())) {
    flip(op);  // explored, or covered by an explored configuration: not again
    // A stutter is the only move tried from here: with it explored, so is this configuration.
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
  if (stack_.size() > best_prefix_.size()) {
    best_prefix_.clear();
    for (const auto& f : stack_) best_prefix_.push_back(list_.e[f.call].op);
  }
  phase_ = kStutter;
  entry_ = list_.e[0].next;
}

// The walk reached the first return entry: the phase's candidates are all tried.
void LinearizationSearch::end_of_window() {
  if (phase_ == kStutter) {
    phase_ = kDeterminate;
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
bool LinearizationSearch::read_can_never_be_legal(std::uint32_t op) {
  auto& w = writers_[op];
  if (!w) {
    auto known = model_.writers_of(op);
    unknown_writers_[op] = !known;  // unknown to the model: never provable
    w = known ? std::move(*known) : std::vector<std::uint32_t>{};
  }
  if (unknown_writers_[op]) return false;
  for (std::uint32_t x : *w) {
    const Bit& b = bit_[x];
    if (((b.determinate ? det_ : ind_)[b.word] & b.mask) == 0) return false;  // still to come
  }
  return !model_.may_reach_without_writers(state_, op);
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
    return;
  }
}

}  // namespace lockstep
