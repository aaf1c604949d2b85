#include "lockstep/checker/linearizability.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <mutex>
#include <thread>

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

namespace {

// What the threads searching one history's partitions share.
struct SharedSearch {
  SharedSearch(std::vector<Partition>& p, const SearchLimits& l, LinearizabilityResult& r)
      : partitions(p), limits(l), result(r) {}
  std::vector<Partition>& partitions;
  const SearchLimits& limits;
  LinearizabilityResult& result;  // per_partition[i] is written by i's thread only
  std::mutex mu;                  // guards the rest of result
  std::atomic<bool> decided{false};     // a partition is not linearizable: every thread stops
  std::atomic<bool> out_of_time{false};
  std::size_t witness_partition = SIZE_MAX;
  bool left_pending = false;
};

// Searches partitions in rounds: each round lets every pending search go on four times as far
// as the last, so that a short refutation in one partition is found before a long search of
// another ends. The first round takes partitions from the shared queue `order` (largest
// first), so that threads share the work whatever each partition costs; a partition that needs
// more rounds stays with the thread that started it. Stops when any partition (of any thread)
// is not linearizable.
void search_partitions(const std::vector<std::size_t>& order, std::atomic<std::size_t>& next,
                       SharedSearch& shared) {
  LinearizabilityResult& result = shared.result;
  // Searches live across rounds; a decided partition's search is dropped to free its cache.
  std::vector<std::unique_ptr<LinearizationSearch>> searches(shared.partitions.size());
  auto stopped = [&] { return shared.out_of_time || shared.decided; };
  // Runs partition i's search `quota` steps further (0 after overflow: no limit); true when
  // it is decided.
  auto advance = [&](std::size_t i, std::uint64_t quota) {
    Partition& p = shared.partitions[i];
    PartitionOutcome& po = result.per_partition[i];
    auto& search = searches[i];
    const auto t0 = Clock::now();
    if (!search) search = std::make_unique<LinearizationSearch>(*p.model);
    const bool finished = search->run(quota, shared.limits);
    po.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    po.states_explored = search->states();
    std::lock_guard<std::mutex> g(shared.mu);
    result.peak_memory_bytes = std::max(result.peak_memory_bytes, search->peak_bytes());
    if (!finished) return false;
    result.states_explored += search->states();
    po.verdict = search->verdict();
    if (search->verdict() == LinVerdict::not_linearizable) {
      // With several threads more than one may find one: the lowest partition's witness.
      if (i < shared.witness_partition) {
        shared.witness_partition = i;
        result.verdict = LinVerdict::not_linearizable;
        result.unknown_reason.clear();
        result.witness = make_witness(p.name, *p.model, search->best_prefix());
      }
      shared.decided = true;
    } else if (search->verdict() == LinVerdict::unknown && !shared.decided) {
      result.verdict = LinVerdict::unknown;
      if (result.unknown_reason.empty())
        result.unknown_reason = search->unknown_reason() + " in partition \"" + p.name + "\"";
      if (search->unknown_reason().rfind("time", 0) == 0) shared.out_of_time = true;
    }
    search.reset();
    return true;
  };
  std::uint64_t quota = 4096;
  std::vector<std::size_t> pending;
  for (std::size_t k; !stopped() && (k = next.fetch_add(1)) < order.size();)
    if (!advance(order[k], quota)) pending.push_back(order[k]);
  if (next.load() < order.size()) shared.left_pending = true;  // stopped before taking them all
  for (quota *= 4; !pending.empty() && !stopped(); quota *= 4) {
    std::vector<std::size_t> still_pending;
    for (std::size_t i : pending)
      if (stopped() || !advance(i, quota)) still_pending.push_back(i);
    pending.swap(still_pending);
  }
  std::lock_guard<std::mutex> g(shared.mu);
  for (std::size_t i : pending)
    if (searches[i]) result.states_explored += searches[i]->states();
  shared.left_pending = shared.left_pending || !pending.empty();
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
  for (std::size_t i = 0; i < partitions.size(); ++i) {
    result.per_partition[i].name = partitions[i].name;
    result.per_partition[i].operations = partitions[i].model->size();
  }
  SharedSearch shared(partitions, limits, result);
  // The largest partitions first (by operations; ties in partition order), so that no thread
  // starts a large one when the others are about done.
  std::vector<std::size_t> order(partitions.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (budget.threads > 1)
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return partitions[a].model->size() > partitions[b].model->size();
    });
  std::atomic<std::size_t> next{0};
  const std::size_t threads = std::clamp<std::size_t>(budget.threads, 1, std::max<std::size_t>(1, partitions.size()));
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < threads; ++t)
    helpers.emplace_back(search_partitions, std::cref(order), std::ref(next), std::ref(shared));
  search_partitions(order, next, shared);
  for (auto& h : helpers) h.join();
  if (!shared.decided && shared.left_pending) {
    // Only a time budget stops the rounds early.
    result.verdict = LinVerdict::unknown;
    if (result.unknown_reason.empty()) result.unknown_reason = "time budget exhausted";
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace lockstep
