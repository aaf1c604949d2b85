#include "lockstep/checker/linearizability.h"

#include <algorithm>
#include <cassert>

#include "lockstep/checker/entry_list.h"
#include "lockstep/checker/linearization_search.h"

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
  SearchLimits limits;
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
  std::vector<std::unique_ptr<LinearizationSearch>> searches(partitions.size());
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
      if (!searches[i]) searches[i] = std::make_unique<LinearizationSearch>(*p.model);
      LinearizationSearch& s = *searches[i];
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
