// One partition's linearizability search: Wing & Gong's with Lowe's just-in-time linearization
// (Porcupine's structure), plus six reductions and a candidate order, each of which only skips configurations whose
// every way on is also a way on from one the search does explore (so it stays complete, and a
// verdict is never a guess). Profiled on crashed-write-heavy CAS histories, the cost was the
// number of configurations, not the cost of each: these cut the number.
//
// How it goes: the partition's calls and returns are in a time-ordered list (entry_list.h).
// The candidates at a configuration are the calls before the first return entry (the window).
// Linearizing one, if the model accepts it and the configuration it leads to is neither
// explored nor covered, lifts its entries out of the list; the next configuration's window is
// walked from the head. When a configuration's candidates are exhausted, the first return's
// operation had to take effect by now and did not: the search backtracks (unlifts the last
// operation it linearized and tries the next candidate of the configuration before). The
// history is linearizable once every determinate operation is linearized; indeterminate ones
// (crashed, no return) may stay out.
//
// 1. Covered configurations (config_cache.h): (D, I, s) is not explored when (D, I0, s) with
//    I0 a subset of I was (D, I: the determinate and indeterminate operations linearized).
//
// 2. Reads first: a determinate operation that is legal in the current state and leaves every
//    state where it is legal unchanged (PartitionModel::read_only: a read, a cas that answered
//    that its compare failed) is linearized at once, and no other candidate is tried from that
//    configuration. In any way on from here, that operation can be moved to the front: the
//    state is the same there (it is legal in the state it meets where it was, so it changed
//    nothing there either), the operations it passes see the states they saw, and every
//    operation that must precede it, having returned before its call, is linearized already.
//    (A write of the current value does not qualify: later, it may change the state.)
//
// 3. Candidate order otherwise: the determinate calls of the window first, in the order of
//    their returns (the one that must be linearized soonest first), then the indeterminate
//    ones, in call order; so a crashed write is linearized only when nothing determinate can go
//    on without it, and the configurations reached with it are mostly covered by those reached
//    without it, explored first. An indeterminate operation that changes nothing here is not
//    tried (what it leads to is covered by this configuration). Why return order: in call
//    order an operation called early and returned late (an append that took long) was the
//    first candidate of every configuration, so it was linearized far too early, and what
//    proved that wrong came many moves later, after a large subtree (kv c50-ok: 17576
//    configurations in call order, 5378 in return order). Any order is complete: the order
//    only decides which way on is explored first.
//
// 4. Indeterminate operations that cannot matter: of those with equal inputs ("twins": the
//    crashed writes of one value) only the earliest not yet linearized is a candidate (the
//    others lead to the same configurations with the twins swapped); and right after an
//    indeterminate move, an indeterminate operation that leads to the same state from the
//    configuration before that move is not tried here (a crashed write overwriting another:
//    the configuration before tries it itself, without the one it hides).
//
// 5. Reads that can never be legal: a read-only operation that is illegal here, whose model
//    says which operations could set a state where it is legal (ReadTarget in
//    model_traits.h), none of which is left, and which the others cannot reach from this
//    state, makes this configuration dead at once instead of when its return is reached.
//
// 6. Reads of the near future: a move is not taken when it leads to a state in which one of
//    the next kFutureReads read-only operations not yet linearized, in call order, can never
//    be legal (5), whether it has been called yet or not: every determinate operation must be
//    linearized some time, so that configuration is dead. The window's reads alone prove it
//    only once the read is called; a wrong order of appends was found that way only after
//    every move until then (kv c50-bad: 19192 configurations without, 699 with).
//
// Resumable: run() goes on for a number of steps and stops, keeping everything, so that
// partitions can take turns without losing work. Out of time or memory, the verdict stays
// unknown with a reason; never linearizable on a budget.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lockstep/checker/config_cache.h"
#include "lockstep/checker/entry_list.h"
#include "lockstep/checker/linearizability.h"

namespace lockstep {

struct SearchLimits {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::size_t memory_bytes = 0;  // 0: no limit
};

class LinearizationSearch {
 public:
  explicit LinearizationSearch(PartitionModel& model);

  bool done() const { return verdict_ != LinVerdict::unknown || !unknown_reason_.empty(); }
  LinVerdict verdict() const { return verdict_; }
  const std::string& unknown_reason() const { return unknown_reason_; }
  std::uint64_t states() const { return states_; }  // configurations explored
  std::size_t peak_bytes() const { return peak_bytes_; }
  // The longest sequence of operations linearized so far, in order (the witness's prefix).
  const std::vector<std::int32_t>& best_prefix() const { return best_prefix_; }

  // Searches for about `steps` more steps (0: until done). Returns done().
  bool run(std::uint64_t steps, const SearchLimits& limits);

 private:
  // Where an operation's bit lives: in the determinate set D or the indeterminate set I.
  struct Bit {
    bool determinate;
    std::uint32_t word;
    std::uint64_t mask;
  };
  struct Frame {
    std::int32_t call;
    std::uint32_t state_before;
    std::uint8_t phase;
  };

  std::uint64_t key(std::uint32_t state) const;
  void flip(std::uint32_t op);
  bool linearized(std::uint32_t op) const {
    const Bit& b = bit_[op];
    return ((b.determinate ? det_ : ind_)[b.word] & b.mask) != 0;
  }
  std::size_t bytes() const;
  void step();
  std::int32_t next_by_return() const;
  void note_prefix(std::int32_t last);
  void end_of_window();
  void backtrack();
  bool twin_waits(std::int32_t op) const;
  bool absorbs_last_move(std::uint32_t op, std::int64_t next);
  std::int64_t step_model(std::uint32_t state, std::uint32_t op) const {
    // A read with one legal state: a comparison instead of a lookup in the model's memo.
    const std::int64_t only = read_state_[op];
    if (only < 0) return model_.step(state, op);
    return state == only ? std::int64_t{state} : PartitionModel::kIllegal;
  }
  bool read_can_never_be_legal(std::uint32_t op, std::uint32_t state);
  bool future_read_dead(std::uint32_t moved, std::uint32_t state);

  PartitionModel& model_;
  EntryList list_;
  std::vector<Bit> bit_;
  std::vector<std::uint64_t> zobrist_;  // per op; 0 for indeterminate ones (not in the hash)
  std::vector<std::int32_t> twin_before_;  // per indeterminate op: its earlier twin, or -1
  std::vector<char> read_only_;            // per op: PartitionModel::read_only
  std::vector<std::int64_t> read_state_;   // per op: PartitionModel::read_state (-1: none)
  // Per read-only op, computed when first needed: which of writer_lists_ holds its writers
  // (PartitionModel::writers_of, latest call first); kUnasked, or kUnknown when the model
  // cannot tell. Reads with one legal state share the list of the first read of that state
  // asked about (writers depend on that state only: model_traits.h), so a history of many
  // reads of few values computes few lists.
  static constexpr std::int32_t kUnasked = -1, kUnknown = -2;
  std::vector<std::int32_t> writer_list_;
  std::vector<std::vector<std::uint32_t>> writer_lists_;
  std::unordered_map<std::int64_t, std::int32_t> writer_list_of_state_;
  const std::vector<std::uint32_t>* writers(std::uint32_t read);
  std::vector<std::uint64_t> det_, ind_;
  ConfigCache cache_;
  std::uint64_t det_hash_ = 0;
  bool has_indeterminate_ = false;
  std::uint32_t state_ = 0;
  std::size_t remaining_ = 0;  // determinate operations not yet linearized
  std::int32_t entry_ = -1;
  // In the determinate phase: the return entry of the last candidate tried here (0: none);
  // the next one tried is the window's determinate call with the next later return.
  std::int32_t after_return_ = 0;
  // What the walk of the current window tries (see the top of this file).
  static constexpr std::uint8_t kStutter = 0, kDeterminate = 1, kIndeterminate = 2;
  std::uint8_t phase_ = kStutter;
  std::vector<Frame> stack_;
  std::uint64_t iterations_ = 0, states_ = 0;
  std::size_t peak_bytes_ = 0;
  std::vector<std::int32_t> best_prefix_;
  LinVerdict verdict_ = LinVerdict::unknown;
  std::string unknown_reason_;
};

}  // namespace lockstep
