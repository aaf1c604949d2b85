#include "lockstep/model/etcd_kv.h"

#include <catch2/catch.hpp>

namespace lockstep::model {

namespace {
PutRequest put(std::string k, std::string v, LeaseId lease = 0) {
  PutRequest p;
  p.key = std::move(k);
  p.value = std::move(v);
  p.lease = lease;
  return p;
}
// (Requests are built by these helpers rather than by assigning literals to fields: g++ 12 at
// -O3 reports a false -Wrestrict on `field = "literal"` after inlining.)
DeleteRangeRequest del(std::string k) {
  DeleteRangeRequest d;
  d.key = std::move(k);
  return d;
}
RangeRequest range(std::string k, std::string end = "") {
  RangeRequest r;
  r.key = std::move(k);
  r.range_end = std::move(end);
  return r;
}
}  // namespace

TEST_CASE("etcd model: revisions - versions and create revisions") {
  EtcdKv::State s;
  CHECK(s.revision == 1);
  auto r1 = std::get<PutResponse>(EtcdKv::apply(s, put("a", "1")));
  CHECK(r1.header.revision == 2);
  EtcdKv::apply(s, put("a", "2"));
  EtcdKv::apply(s, put("b", "x"));
  auto got = std::get<RangeResponse>(EtcdKv::apply(s, range("a")));
  CHECK(got.header.revision == 4);
  REQUIRE(got.kvs.size() == 1);
  CHECK(got.kvs[0].create_revision == 2);
  CHECK(got.kvs[0].mod_revision == 3);
  CHECK(got.kvs[0].version == 2);
  CHECK(got.kvs[0].value == "2");
  // A delete of a missing key does not bump the revision; a real delete does.
  CHECK(std::get<DeleteRangeResponse>(EtcdKv::apply(s, del("zzz"))).header.revision == 4);
  auto d = std::get<DeleteRangeResponse>(EtcdKv::apply(s, del("a")));
  CHECK(d.deleted == 1);
  CHECK(d.header.revision == 5);
  // Re-created: new create revision, version 1.
  EtcdKv::apply(s, put("a", "3"));
  auto again = std::get<RangeResponse>(EtcdKv::apply(s, range("a")));
  CHECK(again.kvs[0].create_revision == 6);
  CHECK(again.kvs[0].version == 1);
}

TEST_CASE("etcd model: a txn's writes share one revision and compares see the store") {
  EtcdKv::State s;
  EtcdKv::apply(s, put("lock", "old"));  // revision 2
  TxnRequest t;
  Compare absent;  // "the key does not exist": create_revision == 0
  absent.key = "lock";
  absent.target = CompareTarget::create;
  absent.result = CompareResult::equal;
  t.compare.push_back(absent);
  t.success.push_back(RequestOp{put("lock", "me")});
  t.success.push_back(RequestOp{put("owner", "me")});
  t.failure.push_back(RequestOp{range("lock")});
  auto failed = std::get<TxnResponse>(EtcdKv::apply(s, t));
  CHECK_FALSE(failed.succeeded);
  CHECK(failed.header.revision == 2);
  REQUIRE(failed.responses.size() == 1);
  CHECK(std::get<RangeResponse>(failed.responses[0].response).kvs[0].value == "old");

  EtcdKv::apply(s, del("lock"));  // revision 3
  auto won = std::get<TxnResponse>(EtcdKv::apply(s, t));
  CHECK(won.succeeded);
  CHECK(won.header.revision == 4);
  auto all = std::get<RangeResponse>(EtcdKv::apply(s, range("a", std::string(1, '\0'))));
  REQUIRE(all.kvs.size() == 2);
  CHECK(all.kvs[0].mod_revision == 4);
  CHECK(all.kvs[1].mod_revision == 4);
}

TEST_CASE("etcd model: a value compare on a missing key always fails") {
  EtcdKv::State s;
  TxnRequest t;
  t.compare.push_back(Compare::value_of("k", CompareResult::not_equal, "x"));
  CHECK_FALSE(std::get<TxnResponse>(EtcdKv::apply(s, t)).succeeded);
}

TEST_CASE("etcd model: step rejects a response that does not match") {
  EtcdKv m;
  auto s = m.init();
  EtcdKv::Output wrong_rev = PutResponse{ResponseHeader{0, 0, 7, 0}, {}};
  CHECK_FALSE(m.step(s, put("a", "1"), &wrong_rev));
  EtcdKv::Output right_rev = PutResponse{ResponseHeader{0, 0, 2, 0}, {}};
  auto next = m.step(s, put("a", "1"), &right_rev);
  REQUIRE(next);
  EtcdKv::Output unrecorded = RangeResponse{};  // revision 0: not recorded; but no kvs: wrong
  CHECK_FALSE(m.step(*next, range("a"), &unrecorded));
  EtcdKv::State copy = *next;
  EtcdKv::Output right = EtcdKv::apply(copy, range("a"));
  CHECK(m.step(*next, range("a"), &right));
  CHECK(m.step(*next, range("a"), nullptr));
}

TEST_CASE("etcd model: limit - count and more - and a lease revoke deletes the lease keys") {
  EtcdKv::State s;
  EtcdKv::apply(s, put("p/1", "a", 7));
  EtcdKv::apply(s, put("p/2", "b", 7));
  EtcdKv::apply(s, put("p/3", "c"));
  auto r = range("p/", "p0");
  r.limit = 2;
  auto got = std::get<RangeResponse>(EtcdKv::apply(s, r));
  CHECK(got.count == 3);
  CHECK(got.more);
  CHECK(got.kvs.size() == 2);
  r.sort_target = SortTarget::mod;
  r.sort_order = SortOrder::descend;
  auto desc = std::get<RangeResponse>(EtcdKv::apply(s, r));
  CHECK(desc.kvs[0].key == "p/3");
  auto revoked = EtcdKv::apply(s, LeaseRevokeRequest{7});
  CHECK(std::visit([](auto& x) { return x.header.revision; }, revoked) == 5);
  auto left = std::get<RangeResponse>(EtcdKv::apply(s, range("p/", "p0")));
  REQUIRE(left.kvs.size() == 1);
  CHECK(left.kvs[0].key == "p/3");
}

}  // namespace lockstep::model
