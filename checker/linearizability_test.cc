#include "lockstep/checker/linearizability.h"

#include <catch2/catch.hpp>

#include "lockstep/model/kv_map.h"
#include "lockstep/model/mutex.h"
#include "lockstep/model/register.h"

namespace lockstep {

namespace {

using model::CasRegister;
using model::FencedMutex;
using model::KvKey;
using model::OwnerMutex;
using RK = CasRegister::Kind;

ModelOp<CasRegister> reg(RK kind, std::int64_t value, std::optional<CasRegister::Output> out,
                         std::int64_t call, std::optional<std::int64_t> ret,
                         std::int64_t expected = 0) {
  static int n = 0;
  return {{kind, value, expected}, out, {call, ret}, std::string("op").append(std::to_string(n++))};
}
CasRegister::Output done() { return {}; }
CasRegister::Output saw(std::optional<std::int64_t> v) { return {v, false}; }

template <class M>
LinearizabilityResult check(std::vector<ModelOp<M>> ops, Budget budget = {}, M m = {}) {
  std::vector<Partition> parts;
  parts.push_back({"", std::make_unique<ModelPartition<M>>(m, std::move(ops))});
  return check_linearizability(parts, budget);
}

}  // namespace

TEST_CASE("register: a sequential history is linearizable - a stale read is not") {
  auto ok = check<CasRegister>({reg(RK::write, 1, done(), 0, 1), reg(RK::read, 0, saw(1), 2, 3)});
  CHECK(ok.verdict == LinVerdict::linearizable);
  auto stale = check<CasRegister>({reg(RK::write, 1, done(), 0, 1), reg(RK::write, 2, done(), 2, 3),
                                   reg(RK::read, 0, saw(1), 4, 5)});
  CHECK(stale.verdict == LinVerdict::not_linearizable);
  REQUIRE(stale.witness);
  CHECK(stale.witness->prefix.size() == 2);
  CHECK(stale.witness->state_after_prefix == "2");
  REQUIRE(stale.witness->cannot_place.size() == 1);
  CHECK(stale.witness->cannot_place[0].illegal_here);
  CHECK(stale.witness->cannot_place[0].op.find("read -> 1") != std::string::npos);
}

TEST_CASE("register: overlapping operations may take effect in either order") {
  // The read overlaps both writes, so it may see the first.
  auto r = check<CasRegister>({reg(RK::write, 1, done(), 0, 10), reg(RK::write, 2, done(), 1, 2),
                               reg(RK::read, 0, saw(1), 3, 11)});
  CHECK(r.verdict == LinVerdict::linearizable);
}

TEST_CASE("closed intervals: a call at the instant of a return overlaps it") {
  // write 1 is [0, 5]; a read called at 5 overlaps it and may still see the initial nil.
  auto touching = check<CasRegister>({reg(RK::write, 1, done(), 0, 5), reg(RK::read, 0, saw({}), 5, 6)});
  CHECK(touching.verdict == LinVerdict::linearizable);
  auto after = check<CasRegister>({reg(RK::write, 1, done(), 0, 5), reg(RK::read, 0, saw({}), 6, 7)});
  CHECK(after.verdict == LinVerdict::not_linearizable);
}

TEST_CASE("indeterminate operations: any time after the call - or never") {
  // Never: the read after it still sees nil.
  CHECK(check<CasRegister>({reg(RK::write, 1, std::nullopt, 0, std::nullopt),
                            reg(RK::read, 0, saw({}), 5, 6)})
            .verdict == LinVerdict::linearizable);
  // Long after its call: a read much later is the first to see it, and it then stays.
  CHECK(check<CasRegister>({reg(RK::write, 1, std::nullopt, 0, std::nullopt),
                            reg(RK::read, 0, saw({}), 5, 6), reg(RK::read, 0, saw(1), 50, 51)})
            .verdict == LinVerdict::linearizable);
  auto flicker = check<CasRegister>({reg(RK::write, 0, done(), 0, 1),
                                     reg(RK::write, 1, std::nullopt, 2, std::nullopt),
                                     reg(RK::read, 0, saw(1), 3, 4), reg(RK::read, 0, saw(0), 5, 6)});
  CHECK(flicker.verdict == LinVerdict::not_linearizable);
  // Not before its call.
  CHECK(check<CasRegister>({reg(RK::read, 0, saw(1), 0, 1),
                            reg(RK::write, 1, std::nullopt, 2, std::nullopt)})
            .verdict == LinVerdict::not_linearizable);
  // Only indeterminate operations: nothing has to be placed.
  auto only = check<CasRegister>({reg(RK::write, 1, std::nullopt, 0, std::nullopt)});
  CHECK(only.verdict == LinVerdict::linearizable);
  CHECK(only.indeterminate == 1);
}

TEST_CASE("owner mutex: overlapping holds and foreign releases are violations") {
  using K = OwnerMutex::Kind;
  auto op = [](K k, int p, std::int64_t call, std::int64_t ret) {
    return ModelOp<OwnerMutex>{{k, p}, OwnerMutex::Output{}, {call, ret}, std::string("p").append(std::to_string(p))};
  };
  CHECK(check<OwnerMutex>({op(K::acquire, 1, 0, 1), op(K::release, 1, 2, 3),
                           op(K::acquire, 2, 4, 5), op(K::release, 2, 6, 7)})
            .verdict == LinVerdict::linearizable);
  // Client 2 acquires while 1 holds, with no release in between.
  CHECK(check<OwnerMutex>({op(K::acquire, 1, 0, 1), op(K::acquire, 2, 2, 3)}).verdict ==
        LinVerdict::not_linearizable);
  // Client 2 releases 1's lock, then acquires.
  CHECK(check<OwnerMutex>({op(K::acquire, 1, 0, 1), op(K::release, 2, 2, 3),
                           op(K::acquire, 2, 4, 5)})
            .verdict == LinVerdict::not_linearizable);
  // The release overlaps the second acquire: fine.
  CHECK(check<OwnerMutex>({op(K::acquire, 1, 0, 1), op(K::release, 1, 2, 6),
                           op(K::acquire, 2, 3, 7)})
            .verdict == LinVerdict::linearizable);
}

TEST_CASE("fenced mutex: a later holder with a smaller token is a violation") {
  using K = FencedMutex::Kind;
  auto acq = [](int p, std::int64_t token, std::int64_t call, std::int64_t ret) {
    return ModelOp<FencedMutex>{{K::acquire, p, {}}, FencedMutex::Output{token}, {call, ret}, "a"};
  };
  auto rel = [](int p, std::int64_t call, std::int64_t ret) {
    return ModelOp<FencedMutex>{{K::release, p, {}}, FencedMutex::Output{}, {call, ret}, "r"};
  };
  CHECK(check<FencedMutex>({acq(1, 10, 0, 1), rel(1, 2, 3), acq(2, 11, 4, 5)}).verdict ==
        LinVerdict::linearizable);
  CHECK(check<FencedMutex>({acq(1, 10, 0, 1), rel(1, 2, 3), acq(2, 9, 4, 5)}).verdict ==
        LinVerdict::not_linearizable);
  // Concurrent acquires may be ordered by their tokens.
  CHECK(check<FencedMutex>({acq(1, 10, 0, 10), rel(1, 11, 12), acq(2, 9, 1, 3), rel(2, 4, 5)})
            .verdict == LinVerdict::linearizable);
}

TEST_CASE("partitions: checked in order - the first violation decides") {
  using K = KvKey::Kind;
  auto op = [](K k, std::string v, std::optional<std::string> out, std::int64_t call,
               std::int64_t ret) {
    return ModelOp<KvKey>{{k, std::move(v)}, KvKey::Output{out.value_or("")}, {call, ret}, "kv"};
  };
  std::vector<Partition> parts;
  parts.push_back({"a", std::make_unique<ModelPartition<KvKey>>(
                            KvKey{}, std::vector{op(K::append, "x", {}, 0, 1),
                                                 op(K::get, "", "x", 2, 3)})});
  parts.push_back({"b", std::make_unique<ModelPartition<KvKey>>(
                            KvKey{}, std::vector{op(K::put, "y", {}, 0, 1),
                                                 op(K::get, "", "", 2, 3)})});
  parts.push_back({"c", std::make_unique<ModelPartition<KvKey>>(
                            KvKey{}, std::vector{op(K::get, "", "zzz", 0, 1)})});
  auto r = check_linearizability(parts, {});
  CHECK(r.verdict == LinVerdict::not_linearizable);
  CHECK(r.partitions == 3);
  CHECK(r.operations == 5);
  REQUIRE(r.witness);
  CHECK(r.witness->partition == "b");
  REQUIRE(r.per_partition.size() == 3);
  CHECK(r.per_partition[0].verdict == LinVerdict::linearizable);
  CHECK(r.per_partition[2].verdict == LinVerdict::unknown);  // not needed: not searched
  CHECK(r.per_partition[2].states_explored == 0);
}

namespace {
// Many concurrent writes and reads that saw 0, then 1, then 0 again: each write happens once,
// so no order explains them, but every value is written, so the search must visit the subsets
// of the other writes that may come first before it knows.
std::vector<ModelOp<CasRegister>> hard_history(int writers) {
  std::vector<ModelOp<CasRegister>> ops;
  for (int i = 0; i < writers; ++i) ops.push_back(reg(RK::write, i, done(), 0, 100));
  ops.push_back(reg(RK::read, 0, saw(0), 0, 10));
  ops.push_back(reg(RK::read, 0, saw(1), 20, 30));
  ops.push_back(reg(RK::read, 0, saw(0), 40, 50));
  return ops;
}
}  // namespace

TEST_CASE("budgets: out of time or memory is unknown - never linearizable") {
  auto full = check<CasRegister>(hard_history(12));
  CHECK(full.verdict == LinVerdict::not_linearizable);
  CHECK(full.states_explored > 4096);

  Budget no_time;
  no_time.time_seconds = 1e-9;
  auto timed = check<CasRegister>(hard_history(16), no_time);
  CHECK(timed.verdict == LinVerdict::unknown);
  CHECK(timed.unknown_reason.find("time") != std::string::npos);
  CHECK_FALSE(timed.witness);

  Budget no_memory;
  no_memory.memory_bytes = 1;
  auto starved = check<CasRegister>(hard_history(16), no_memory);
  CHECK(starved.verdict == LinVerdict::unknown);
  CHECK(starved.unknown_reason.find("memory") != std::string::npos);
}

TEST_CASE("the cache keeps the search from exploring a configuration twice") {
  // 2^12 subsets of writes, each with a handful of possible states: the cache bounds the
  // count far below the 12! orders.
  auto r = check<CasRegister>(hard_history(12));
  CHECK(r.states_explored < 13 * 4096 + 1);
}

}  // namespace lockstep
