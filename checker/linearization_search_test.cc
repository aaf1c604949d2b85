// The search's reductions (covered configurations, twins, reads first) against a plain
// reference search without any of them, on random histories larger than brute force can
// enumerate; and the cases each reduction must get right.
#include "lockstep/checker/linearization_search.h"

#include <functional>
#include <map>
#include <set>

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include "lockstep/model/kv_map.h"
#include "lockstep/model/register.h"

namespace lockstep {

namespace {

// Wing & Gong's search with a memo of failed (linearized set, state), nothing more: an
// operation may go next when no unlinearized determinate operation returned before its call;
// indeterminate operations may be left out.
template <class M>
bool reference_linearizable(const M& m, const std::vector<ModelOp<M>>& ops) {
  std::set<std::pair<std::uint64_t, typename M::State>> failed;
  std::function<bool(std::uint64_t, const typename M::State&)> go =
      [&](std::uint64_t done, const typename M::State& s) {
        std::int64_t deadline = INT64_MAX;
        for (std::size_t i = 0; i < ops.size(); ++i)
          if (!(done >> i & 1) && ops[i].interval.ret)
            deadline = std::min(deadline, *ops[i].interval.ret);
        if (deadline == INT64_MAX) return true;  // every determinate operation placed
        if (failed.count({done, s})) return false;
        for (std::size_t i = 0; i < ops.size(); ++i) {
          if ((done >> i & 1) || ops[i].interval.call > deadline) continue;
          auto next = m.step(s, ops[i].input, ops[i].output ? &*ops[i].output : nullptr);
          if (next && go(done | std::uint64_t{1} << i, *next)) return true;
        }
        failed.insert({done, s});
        return false;
      };
  return go(0, m.init());
}

template <class M>
LinearizabilityResult search(const std::vector<ModelOp<M>>& ops) {
  std::vector<Partition> parts;
  parts.push_back({"", std::make_unique<ModelPartition<M>>(M{}, ops)});
  return check_linearizability(parts, {});
}

// Operations at random points on a small clock (many overlaps), a quarter indeterminate, each
// taking effect at a random point of its interval, then now and then an answer changed (so
// that a tenth to a third of the histories are not linearizable). `effect` applies an input and
// says what it answered; `mutate` changes an answer.
template <class M, class Input, class Effect, class Mutate>
std::vector<ModelOp<M>> gen_history(int max_ops, Input gen_input, Effect effect, Mutate mutate) {
  const int n = *rc::gen::inRange(1, max_ops + 1);
  std::vector<ModelOp<M>> ops(static_cast<std::size_t>(n));
  std::vector<std::pair<std::int64_t, int>> points;
  for (int i = 0; i < n; ++i) {
    auto& op = ops[static_cast<std::size_t>(i)];
    op.input = gen_input();
    op.interval.call = *rc::gen::inRange<std::int64_t>(0, 30);
    const bool indeterminate = *rc::gen::weightedElement<bool>({{1, true}, {3, false}});
    if (!indeterminate) op.interval.ret = op.interval.call + *rc::gen::inRange<std::int64_t>(0, 9);
    op.label = "op" + std::to_string(i);
    const std::int64_t end = op.interval.ret.value_or(op.interval.call + 12);
    points.push_back({*rc::gen::inRange<std::int64_t>(op.interval.call, end + 1), i});
  }
  std::sort(points.begin(), points.end());
  typename M::State s = M{}.init();
  for (auto [at, i] : points) {
    auto& op = ops[static_cast<std::size_t>(i)];
    auto out = effect(s, op.input);
    if (!op.interval.ret) continue;
    if (*rc::gen::weightedElement<bool>({{1, true}, {7, false}})) mutate(out);
    op.output = out;
  }
  return ops;
}

using Reg = model::CasRegister;

std::vector<ModelOp<Reg>> gen_register(int max_ops) {
  auto input = [] {
    Reg::Input in;
    in.kind = *rc::gen::element(Reg::Kind::read, Reg::Kind::write, Reg::Kind::cas);
    in.value = *rc::gen::inRange<std::int64_t>(0, 3);
    in.expected = *rc::gen::inRange<std::int64_t>(0, 3);
    return in;
  };
  auto effect = [](Reg::State& s, const Reg::Input& in) {
    Reg::Output out;
    out.value = s;
    out.succeeded = s && *s == in.expected;
    s = *Reg{}.step(s, in, nullptr);
    return out;
  };
  auto mutate = [](Reg::Output& out) {
    out.succeeded = !out.succeeded;
    out.value = (out.value.value_or(-1) + 2) % 4;  // 0..2, or 3: never written
  };
  return gen_history<Reg>(max_ops, input, effect, mutate);
}

std::vector<ModelOp<model::KvKey>> gen_kv(int max_ops) {
  using K = model::KvKey;
  auto input = [] {
    K::Input in;
    in.kind = *rc::gen::element(K::Kind::get, K::Kind::put, K::Kind::append);
    in.value = *rc::gen::element<std::string>("a", "b", "");
    return in;
  };
  auto effect = [](K::State& s, const K::Input& in) {
    K::Output out{s};
    s = *K{}.step(s, in, nullptr);
    return out;
  };
  auto mutate = [](K::Output& out) { out.value = out.value.empty() ? "b" : out.value.substr(1); };
  return gen_history<K>(max_ops, input, effect, mutate);
}

Reg::Output done() { return {}; }
Reg::Output saw(std::optional<std::int64_t> v) { return {v, false}; }
Reg::Output cas_ok(bool ok) { return {{}, ok}; }
ModelOp<Reg> op(Reg::Kind kind, std::int64_t value, std::optional<Reg::Output> out,
                std::int64_t call, std::optional<std::int64_t> ret, std::int64_t expected = 0) {
  return {{kind, value, expected}, out, {call, ret}, "op"};
}

}  // namespace

TEST_CASE("the search agrees with a reference search without reductions") {
  rc::prop("on cas-register histories of up to 22 operations", [] {
    auto ops = gen_register(22);
    const bool expected = reference_linearizable(Reg{}, ops);
    RC_ASSERT((search(ops).verdict == LinVerdict::linearizable) == expected);
    RC_TAG(expected ? "linearizable" : "not linearizable");
  });
  rc::prop("on kv histories of up to 18 operations", [] {
    auto ops = gen_kv(18);
    const bool expected = reference_linearizable(model::KvKey{}, ops);
    RC_ASSERT((search(ops).verdict == LinVerdict::linearizable) == expected);
    RC_TAG(expected ? "linearizable" : "not linearizable");
  });
}

TEST_CASE("reads first: a write of the current value is no read - it may take effect later") {
  // write 0, then a write 0 pending across a cas 0 -> 2 and a read of 0: the pending write
  // must come after the cas. Taking it at once (it changes nothing there) would lose that.
  auto r = search<Reg>({op(Reg::Kind::write, 0, done(), 0, 1),
                        op(Reg::Kind::write, 0, done(), 2, 10),
                        op(Reg::Kind::cas, 2, cas_ok(true), 3, 4, 0),
                        op(Reg::Kind::read, 0, saw(0), 5, 6)});
  CHECK(r.verdict == LinVerdict::linearizable);
  // A failed cas is read-only: legal only after the write 3 it overlaps.
  auto f = search<Reg>({op(Reg::Kind::write, 1, done(), 0, 1),
                        op(Reg::Kind::cas, 2, cas_ok(false), 2, 10, 1),
                        op(Reg::Kind::write, 3, done(), 3, 4), op(Reg::Kind::read, 0, saw(3), 5, 6)});
  CHECK(f.verdict == LinVerdict::linearizable);
  // Without the write 3 it can never be legal.
  auto g = search<Reg>({op(Reg::Kind::write, 1, done(), 0, 1),
                        op(Reg::Kind::cas, 2, cas_ok(false), 2, 10, 1)});
  CHECK(g.verdict == LinVerdict::not_linearizable);
}

TEST_CASE("covered configurations: crashed writes nobody reads cost next to nothing") {
  // 40 crashed writes of distinct values, then writes and reads, and a stale read at the end.
  // Without covering, every subset of the crashed writes is a configuration of its own: 2^40.
  std::vector<ModelOp<Reg>> ops;
  for (int i = 0; i < 40; ++i) ops.push_back(op(Reg::Kind::write, 100 + i, std::nullopt, i, {}));
  for (int i = 0; i < 10; ++i) {
    ops.push_back(op(Reg::Kind::write, i, done(), 50 + 4 * i, 51 + 4 * i));
    ops.push_back(op(Reg::Kind::read, 0, saw(i), 52 + 4 * i, 53 + 4 * i));
  }
  auto ok = search(ops);
  CHECK(ok.verdict == LinVerdict::linearizable);
  ops.push_back(op(Reg::Kind::read, 0, saw(3), 100, 101));  // stale: 9 was written since
  auto stale = search(ops);
  CHECK(stale.verdict == LinVerdict::not_linearizable);
  CHECK(stale.states_explored < 20000);
}

TEST_CASE("twins: crashed writes of one value are tried once, the earliest first") {
  // 30 crashed writes of 7; a read of 7 needs one of them; then 5 overwrites and a stale read
  // of 7 that only a second crashed 7 could explain: linearizable, and cheap either way.
  std::vector<ModelOp<Reg>> ops;
  for (int i = 0; i < 30; ++i) ops.push_back(op(Reg::Kind::write, 7, std::nullopt, i, {}));
  ops.push_back(op(Reg::Kind::read, 0, saw(7), 40, 41));
  ops.push_back(op(Reg::Kind::write, 5, done(), 42, 43));
  ops.push_back(op(Reg::Kind::read, 0, saw(7), 44, 45));
  auto r = search(ops);
  CHECK(r.verdict == LinVerdict::linearizable);
  CHECK(r.states_explored < 200);
  // With a single crashed 7 the second read of 7 cannot be explained.
  std::vector<ModelOp<Reg>> one = {op(Reg::Kind::write, 7, std::nullopt, 0, {}),
                                   op(Reg::Kind::read, 0, saw(7), 40, 41),
                                   op(Reg::Kind::write, 5, done(), 42, 43),
                                   op(Reg::Kind::read, 0, saw(7), 44, 45)};
  CHECK(search(one).verdict == LinVerdict::not_linearizable);
}

}  // namespace lockstep
