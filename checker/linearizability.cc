#include "lockstep/checker/linearizability.h"

#include <algorithm>
#include <cassert>

namespace lockstep {

const char* verdict_name(LinVerdict v) {
  switch (v) {
    case LinVerdict::linearizable: return "linearizable";
    case LinVerdict::not_linearizable: return "not linearizable";
    case LinVerdict::unknown: return "unknown";
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The set of seen configurations: (linearized bitset, state id), stored flat.
// Each record is [state, word0, word1, ...]; the table holds record numbers + 1 (0 = empty),
// open addressing with linear probing. The hash of a bitset is kept incrementally by the search
// (Zobrist: the XOR of a random key per member), so inserting costs one probe sequence and a
// comparison of a few words, not a pass over the set.
class ConfigCache {
 public:
  explicit ConfigCache(std::size_t words) : words_(words), table_(1024, 0) {}

  // Inserts; returns false if the configuration was already there.
  bool insert(std::uint64_t hash, std::uint32_t state, const std::vector<std::uint64_t>& bits) {
    if ((count_ + 1) * 2 > table_.size()) grow();
    std::size_t mask = table_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      std::uint32_t slot = table_[i];
      if (slot == 0) {
        table_[i] = static_cast<std::uint32_t>(count_ + 1);
        hashes_.push_back(hash);
        records_.push_back(state);
        records_.insert(records_.end(), bits.begin(), bits.end());
        ++count_;
        return true;
      }
      std::size_t r = slot - 1;
      if (hashes_[r] == hash && records_[r * (words_ + 1)] == state &&
          std::equal(bits.begin(), bits.end(), records_.begin() + r * (words_ + 1) + 1))
        return false;
    }
  }

  std::size_t size() const { return count_; }
  std::size_t bytes() const {
    return table_.capacity() * sizeof(std::uint32_t) + hashes_.capacity() * 8 +
           records_.capacity() * 8;
  }

 private:
  void grow() {
    std::vector<std::uint32_t> bigger(table_.size() * 2, 0);
    std::size_t mask = bigger.size() - 1;
    for (std::size_t r = 0; r < count_; ++r) {
      std::size_t i = hashes_[r] & mask;
      while (bigger[i] != 0) i = (i + 1) & mask;
      bigger[i] = static_cast<std::uint32_t>(r + 1);
    }
    table_.swap(bigger);
  }

  std::size_t words_;
  std::size_t count_ = 0;
  std::vector<std::uint32_t> table_;
  std::vector<std::uint64_t> hashes_;
  std::vector<std::uint64_t> records_;
};

// The entry list: node 0 is the head sentinel; then one call entry per operation and one return
// entry per determinate operation, linked in time order. Lifting an operation unlinks its call
// and return; unlifting in reverse order relinks them (dancing links).
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

  explicit EntryList(const PartitionModel& m) {
    struct Event {
      std::int64_t time;
      bool is_return;
      std::int32_t op;
    };
    std::vector<Event> events;
    for (std::size_t op = 0; op < m.size(); ++op) {
      auto iv = m.interval(op);
      events.push_back({iv.call, false, static_cast<std::int32_t>(op)});
      if (iv.ret) events.push_back({*iv.ret, true, static_cast<std::int32_t>(op)});
    }
    // Closed intervals: at equal times calls come before returns.
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
      if (a.time != b.time) return a.time < b.time;
      if (a.is_return != b.is_return) return !a.is_return;
      return a.op < b.op;
    });
    e.resize(events.size() + 1);
    call_of.assign(m.size(), -1);
    std::vector<std::int32_t> return_of(m.size(), -1);
    for (std::size_t i = 0; i < events.size(); ++i) {
      auto& x = e[i + 1];
      x.op = events[i].op;
      x.is_call = !events[i].is_return;
      (x.is_call ? call_of : return_of)[x.op] = static_cast<std::int32_t>(i + 1);
      order.push_back(static_cast<std::int32_t>(i + 1));
    }
    for (std::size_t op = 0; op < m.size(); ++op) e[call_of[op]].match = return_of[op];
    for (std::size_t i = 0; i < e.size(); ++i) {
      e[i].prev = static_cast<std::int32_t>(i) - 1;
      e[i].next = i + 1 < e.size() ? static_cast<std::int32_t>(i + 1) : -1;
    }
  }

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

struct Limits {
  Clock::time_point deadline = Clock::time_point::max();
  std::size_t memory_bytes = 0;
};

// One partition's search, resumable: run() goes on for a number of steps and stops, keeping
// everything, so that partitions can take turns without losing work.
class Search {
 public:
  explicit Search(PartitionModel& model)
      : model_(model),
        list_(model),
        words_((model.size() + 63) / 64),
        bits_(words_, 0),
        zobrist_(model.size()),
        cache_(words_) {
    for (std::size_t op = 0; op < model.size(); ++op) {
      zobrist_[op] = splitmix64(op + 1);
      if (model.interval(op).ret) ++remaining_;
    }
    state_ = model.initial_state();
    cache_.insert(key(state_), state_, bits_);
    states_ = 1;
    entry_ = list_.e[0].next;
    if (remaining_ == 0) verdict_ = LinVerdict::linearizable;
  }

  bool done() const { return verdict_ != LinVerdict::unknown || !unknown_reason_.empty(); }
  LinVerdict verdict() const { return verdict_; }
  const std::string& unknown_reason() const { return unknown_reason_; }
  std::uint64_t states() const { return states_; }
  std::size_t peak_bytes() const { return peak_bytes_; }
  const std::vector<std::int32_t>& best_prefix() const { return best_prefix_; }

  // Searches for about `steps` more steps (0: until done). Returns done().
  bool run(std::uint64_t steps, const Limits& limits) {
    std::uint64_t stop_at = steps == 0 ? UINT64_MAX : iterations_ + steps;
    while (!done()) {
      if ((++iterations_ & 0x3ff) == 0) {
        std::size_t bytes = cache_.bytes() + model_.memory_bytes() + stack_.capacity() * 8;
        peak_bytes_ = std::max(peak_bytes_, bytes);
        if (limits.memory_bytes != 0 && bytes > limits.memory_bytes) {
          unknown_reason_ = "memory budget exhausted";
          break;
        }
        if (Clock::now() > limits.deadline) {
          unknown_reason_ = "time budget exhausted";
          break;
        }
        if (iterations_ >= stop_at) break;
      }
      step();
    }
    peak_bytes_ =
        std::max(peak_bytes_, cache_.bytes() + model_.memory_bytes() + stack_.capacity() * 8);
    return done();
  }

 private:
  std::uint64_t key(std::uint32_t s) const { return set_hash_ ^ splitmix64(~std::uint64_t{s}); }
  void flip(std::uint32_t op) {
    bits_[op / 64] ^= std::uint64_t{1} << (op % 64);
    set_hash_ ^= zobrist_[op];
  }

  // One move of Lowe's search: try the call at entry_, or backtrack at a return.
  void step() {
    // With a determinate operation left, its return entry stops the walk before the end.
    assert(entry_ >= 0);
    const auto& cur = list_.e[entry_];
    if (cur.is_call) {
      const auto op = static_cast<std::uint32_t>(cur.op);
      std::int64_t next = model_.step(state_, op);
      if (next != PartitionModel::kIllegal) {
        flip(op);
        auto next_state = static_cast<std::uint32_t>(next);
        if (cache_.insert(key(next_state), next_state, bits_)) {
          ++states_;
          stack_.push_back({entry_, state_});
          state_ = next_state;
          list_.lift(entry_);
          if (cur.match >= 0 && --remaining_ == 0) {
            verdict_ = LinVerdict::linearizable;
            return;
          }
          if (stack_.size() > best_prefix_.size()) {
            best_prefix_.clear();
            for (const auto& f : stack_) best_prefix_.push_back(list_.e[f.call].op);
          }
          entry_ = list_.e[0].next;
          return;
        }
        flip(op);  // seen before: not again
      }
      entry_ = cur.next;
      return;
    }
    // A return entry: that operation had to be linearized by now. Backtrack.
    if (stack_.empty()) {
      verdict_ = LinVerdict::not_linearizable;
      return;
    }
    Frame f = stack_.back();
    stack_.pop_back();
    flip(static_cast<std::uint32_t>(list_.e[f.call].op));
    state_ = f.state_before;
    list_.unlift(f.call);
    if (list_.e[f.call].match >= 0) ++remaining_;
    entry_ = list_.e[f.call].next;
  }

  struct Frame {
    std::int32_t call;
    std::uint32_t state_before;
  };
  PartitionModel& model_;
  EntryList list_;
  std::size_t words_;
  std::vector<std::uint64_t> bits_;
  std::vector<std::uint64_t> zobrist_;
  ConfigCache cache_;
  std::uint64_t set_hash_ = 0;
  std::uint32_t state_ = 0;
  std::size_t remaining_ = 0;  // determinate operations not yet linearized
  std::int32_t entry_ = -1;
  std::vector<Frame> stack_;
  std::uint64_t iterations_ = 0, states_ = 0;
  std::size_t peak_bytes_ = 0;
  std::vector<std::int32_t> best_prefix_;  // ops, in linearization order
  LinVerdict verdict_ = LinVerdict::unknown;
  std::string unknown_reason_;
};

// Rebuilds the witness from the longest prefix: the state after it, and which operations could
// have come next (every unplaced operation called before the first unplaced return).
LinearizabilityWitness make_witness(const std::string& partition, PartitionModel& model,
                     const std::vector<std::int32_t>& prefix) {
  LinearizabilityWitness w;
  w.partition = partition;
  std::uint32_t state = model.initial_state();
  std::vector<bool> placed(model.size(), false);
  for (auto op : prefix) {
    w.prefix.push_back(model.describe_op(static_cast<std::size_t>(op)));
    std::int64_t next = model.step(state, static_cast<std::uint32_t>(op));
    assert(next != PartitionModel::kIllegal);
    state = static_cast<std::uint32_t>(next);
    placed[static_cast<std::size_t>(op)] = true;
  }
  w.state_after_prefix = model.describe_state(state);
  EntryList list(model);
  for (auto i : list.order) {
    const auto& x = list.e[i];
    if (placed[static_cast<std::size_t>(x.op)]) continue;
    if (!x.is_call) {
      w.blocking = model.describe_op(static_cast<std::size_t>(x.op));
      break;
    }
    bool illegal = model.step(state, static_cast<std::uint32_t>(x.op)) == PartitionModel::kIllegal;
    w.cannot_place.push_back({model.describe_op(static_cast<std::size_t>(x.op)), illegal});
  }
  return w;
}

}  // namespace

LinearizabilityResult check_linearizability(std::vector<Partition>& partitions, const Budget& budget) {
  LinearizabilityResult result;
  const auto start = Clock::now();
  Limits limits;
  if (budget.time_seconds > 0)
    limits.deadline = start + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(budget.time_seconds));
  limits.memory_bytes = budget.memory_bytes;
  result.partitions = partitions.size();
  for (auto& p : partitions) {
    result.operations += p.model->size();
    for (std::size_t op = 0; op < p.model->size(); ++op)
      if (!p.model->interval(op).ret) ++result.indeterminate;
  }
  result.per_partition.resize(partitions.size());
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < partitions.size(); ++i) {
    result.per_partition[i].name = partitions[i].name;
    result.per_partition[i].operations = partitions[i].model->size();
    pending.push_back(i);
  }
  // Searches live across rounds; a decided partition's search is dropped to free its cache.
  std::vector<std::unique_ptr<Search>> searches(partitions.size());
  bool out_of_time = false, decided = false;
  for (std::uint64_t quota = 4096; !pending.empty() && !out_of_time && !decided; quota *= 4) {
    std::vector<std::size_t> still_pending;
    for (std::size_t i : pending) {
      if (out_of_time || decided) {
        still_pending.push_back(i);
        continue;
      }
      Partition& p = partitions[i];
      PartitionOutcome& po = result.per_partition[i];
      const auto t0 = Clock::now();
      if (!searches[i]) searches[i] = std::make_unique<Search>(*p.model);
      Search& s = *searches[i];
      // Each round lets a search go on four times as far as the last (0 after overflow: no limit).
      bool finished = s.run(quota, limits);
      po.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
      po.states_explored = s.states();
      result.peak_memory_bytes = std::max(result.peak_memory_bytes, s.peak_bytes());
      if (!finished) {
        still_pending.push_back(i);
        continue;
      }
      result.states_explored += s.states();
      po.verdict = s.verdict();
      if (s.verdict() == LinVerdict::not_linearizable) {
        result.verdict = LinVerdict::not_linearizable;
        result.unknown_reason.clear();
        result.witness = make_witness(p.name, *p.model, s.best_prefix());
        decided = true;
      } else if (s.verdict() == LinVerdict::unknown) {
        result.verdict = LinVerdict::unknown;
        if (result.unknown_reason.empty())
          result.unknown_reason = s.unknown_reason() + " in partition \"" + p.name + "\"";
        out_of_time = s.unknown_reason().rfind("time", 0) == 0;
      }
      searches[i].reset();
    }
    pending.swap(still_pending);
  }
  for (std::size_t i : pending)
    if (searches[i]) result.states_explored += searches[i]->states();
  if (!decided && !pending.empty()) {
    // Only a time budget stops the rounds early.
    result.verdict = LinVerdict::unknown;
    if (result.unknown_reason.empty()) result.unknown_reason = "time budget exhausted";
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace lockstep
