// The linearizability checker: Wing & Gong's search with Lowe's just-in-time linearization
// and cache of explored configurations, one partition at a time (P-compositionality).
//
// The search of one partition is in linearization_search.h: Porcupine's structure (a
// time-ordered list of calls and returns, operations lifted out of it as they are linearized,
// backtracking at a return reached unplaced) with reductions that skip only configurations
// another explored one stands for: covered configurations (config_cache.h), reads linearized
// as soon as they are legal, determinate operations before indeterminate ones, and crashed
// operations that cannot matter. The history is linearizable when every determinate
// operation has been linearized.
//
// Time. Each operation is the closed interval [call, return]: an operation called at the same
// instant another returns overlaps it (calls sort before returns at equal times).
// Indeterminate operations (Jepsen's :info, our indeterminate errors) have no return: they may
// take effect at any point after their call, or never, so they are never waited for.
//
// Budgets. Out of time or memory, the answer is `unknown`, never `linearizable`.
//
// States are interned: the search sees a model through PartitionModel, which numbers the
// distinct states it meets, so the cache and the search deal in small integers whatever the
// model. ModelPartition<M> adapts any model of model/model.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/checker/model_traits.h"

namespace lockstep {

// When an operation was called and when it returned, on any one clock (nanoseconds, line
// numbers...). No return: indeterminate.
struct OpInterval {
  std::int64_t call = 0;
  std::optional<std::int64_t> ret;
};

// One partition's operations bound to a model, as the search sees them.
class PartitionModel {
 public:
  static constexpr std::int64_t kIllegal = -1;
  virtual ~PartitionModel() = default;
  virtual std::size_t size() const = 0;
  virtual OpInterval interval(std::size_t op) const = 0;
  virtual std::uint32_t initial_state() = 0;
  // The state after `op` takes effect in `state` (with its recorded answer), or kIllegal.
  virtual std::int64_t step(std::uint32_t state, std::uint32_t op) = 0;
  // Whether two operations ask the same thing (equal inputs): indeterminate ones that do are
  // interchangeable. False when the model cannot tell (model_traits.h).
  virtual bool same_input(std::size_t a, std::size_t b) const = 0;
  // Whether a determinate operation leaves the state as it was wherever it is legal (a read).
  // False for indeterminate operations and when the model cannot tell (model_traits.h).
  virtual bool read_only(std::size_t op) const = 0;
  // For a read-only operation: the operations that can make it legal from any state (nullopt:
  // the model cannot tell), and whether others can from `state` (model_traits.h, ReadTarget).
  virtual std::optional<std::vector<std::uint32_t>> writers_of(std::size_t read) const = 0;
  virtual bool may_reach_without_writers(std::uint32_t state, std::size_t read) const = 0;
  // For a read-only operation: the interned state in which it is legal, when that is the only
  // one (ReadTarget::legal_state); -1 otherwise. Interns that state if the search has not met
  // it yet.
  virtual std::int64_t read_state(std::size_t read) = 0;
  virtual std::string describe_op(std::size_t op) const = 0;
  virtual std::string describe_state(std::uint32_t state) const = 0;
  // Bytes held by the interned states and the memo of steps (counted against the budget).
  virtual std::size_t memory_bytes() const = 0;
};

// One operation for a model M: what it asked, what it answered (nullopt: indeterminate), when,
// and a label that locates it in the input (used in witnesses).
template <class M>
struct ModelOp {
  typename M::Input input;
  std::optional<typename M::Output> output;
  OpInterval interval;
  std::string label;
};

namespace detail {

// Open-addressing hash tables for the hot path (std::unordered_map allocates a node per entry,
// which dominated the profile). Linear probing, power-of-two sizes, at most half full.

// A map from 64-bit keys (never ~0) to 64-bit values.
class U64Map {
 public:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  U64Map() : keys_(64, kEmpty), values_(64) {}
  const std::int64_t* find(std::uint64_t key) const {
    for (std::size_t i = mix(key) & (keys_.size() - 1);; i = (i + 1) & (keys_.size() - 1)) {
      if (keys_[i] == key) return &values_[i];
      if (keys_[i] == kEmpty) return nullptr;
    }
  }
  void insert(std::uint64_t key, std::int64_t value) {  // key must not be present
    if ((count_ + 1) * 2 > keys_.size()) grow();
    place(key, value);
    ++count_;
  }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return keys_.capacity() * 16; }

 private:
  static std::size_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    return static_cast<std::size_t>(x ^ (x >> 33));
  }
  void place(std::uint64_t key, std::int64_t value) {
    std::size_t i = mix(key) & (keys_.size() - 1);
    while (keys_[i] != kEmpty) i = (i + 1) & (keys_.size() - 1);
    keys_[i] = key;
    values_[i] = value;
  }
  void grow() {
    std::vector<std::uint64_t> old_keys(keys_.size() * 2, kEmpty);
    std::vector<std::int64_t> old_values(values_.size() * 2);
    old_keys.swap(keys_);
    old_values.swap(values_);
    for (std::size_t i = 0; i < old_keys.size(); ++i)
      if (old_keys[i] != kEmpty) place(old_keys[i], old_values[i]);
  }
  std::vector<std::uint64_t> keys_;
  std::vector<std::int64_t> values_;
  std::size_t count_ = 0;
};

}  // namespace detail

template <class M>
class ModelPartition final : public PartitionModel {
 public:
  ModelPartition(M model, std::vector<ModelOp<M>> ops)
      : model_(std::move(model)), ops_(std::move(ops)), table_(64, 0) {}

  std::size_t size() const override { return ops_.size(); }
  OpInterval interval(std::size_t op) const override { return ops_[op].interval; }
  std::uint32_t initial_state() override { return intern(model_.init()); }

  std::int64_t step(std::uint32_t state, std::uint32_t op) override {
    // Memoized: the search asks the same (state, op) question many times while backtracking.
    const std::uint64_t key = (std::uint64_t{state} << 32) | op;
    if (const std::int64_t* known = memo_.find(key)) return *known;
    const auto& o = ops_[op];
    auto next = model_.step(states_[state], o.input, o.output ? &*o.output : nullptr);
    std::int64_t result = next ? std::int64_t{intern(std::move(*next))} : kIllegal;
    memo_.insert(key, result);
    return result;
  }

  bool same_input(std::size_t a, std::size_t b) const override {
    return InputEquality<M>::equal(ops_[a].input, ops_[b].input);
  }
  bool read_only(std::size_t op) const override {
    return ops_[op].output && ReadOnly<M>::is(ops_[op].input, *ops_[op].output);
  }
  std::optional<std::vector<std::uint32_t>> writers_of(std::size_t read) const override {
    if (!ReadTarget<M>::known || !ops_[read].output) return std::nullopt;
    std::vector<std::uint32_t> writers;
    for (std::size_t op = 0; op < ops_.size(); ++op)
      if (ReadTarget<M>::writer(ops_[read].input, *ops_[read].output, ops_[op].input,
                                ops_[op].output ? &*ops_[op].output : nullptr))
        writers.push_back(static_cast<std::uint32_t>(op));
    return writers;
  }
  bool may_reach_without_writers(std::uint32_t state, std::size_t read) const override {
    return !ops_[read].output ||
           ReadTarget<M>::may_reach_without_writers(states_[state], ops_[read].input,
                                                    *ops_[read].output);
  }
  std::int64_t read_state(std::size_t read) override {
    if (!ops_[read].output || !read_only(read)) return -1;
    auto s = ReadTarget<M>::legal_state(ops_[read].input, *ops_[read].output);
    return s ? std::int64_t{intern(std::move(*s))} : -1;
  }
  std::string describe_op(std::size_t op) const override {
    const auto& o = ops_[op];
    return o.label + ": " + model_.describe(o.input, o.output ? &*o.output : nullptr);
  }
  std::string describe_state(std::uint32_t state) const override {
    return model_.describe(states_[state]);
  }
  std::size_t memory_bytes() const override {
    // The states' own heap (long strings, maps) is not counted: an estimate from below.
    return states_.capacity() * sizeof(typename M::State) + hashes_.capacity() * 8 +
           table_.capacity() * 4 + memo_.bytes();
  }

 private:
  // Interning: each distinct state once in states_, with its hash; table_ holds ids + 1.
  std::uint32_t intern(typename M::State s) {
    std::uint64_t h = model_.hash(s);  // mixed: some models hash small integers to themselves
    h = (h ^ (h >> 31)) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29;
    std::size_t mask = table_.size() - 1;
    std::size_t i = h & mask;
    for (; table_[i] != 0; i = (i + 1) & mask) {
      std::uint32_t id = table_[i] - 1;
      if (hashes_[id] == h && states_[id] == s) return id;
    }
    const auto id = static_cast<std::uint32_t>(states_.size());
    states_.push_back(std::move(s));
    hashes_.push_back(h);
    table_[i] = id + 1;
    if (states_.size() * 2 > table_.size()) {
      std::vector<std::uint32_t> bigger(table_.size() * 2, 0);
      mask = bigger.size() - 1;
      for (std::uint32_t j = 0; j < states_.size(); ++j) {
        std::size_t k = hashes_[j] & mask;
        while (bigger[k] != 0) k = (k + 1) & mask;
        bigger[k] = j + 1;
      }
      table_.swap(bigger);
    }
    return id;
  }

  M model_;
  std::vector<ModelOp<M>> ops_;
  std::vector<typename M::State> states_;
  std::vector<std::uint64_t> hashes_;
  std::vector<std::uint32_t> table_;
  detail::U64Map memo_;
};

enum class LinVerdict { linearizable, not_linearizable, unknown };
const char* verdict_name(LinVerdict v);

// Limits for one check (all partitions together). Zero means no limit.
struct Budget {
  double time_seconds = 0;
  std::size_t memory_bytes = 0;  // per partition's search
  // Partitions searched at once, each on a thread of its own (`lockstep check` of one file on
  // several cores). 1: on the calling thread, as the simulator's checks must (no threads there).
  unsigned threads = 1;
};

// Why a history is not linearizable: the longest linearizable prefix the search found (in
// linearization order), the model state after it, and the operations that could come next,
// none of which leads anywhere: either the model rejects it in that state, or every order of
// the rest fails after it. `blocking` is the first operation whose return was reached unplaced.
struct LinearizabilityWitness {
  std::string partition;
  std::vector<std::string> prefix;
  std::string state_after_prefix;
  struct Candidate {
    std::string op;
    bool illegal_here = false;  // false: legal in that state, but a dead end later
  };
  std::vector<Candidate> cannot_place;
  std::string blocking;
};

struct PartitionOutcome {
  std::string name;
  std::size_t operations = 0;
  LinVerdict verdict = LinVerdict::unknown;
  std::uint64_t states_explored = 0;  // distinct (linearized set, state) configurations
  double seconds = 0;
};

struct LinearizabilityResult {
  LinVerdict verdict = LinVerdict::linearizable;
  std::size_t operations = 0;
  std::size_t indeterminate = 0;
  std::size_t partitions = 0;
  std::uint64_t states_explored = 0;
  double seconds = 0;
  std::size_t peak_memory_bytes = 0;  // the largest cache + model footprint of any partition
  std::string unknown_reason;         // set when verdict == unknown
  std::optional<LinearizabilityWitness> witness;     // set when verdict == not_linearizable
  std::vector<PartitionOutcome> per_partition;
};

struct Partition {
  std::string name;  // the key or lock; "" for an unpartitioned history
  std::unique_ptr<PartitionModel> model;
};

// Checks the partitions in the order given (callers sort them, e.g. by name). Partitions are
// searched in rounds, each round letting every undecided search go on for 4^k * 4096 more
// steps (searches are resumed, not restarted): a partition whose search ends is decided, the
// others wait for the next round, and the
// first partition, in order, found not linearizable in a round decides the verdict and stops
// the check. That way one hard partition cannot hide a violation that another shows at once
// (Porcupine gets the same effect by running partitions in parallel and stopping at the first
// violation), and the result depends only on step counts, never on the clock: it is
// deterministic.
// Out of memory in a partition: the answer is at best `unknown`; the other partitions are
// still searched (one may be a definite violation). Out of time: the check stops, `unknown`.
LinearizabilityResult check_linearizability(std::vector<Partition>& partitions, const Budget& budget);

}  // namespace lockstep
