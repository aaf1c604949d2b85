// Cross-check: the search against a brute-force checker that tries every subset of the
// indeterminate operations and every order of the chosen operations that respects real time
// (a before b when a returned strictly before b was called). The two must always agree.
#include <algorithm>

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include "lockstep/checker/linearizability.h"
#include "lockstep/model/mutex.h"
#include "lockstep/model/register.h"

namespace lockstep {

namespace {

template <class M>
bool brute_force_linearizable(const M& m, const std::vector<ModelOp<M>>& ops) {
  std::vector<std::size_t> optional_ops;
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (!ops[i].interval.ret) optional_ops.push_back(i);
  for (std::uint32_t mask = 0; mask < (1u << optional_ops.size()); ++mask) {
    std::vector<std::size_t> chosen;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      auto it = std::find(optional_ops.begin(), optional_ops.end(), i);
      if (it == optional_ops.end() || (mask >> (it - optional_ops.begin())) & 1)
        chosen.push_back(i);
    }
    do {
      bool respects_time = true;
      for (std::size_t a = 0; a < chosen.size() && respects_time; ++a)
        for (std::size_t b = a + 1; b < chosen.size(); ++b) {
          const auto& first = ops[chosen[a]].interval;
          const auto& second = ops[chosen[b]].interval;
          // `second` is placed after `first`: wrong if it returned before `first` was called.
          if (second.ret && *second.ret < first.call) {
            respects_time = false;
            break;
          }
        }
      if (!respects_time) continue;
      auto s = m.init();
      bool legal = true;
      for (auto i : chosen) {
        auto next = m.step(s, ops[i].input, ops[i].output ? &*ops[i].output : nullptr);
        if (!next) {
          legal = false;
          break;
        }
        s = *next;
      }
      if (legal) return true;
    } while (std::next_permutation(chosen.begin(), chosen.end()));
  }
  return false;
}

template <class M>
LinVerdict search_verdict(const std::vector<ModelOp<M>>& ops) {
  std::vector<Partition> parts;
  parts.push_back({"", std::make_unique<ModelPartition<M>>(M{}, ops)});
  return check_linearizability(parts, {}).verdict;
}

// Intervals on a small clock so that ties (closed-interval overlaps) are common.
OpInterval gen_interval(bool indeterminate) {
  auto call = *rc::gen::inRange<std::int64_t>(0, 12);
  OpInterval iv{call, {}};
  if (!indeterminate) iv.ret = call + *rc::gen::inRange<std::int64_t>(0, 5);
  return iv;
}

// Outputs come from a real run (each operation takes effect at a random point of its
// interval) so that about half the histories are linearizable; then some answers are mutated.
std::vector<ModelOp<model::CasRegister>> gen_register_history() {
  using M = model::CasRegister;
  const int n = *rc::gen::inRange(1, 8);
  std::vector<ModelOp<M>> ops(n);
  std::vector<std::pair<std::int64_t, int>> points;
  for (int i = 0; i < n; ++i) {
    auto& op = ops[i];
    op.input.kind = *rc::gen::element(M::Kind::read, M::Kind::write, M::Kind::cas);
    op.input.value = *rc::gen::inRange<std::int64_t>(0, 3);
    op.input.expected = *rc::gen::inRange<std::int64_t>(0, 3);
    op.interval = gen_interval(*rc::gen::weightedElement<bool>({{1, true}, {4, false}}));
    op.label = std::string("op").append(std::to_string(i));
    std::int64_t end = op.interval.ret.value_or(op.interval.call + 6);
    points.push_back({*rc::gen::inRange<std::int64_t>(op.interval.call, end + 1), i});
  }
  std::sort(points.begin(), points.end());
  M m;
  auto s = m.init();
  for (auto [at, i] : points) {
    auto& op = ops[i];
    M::Output out;
    out.value = s;
    out.succeeded = s && *s == op.input.expected;
    s = *m.step(s, op.input, nullptr);
    if (op.interval.ret) op.output = out;
  }
  for (auto& op : ops)
    if (op.output && *rc::gen::weightedElement<bool>({{1, true}, {5, false}})) {
      op.output->succeeded = !op.output->succeeded;
      if (op.output->value) op.output->value = (*op.output->value + 1) % 3;
      else op.output->value = 0;
    }
  return ops;
}

std::vector<ModelOp<model::OwnerMutex>> gen_mutex_history() {
  using M = model::OwnerMutex;
  const int n = *rc::gen::inRange(1, 8);
  std::vector<ModelOp<M>> ops(n);
  for (int i = 0; i < n; ++i) {
    ops[i].input.kind = *rc::gen::element(M::Kind::acquire, M::Kind::release);
    ops[i].input.process = *rc::gen::inRange(1, 4);
    ops[i].interval = gen_interval(*rc::gen::weightedElement<bool>({{1, true}, {4, false}}));
    if (ops[i].interval.ret) ops[i].output = M::Output{};
    ops[i].label = std::string("op").append(std::to_string(i));
  }
  return ops;
}

}  // namespace

TEST_CASE("the search agrees with brute force") {
  rc::prop("on cas-register histories", [] {
    auto ops = gen_register_history();
    bool expected = brute_force_linearizable(model::CasRegister{}, ops);
    RC_ASSERT((search_verdict(ops) == LinVerdict::linearizable) == expected);
    RC_TAG(expected ? "linearizable" : "not linearizable");
  });
  rc::prop("on owner-mutex histories", [] {
    auto ops = gen_mutex_history();
    bool expected = brute_force_linearizable(model::OwnerMutex{}, ops);
    RC_ASSERT((search_verdict(ops) == LinVerdict::linearizable) == expected);
    RC_TAG(expected ? "linearizable" : "not linearizable");
  });
}

}  // namespace lockstep
