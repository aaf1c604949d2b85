// One test per rule of docs/etcd-semantics.md (Revisions, Range, Txn, Leases, Watch) that the store
// decides, plus the put/delete/compaction details etcd 3.4 exhibits.
#include "lockstep/sim/etcd_store.h"

#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace lockstep;
using lockstep::sim::EtcdStore;
using lockstep::sim::EtcdStoreOptions;

MonoTime at_ms(std::int64_t ms) { return MonoTime(milliseconds(ms)); }

PutRequest put_req(std::string key, std::string value, LeaseId lease = 0) {
  PutRequest r;
  r.key = std::move(key);
  r.value = std::move(value);
  r.lease = lease;
  return r;
}

DeleteRangeRequest del_req(std::string key, std::string range_end = {}) {
  DeleteRangeRequest r;
  r.key = std::move(key);
  r.range_end = std::move(range_end);
  return r;
}

RangeRequest range_req(std::string key, std::string range_end = {}, Revision revision = 0) {
  RangeRequest r;
  r.key = std::move(key);
  r.range_end = std::move(range_end);
  r.revision = revision;
  return r;
}

RequestOp op(RangeRequest r) { return RequestOp{std::move(r)}; }
RequestOp op(PutRequest r) { return RequestOp{std::move(r)}; }
RequestOp op(DeleteRangeRequest r) { return RequestOp{std::move(r)}; }
RequestOp op(TxnRequest r) { return RequestOp{std::make_shared<TxnRequest>(std::move(r))}; }

Revision put(EtcdStore& s, const std::string& key, const std::string& value, LeaseId lease = 0,
             std::vector<Event>* events = nullptr) {
  auto r = s.put(put_req(key, value, lease), events);
  REQUIRE(r.ok());
  return r->header.revision;
}

std::optional<KeyValue> get(const EtcdStore& s, const std::string& key, Revision revision = 0) {
  auto r = s.range(range_req(key, {}, revision));
  REQUIRE(r.ok());
  if (r->kvs.empty()) return std::nullopt;
  return r->kvs.front();
}

std::vector<std::string> keys_of(const std::vector<KeyValue>& kvs) {
  std::vector<std::string> keys;
  for (const auto& kv : kvs) keys.push_back(kv.key);
  return keys;
}

std::vector<std::string> range_keys(const EtcdStore& s, const RangeRequest& req) {
  auto r = s.range(req);
  REQUIRE(r.ok());
  return keys_of(r->kvs);
}

void grant(EtcdStore& s, LeaseId id, std::int64_t ttl_seconds, MonoTime now = at_ms(0)) {
  LeaseGrantRequest g;
  g.id = id;
  g.ttl_seconds = ttl_seconds;
  REQUIRE(s.lease_grant(g, now).ok());
}

const TxnResponse& nested_txn(const ResponseOp& op) {
  return *std::get<std::shared_ptr<TxnResponse>>(op.response);
}

// ================================ Revisions and keys ================================

TEST_CASE("a new store is at revision 1") {
  EtcdStore s;
  CHECK(s.revision() == 1);
  CHECK(s.all_live_keys().empty());
  auto r = s.range(range_req("a"));
  REQUIRE(r.ok());
  CHECK(r->header.revision == 1);
}

TEST_CASE("every write that changes a key adds exactly 1 to the revision") {
  EtcdStore s;
  CHECK(put(s, "a", "1") == 2);
  CHECK(put(s, "b", "1") == 3);
  auto d = s.delete_range(del_req("a"), nullptr);
  REQUIRE(d.ok());
  CHECK(d->deleted == 1);
  CHECK(d->header.revision == 4);
  CHECK(s.revision() == 4);
}

TEST_CASE("all changes of one write txn share one revision") {
  EtcdStore s;
  put(s, "c", "old");
  TxnRequest t;
  t.success = {op(put_req("a", "1")), op(put_req("b", "1")), op(del_req("c"))};
  std::vector<Event> events;
  auto r = s.txn(t, &events);
  REQUIRE(r.ok());
  CHECK(r->header.revision == 3);
  CHECK(s.revision() == 3);
  REQUIRE(events.size() == 3);
  for (const Event& e : events) CHECK(e.kv.mod_revision == 3);
  CHECK(get(s, "a")->mod_revision == 3);
  CHECK(get(s, "b")->create_revision == 3);
}

TEST_CASE("a delete range that removes several keys bumps the revision once") {
  EtcdStore s;
  put(s, "a", "1");
  put(s, "ab", "1");
  put(s, "b", "1");
  auto r = s.delete_range(del_req("a", "c"), nullptr);
  REQUIRE(r.ok());
  CHECK(r->deleted == 3);
  CHECK(s.revision() == 5);
}

TEST_CASE("read-only txns do not bump the revision") {
  EtcdStore s;
  put(s, "a", "1");
  TxnRequest t;
  t.compare = {Compare::version_of("a", CompareResult::equal, 1)};
  t.success = {op(range_req("a"))};
  auto r = s.txn(t, nullptr);
  REQUIRE(r.ok());
  CHECK(r->succeeded);
  CHECK(r->header.revision == 2);
  CHECK(s.revision() == 2);
}

TEST_CASE("a txn whose writes change nothing does not bump the revision") {
  EtcdStore s;
  TxnRequest t;
  t.success = {op(del_req("missing"))};
  std::vector<Event> events;
  auto r = s.txn(t, &events);
  REQUIRE(r.ok());
  CHECK(r->header.revision == 1);
  CHECK(s.revision() == 1);
  CHECK(events.empty());
}

TEST_CASE("deleting missing keys does not bump the revision") {
  EtcdStore s;
  put(s, "a", "1");
  std::vector<Event> events;
  auto r = s.delete_range(del_req("b", "z"), &events);
  REQUIRE(r.ok());
  CHECK(r->deleted == 0);
  CHECK(r->header.revision == 2);
  CHECK(s.revision() == 2);
  CHECK(events.empty());
}

TEST_CASE("create_revision is set on creation and again on re-creation after a delete") {
  EtcdStore s;
  put(s, "k", "1");                 // rev 2
  put(s, "k", "2");                 // rev 3
  CHECK(get(s, "k")->create_revision == 2);
  REQUIRE(s.delete_range(del_req("k"), nullptr).ok());  // rev 4
  put(s, "k", "3");                 // rev 5
  CHECK(get(s, "k")->create_revision == 5);
}

TEST_CASE("mod_revision is the revision of the last put") {
  EtcdStore s;
  put(s, "k", "1");
  put(s, "other", "1");
  put(s, "k", "2");
  CHECK(get(s, "k")->mod_revision == 4);
  CHECK(get(s, "other")->mod_revision == 3);
}

TEST_CASE("version is 1 on creation - +1 per put - and a deleted key reads as version 0") {
  EtcdStore s;
  put(s, "k", "1");
  CHECK(get(s, "k")->version == 1);
  put(s, "k", "2");
  put(s, "k", "3");
  CHECK(get(s, "k")->version == 3);
  REQUIRE(s.delete_range(del_req("k"), nullptr).ok());
  CHECK_FALSE(get(s, "k").has_value());
  TxnRequest t;
  t.compare = {Compare::version_of("k", CompareResult::equal, 0)};
  auto r = s.txn(t, nullptr);
  REQUIRE(r.ok());
  CHECK(r->succeeded);
  put(s, "k", "again");
  CHECK(get(s, "k")->version == 1);
}

TEST_CASE("lease is 0 when a key has none") {
  EtcdStore s;
  put(s, "k", "v");
  CHECK(get(s, "k")->lease == 0);
}

TEST_CASE("a put with an unknown lease fails with lease not found") {
  EtcdStore s;
  auto r = s.put(put_req("k", "v", 42), nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::lease_not_found);
  CHECK_FALSE(r.error().indeterminate());
  CHECK(s.revision() == 1);
  CHECK_FALSE(get(s, "k").has_value());
}

TEST_CASE("every response header carries the store revision at which it was served") {
  EtcdStore s;
  put(s, "a", "1");
  put(s, "a", "2");
  auto old_read = s.range(range_req("a", {}, 2));
  REQUIRE(old_read.ok());
  CHECK(old_read->header.revision == 3);  // the store's revision, not the one read
  CHECK(old_read->kvs.at(0).value == "1");
  auto c = s.compact(CompactionRequest{2, false});
  REQUIRE(c.ok());
  CHECK(c->header.revision == 3);
  LeaseGrantRequest g;
  g.id = 7;
  g.ttl_seconds = 5;
  auto lg = s.lease_grant(g, at_ms(0));
  REQUIRE(lg.ok());
  CHECK(lg->header.revision == 3);
  CHECK(s.lease_time_to_live({7, false}, at_ms(0)).header.revision == 3);
}

// ===================================== Put details =====================================

TEST_CASE("put prev_kv returns the previous value only when asked and when there was one") {
  EtcdStore s;
  PutRequest p = put_req("k", "1");
  p.prev_kv = true;
  auto first = s.put(p, nullptr);
  REQUIRE(first.ok());
  CHECK(first->prev_kv.empty());
  p.value = "2";
  auto second = s.put(p, nullptr);
  REQUIRE(second.ok());
  REQUIRE(second->prev_kv.size() == 1);
  CHECK(second->prev_kv[0].value == "1");
  CHECK(second->prev_kv[0].mod_revision == 2);
  auto third = s.put(put_req("k", "3"), nullptr);
  REQUIRE(third.ok());
  CHECK(third->prev_kv.empty());
}

TEST_CASE("ignore_value keeps the value and ignore_lease keeps the lease") {
  EtcdStore s;
  grant(s, 1, 10);
  grant(s, 2, 10);
  put(s, "k", "v", 1);
  PutRequest keep_value = put_req("k", "", 2);
  keep_value.ignore_value = true;
  REQUIRE(s.put(keep_value, nullptr).ok());
  CHECK(get(s, "k")->value == "v");
  CHECK(get(s, "k")->lease == 2);
  PutRequest keep_lease = put_req("k", "w", 0);
  keep_lease.ignore_lease = true;
  REQUIRE(s.put(keep_lease, nullptr).ok());
  CHECK(get(s, "k")->value == "w");
  CHECK(get(s, "k")->lease == 2);
  CHECK(get(s, "k")->version == 3);
}

TEST_CASE("ignore_value or ignore_lease on a missing key fails with key not found") {
  EtcdStore s;
  PutRequest p = put_req("k", "");
  p.ignore_value = true;
  auto r = s.put(p, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::invalid_argument);
  CHECK(r.error().message == "etcdserver: key not found");
  PutRequest q = put_req("k", "v");
  q.ignore_lease = true;
  auto r2 = s.put(q, nullptr);
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().message == "etcdserver: key not found");
  CHECK(s.revision() == 1);
}

TEST_CASE("ignore flags with a value or lease given are invalid arguments") {
  EtcdStore s;
  put(s, "k", "v");
  PutRequest p = put_req("k", "x");
  p.ignore_value = true;
  auto r = s.put(p, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "etcdserver: value is provided");
  PutRequest q = put_req("k", "x", 5);
  q.ignore_lease = true;
  auto r2 = s.put(q, nullptr);
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().message == "etcdserver: lease is provided");
}

TEST_CASE("put and delete with an empty key fail with empty key") {
  EtcdStore s;
  auto p = s.put(put_req("", "v"), nullptr);
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().code == ErrorCode::empty_key);
  auto d = s.delete_range(del_req(""), nullptr);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().code == ErrorCode::empty_key);
}

TEST_CASE("delete prev_kv returns every deleted key") {
  EtcdStore s;
  put(s, "a", "1");
  put(s, "b", "2");
  put(s, "c", "3");
  DeleteRangeRequest d = del_req("a", "c");
  d.prev_kv = true;
  auto r = s.delete_range(d, nullptr);
  REQUIRE(r.ok());
  CHECK(r->deleted == 2);
  REQUIRE(r->prev_kvs.size() == 2);
  CHECK(r->prev_kvs[0].value == "1");
  CHECK(r->prev_kvs[1].value == "2");
  CHECK(keys_of(s.all_live_keys()) == std::vector<std::string>{"c"});
}

// ======================================== Range ========================================

TEST_CASE("an empty range_end selects one key") {
  EtcdStore s;
  put(s, "a", "1");
  put(s, "ab", "1");
  CHECK(range_keys(s, range_req("a")) == std::vector<std::string>{"a"});
  CHECK(range_keys(s, range_req("b")).empty());
}

TEST_CASE("range_end NUL selects every key >= key") {
  EtcdStore s;
  for (const char* k : {"a", "b", "c", "\xff"}) put(s, k, "1");
  CHECK(range_keys(s, range_req("b", std::string(1, '\0'))) ==
        std::vector<std::string>{"b", "c", "\xff"});
}

TEST_CASE("range_end = prefix_range_end(key) selects the prefix") {
  EtcdStore s;
  for (const char* k : {"lock", "lock/1", "lock/2", "lock0", "lockz", "lo"}) put(s, k, "1");
  CHECK(range_keys(s, range_req("lock/", prefix_range_end("lock/"))) ==
        std::vector<std::string>{"lock/1", "lock/2"});
  CHECK(range_keys(s, range_req("a", "lock")) == std::vector<std::string>{"lo"});
}

TEST_CASE("a range_end at or before the key selects nothing") {
  EtcdStore s;
  put(s, "b", "1");
  CHECK(range_keys(s, range_req("b", "b")).empty());
  CHECK(range_keys(s, range_req("c", "a")).empty());
}

TEST_CASE("revision <= 0 reads the latest and a past revision reads history") {
  EtcdStore s;
  put(s, "k", "1");
  put(s, "k", "2");
  REQUIRE(s.delete_range(del_req("k"), nullptr).ok());
  put(s, "k", "4");
  CHECK(get(s, "k", 0)->value == "4");
  CHECK(get(s, "k", -3)->value == "4");
  CHECK(get(s, "k", 2)->value == "1");
  CHECK(get(s, "k", 3)->value == "2");
  CHECK_FALSE(get(s, "k", 4).has_value());
  CHECK_FALSE(get(s, "k", 1).has_value());
}

TEST_CASE("a future revision is an error") {
  EtcdStore s;
  put(s, "k", "1");
  CHECK(s.range(range_req("k", {}, 2)).ok());
  auto r = s.range(range_req("k", {}, 3));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::future_revision);
}

TEST_CASE("a revision below the compaction point is compacted - the compaction revision is readable") {
  EtcdStore s;
  put(s, "k", "1");  // 2
  put(s, "k", "2");  // 3
  put(s, "k", "3");  // 4
  REQUIRE(s.compact(CompactionRequest{3, false}).ok());
  auto below = s.range(range_req("k", {}, 2));
  REQUIRE_FALSE(below.ok());
  CHECK(below.error().code == ErrorCode::compacted);
  CHECK(get(s, "k", 3)->value == "2");
  CHECK(get(s, "k", 4)->value == "3");
  CHECK(get(s, "k")->value == "3");
}

TEST_CASE("a range with an empty key fails with empty key") {
  // etcd's checkRangeRequest answers ErrGRPCEmptyKey ("key is not provided").
  EtcdStore s;
  auto r = s.range(range_req(""));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::empty_key);
  CHECK(r.error().message == "etcdserver: key is not provided");
}

TEST_CASE("range filters come first - then sort - then limit") {
  EtcdStore s;
  put(s, "a", "1");   // mod 2
  put(s, "b", "1");   // mod 3
  put(s, "c", "1");   // mod 4
  put(s, "d", "1");   // mod 5
  put(s, "a", "2");   // mod 6
  RangeRequest r = range_req("a", "z");
  r.min_mod_revision = 3;
  r.max_mod_revision = 5;  // filters out a (mod 6)
  r.sort_order = SortOrder::descend;
  r.sort_target = SortTarget::mod;
  r.limit = 2;
  auto resp = s.range(r);
  REQUIRE(resp.ok());
  CHECK(keys_of(resp->kvs) == std::vector<std::string>{"d", "c"});
  CHECK(resp->more);

  RangeRequest c = range_req("a", "z");
  c.min_create_revision = 3;
  c.max_create_revision = 4;
  CHECK(range_keys(s, c) == std::vector<std::string>{"b", "c"});
}

TEST_CASE("count is the number of keys before the limit and more says the limit cut") {
  EtcdStore s;
  for (const char* k : {"a", "b", "c"}) put(s, k, "1");
  RangeRequest r = range_req("a", "z");
  r.limit = 2;
  auto cut = s.range(r);
  REQUIRE(cut.ok());
  CHECK(cut->count == 3);
  CHECK(cut->kvs.size() == 2);
  CHECK(cut->more);
  r.limit = 3;
  auto whole = s.range(r);
  REQUIRE(whole.ok());
  CHECK(whole->count == 3);
  CHECK_FALSE(whole->more);
}

TEST_CASE("count ignores the revision filters - as in etcd") {
  EtcdStore s;
  for (const char* k : {"a", "b", "c"}) put(s, k, "1");
  RangeRequest r = range_req("a", "z");
  r.min_mod_revision = 4;
  auto resp = s.range(r);
  REQUIRE(resp.ok());
  CHECK(keys_of(resp->kvs) == std::vector<std::string>{"c"});
  CHECK(resp->count == 3);
  CHECK_FALSE(resp->more);
}

TEST_CASE("sort_order NONE with a target other than KEY sorts ascending") {
  EtcdStore s;
  put(s, "a", "z");
  put(s, "b", "x");
  put(s, "c", "y");
  RangeRequest r = range_req("a", "d");
  r.sort_target = SortTarget::value;
  CHECK(range_keys(s, r) == std::vector<std::string>{"b", "c", "a"});
  r.sort_order = SortOrder::descend;
  CHECK(range_keys(s, r) == std::vector<std::string>{"a", "c", "b"});
  RangeRequest by_key = range_req("a", "d");
  by_key.sort_order = SortOrder::descend;
  CHECK(range_keys(s, by_key) == std::vector<std::string>{"c", "b", "a"});
  by_key.sort_order = SortOrder::none;
  CHECK(range_keys(s, by_key) == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("sort_order NONE with another target and a limit sorts the first limit + 1 keys by key, then cuts") {
  // etcd 3.4.23 (mvcc/kvstore_txn.go, etcdserver/apply.go): with no sort order and no filter
  // it reads limit + 1 keys in key order, sorts those by the target, and cuts to the limit.
  EtcdStore s;
  put(s, "a", "z");
  put(s, "b", "y");
  put(s, "c", "x");
  put(s, "d", "w");
  RangeRequest r = range_req("a", "e");
  r.sort_target = SortTarget::value;
  r.limit = 2;
  auto resp = s.range(r);
  REQUIRE(resp.ok());
  // a, b, c read; sorted by value c(x), b(y), a(z); cut to two. Not d(w), the smallest value.
  CHECK(keys_of(resp->kvs) == std::vector<std::string>{"c", "b"});
  CHECK(resp->more);
  CHECK(resp->count == 4);
  // An explicit order reads the whole range: the smallest values win.
  r.sort_order = SortOrder::ascend;
  CHECK(range_keys(s, r) == std::vector<std::string>{"d", "c"});
}

TEST_CASE("sort ties keep key order in both directions") {
  EtcdStore s;
  put(s, "a", "1");
  put(s, "b", "1");
  put(s, "b", "2");  // b has version 2
  put(s, "c", "1");
  RangeRequest r = range_req("a", "d");
  r.sort_target = SortTarget::version;
  r.sort_order = SortOrder::descend;
  CHECK(range_keys(s, r) == std::vector<std::string>{"b", "a", "c"});
  r.sort_order = SortOrder::ascend;
  CHECK(range_keys(s, r) == std::vector<std::string>{"a", "c", "b"});
}

TEST_CASE("keys_only empties values and count_only returns no kvs") {
  EtcdStore s;
  put(s, "a", "1");
  put(s, "b", "2");
  RangeRequest r = range_req("a", "c");
  r.keys_only = true;
  auto keys = s.range(r);
  REQUIRE(keys.ok());
  REQUIRE(keys->kvs.size() == 2);
  CHECK(keys->kvs[0].value.empty());
  CHECK(keys->kvs[0].version == 1);
  RangeRequest c = range_req("a", "c");
  c.count_only = true;
  c.limit = 1;
  auto count = s.range(c);
  REQUIRE(count.ok());
  CHECK(count->kvs.empty());
  CHECK(count->count == 2);
  CHECK_FALSE(count->more);
}

// ========================================= Txn =========================================

TEST_CASE("txn compares are ANDed") {
  EtcdStore s;
  put(s, "a", "1");
  put(s, "b", "2");
  TxnRequest t;
  t.compare = {Compare::value_of("a", CompareResult::equal, "1"),
               Compare::value_of("b", CompareResult::equal, "wrong")};
  t.success = {op(put_req("x", "then"))};
  t.failure = {op(put_req("x", "else"))};
  auto r = s.txn(t, nullptr);
  REQUIRE(r.ok());
  CHECK_FALSE(r->succeeded);
  CHECK(get(s, "x")->value == "else");
  t.compare[1] = Compare::value_of("b", CompareResult::equal, "2");
  auto r2 = s.txn(t, nullptr);
  REQUIRE(r2.ok());
  CHECK(r2->succeeded);
  CHECK(get(s, "x")->value == "then");
}

TEST_CASE("on a missing key VERSION CREATE MOD and LEASE compare against 0") {
  EtcdStore s;
  for (Compare c : {Compare::version_of("m", CompareResult::equal, 0),
                    Compare::create_revision_of("m", CompareResult::equal, 0),
                    Compare::mod_revision_of("m", CompareResult::equal, 0),
                    Compare::lease_of("m", CompareResult::equal, 0),
                    Compare::version_of("m", CompareResult::less, 1)}) {
    TxnRequest t;
    t.compare = {c};
    auto r = s.txn(t, nullptr);
    REQUIRE(r.ok());
    CHECK(r->succeeded);
  }
}

TEST_CASE("on a missing key a VALUE compare always fails") {
  EtcdStore s;
  for (CompareResult result : {CompareResult::equal, CompareResult::not_equal,
                               CompareResult::greater, CompareResult::less}) {
    TxnRequest t;
    t.compare = {Compare::value_of("m", result, "")};
    auto r = s.txn(t, nullptr);
    REQUIRE(r.ok());
    CHECK_FALSE(r->succeeded);
  }
  put(s, "empty", "");
  TxnRequest t;
  t.compare = {Compare::value_of("empty", CompareResult::equal, "")};
  auto r = s.txn(t, nullptr);
  REQUIRE(r.ok());
  CHECK(r->succeeded);
}

TEST_CASE("compare results EQUAL NOT_EQUAL GREATER LESS compare the key's field to the target") {
  EtcdStore s;
  put(s, "k", "m");  // mod 2
  auto holds = [&](Compare c) {
    TxnRequest t;
    t.compare = {std::move(c)};
    auto r = s.txn(t, nullptr);
    REQUIRE(r.ok());
    return r->succeeded;
  };
  CHECK(holds(Compare::mod_revision_of("k", CompareResult::equal, 2)));
  CHECK_FALSE(holds(Compare::mod_revision_of("k", CompareResult::not_equal, 2)));
  CHECK(holds(Compare::mod_revision_of("k", CompareResult::greater, 1)));
  CHECK_FALSE(holds(Compare::mod_revision_of("k", CompareResult::greater, 2)));
  CHECK(holds(Compare::mod_revision_of("k", CompareResult::less, 3)));
  CHECK_FALSE(holds(Compare::mod_revision_of("k", CompareResult::less, 2)));
  CHECK(holds(Compare::value_of("k", CompareResult::greater, "a")));
  CHECK(holds(Compare::value_of("k", CompareResult::less, "z")));
  CHECK(holds(Compare::value_of("k", CompareResult::not_equal, "x")));
  CHECK(holds(Compare::create_revision_of("k", CompareResult::equal, 2)));
  CHECK(holds(Compare::version_of("k", CompareResult::equal, 1)));
}

TEST_CASE("a compare with range_end must hold for every key in the range") {
  EtcdStore s;
  put(s, "p/a", "1");
  put(s, "p/b", "1");
  auto holds = [&](Compare c) {
    TxnRequest t;
    t.compare = {std::move(c)};
    auto r = s.txn(t, nullptr);
    REQUIRE(r.ok());
    return r->succeeded;
  };
  Compare all_ones = Compare::value_of("p/", CompareResult::equal, "1");
  all_ones.range_end = prefix_range_end("p/");
  CHECK(holds(all_ones));
  put(s, "p/c", "2");
  CHECK_FALSE(holds(all_ones));
  Compare all_old = Compare::mod_revision_of("p/", CompareResult::less, 4);
  all_old.range_end = prefix_range_end("p/");
  CHECK_FALSE(holds(all_old));
  // An empty range compares the zero KeyValue (VALUE still fails).
  Compare none_created = Compare::create_revision_of("q/", CompareResult::equal, 0);
  none_created.range_end = prefix_range_end("q/");
  CHECK(holds(none_created));
  Compare none_value = Compare::value_of("q/", CompareResult::equal, "");
  none_value.range_end = prefix_range_end("q/");
  CHECK_FALSE(holds(none_value));
}

TEST_CASE("a LEASE compare checks the key's lease") {
  EtcdStore s;
  grant(s, 9, 10);
  put(s, "k", "v", 9);
  TxnRequest t;
  t.compare = {Compare::lease_of("k", CompareResult::equal, 9)};
  auto r = s.txn(t, nullptr);
  REQUIRE(r.ok());
  CHECK(r->succeeded);
}

TEST_CASE("at most max_txn_ops operations per txn level") {
  EtcdStore s;
  TxnRequest t;
  for (int i = 0; i < 128; ++i) t.success.push_back(op(put_req("k" + std::to_string(i), "v")));
  auto ok = s.txn(t, nullptr);
  REQUIRE(ok.ok());
  CHECK(s.all_live_keys().size() == 128);
  t.success.push_back(op(put_req("k128", "v")));
  auto too_many = s.txn(t, nullptr);
  REQUIRE_FALSE(too_many.ok());
  CHECK(too_many.error().code == ErrorCode::too_many_ops);
  TxnRequest compares;
  for (int i = 0; i < 129; ++i) {
    compares.compare.push_back(Compare::version_of("k", CompareResult::equal, 0));
  }
  auto r = s.txn(compares, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::too_many_ops);
}

TEST_CASE("a nested txn gets the op budget its parent left") {
  EtcdStore s(EtcdStoreOptions{2, 4});
  TxnRequest inner;
  inner.success = {op(put_req("a", "1")), op(put_req("b", "1"))};
  TxnRequest outer;
  outer.success = {op(inner), op(put_req("c", "1"))};  // outer uses 2, inner may use 2
  REQUIRE(s.txn(outer, nullptr).ok());
  inner.success.push_back(op(put_req("d", "1")));
  outer.success = {op(inner), op(put_req("c", "2"))};
  auto r = s.txn(outer, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::too_many_ops);
}

TEST_CASE("the same key may not be written twice in one txn") {
  EtcdStore s;
  auto refused = [&](TxnRequest t) {
    auto r = s.txn(t, nullptr);
    return !r.ok() && r.error().code == ErrorCode::duplicate_key;
  };
  TxnRequest two_puts;
  two_puts.success = {op(put_req("k", "1")), op(put_req("k", "2"))};
  CHECK(refused(two_puts));
  TxnRequest put_and_delete;
  put_and_delete.success = {op(put_req("k", "1")), op(del_req("a", "z"))};
  CHECK(refused(put_and_delete));
  TxnRequest delete_then_nested_put;
  TxnRequest nested_put;
  nested_put.success = {op(put_req("k", "1"))};
  delete_then_nested_put.failure = {op(del_req("k")), op(nested_put)};
  CHECK(refused(delete_then_nested_put));
  TxnRequest nested_puts_twice;
  nested_puts_twice.success = {op(nested_put), op(nested_put)};
  CHECK(refused(nested_puts_twice));
  // An else branch may only repeat a key of its own then branch, not of an earlier nested txn.
  TxnRequest nested_else_put;
  nested_else_put.failure = {op(put_req("k", "2"))};
  TxnRequest then_and_later_else;
  then_and_later_else.success = {op(nested_put), op(nested_else_put)};
  CHECK(refused(then_and_later_else));
  CHECK(s.revision() == 1);
}

TEST_CASE("duplicate-key rules that etcd allows") {
  EtcdStore s;
  put(s, "k", "0");
  // Two deletes may overlap.
  TxnRequest two_deletes;
  two_deletes.success = {op(del_req("a", "z")), op(del_req("k"))};
  auto r1 = s.txn(two_deletes, nullptr);
  REQUIRE(r1.ok());
  CHECK(s.revision() == 3);
  // Then and else of one nested txn may put the same key: only one of them runs.
  TxnRequest branches;
  branches.success = {op(put_req("k", "then"))};
  branches.failure = {op(put_req("k", "else"))};
  TxnRequest outer;
  outer.success = {op(branches)};
  REQUIRE(s.txn(outer, nullptr).ok());
  CHECK(get(s, "k")->value == "then");
  // etcd's checkIntervals misses a nested put followed by a later nested delete of the key.
  TxnRequest nested_put;
  nested_put.success = {op(put_req("q", "1"))};
  TxnRequest nested_delete;
  nested_delete.success = {op(del_req("q"))};
  TxnRequest quirk;
  quirk.success = {op(nested_put), op(nested_delete)};
  std::vector<Event> events;
  auto r3 = s.txn(quirk, &events);
  REQUIRE(r3.ok());
  REQUIRE(events.size() == 2);
  CHECK(events[0].type == EventType::put);
  CHECK(events[1].type == EventType::del);
  CHECK(events[1].kv.mod_revision == events[0].kv.mod_revision);
  CHECK_FALSE(get(s, "q").has_value());
  // and a delete with range_end "\0" is not checked against puts.
  TxnRequest gte;
  gte.success = {op(put_req("k", "x")), op(del_req("a", std::string(1, '\0')))};
  REQUIRE(s.txn(gte, nullptr).ok());
}

TEST_CASE("nested txns choose their branch and respond in a nested TxnResponse") {
  EtcdStore s;
  put(s, "a", "1");
  TxnRequest inner;
  inner.compare = {Compare::value_of("a", CompareResult::equal, "no")};
  inner.success = {op(put_req("b", "then"))};
  inner.failure = {op(put_req("b", "else")), op(range_req("a"))};
  TxnRequest outer;
  outer.compare = {Compare::version_of("a", CompareResult::equal, 1)};
  outer.success = {op(put_req("c", "1")), op(inner)};
  auto r = s.txn(outer, nullptr);
  REQUIRE(r.ok());
  CHECK(r->succeeded);
  REQUIRE(r->responses.size() == 2);
  const TxnResponse& nested = nested_txn(r->responses[1]);
  CHECK_FALSE(nested.succeeded);
  CHECK(nested.header.revision == 0);  // etcd 3.4 leaves nested headers empty
  REQUIRE(nested.responses.size() == 2);
  CHECK(std::get<PutResponse>(nested.responses[0].response).header.revision == 3);
  CHECK(get(s, "b")->value == "else");
  CHECK(r->header.revision == 3);
}

TEST_CASE("nested compares see the state before the txn - not its earlier writes") {
  EtcdStore s;
  TxnRequest inner;
  inner.compare = {Compare::version_of("a", CompareResult::equal, 0)};
  inner.success = {op(put_req("seen", "before"))};
  inner.failure = {op(put_req("seen", "after"))};
  TxnRequest outer;
  outer.success = {op(put_req("a", "1")), op(inner)};
  REQUIRE(s.txn(outer, nullptr).ok());
  CHECK(get(s, "seen")->value == "before");
}

TEST_CASE("ranges inside a txn see the txn's earlier writes") {
  EtcdStore s;
  put(s, "a", "old");
  TxnRequest t;
  RangeRequest before = range_req("a");
  t.success = {op(before), op(put_req("a", "new")), op(range_req("a")),
               op(range_req("a", {}, 2))};
  auto r = s.txn(t, nullptr);
  REQUIRE(r.ok());
  const auto& first = std::get<RangeResponse>(r->responses[0].response);
  const auto& after = std::get<RangeResponse>(r->responses[2].response);
  const auto& explicit_old = std::get<RangeResponse>(r->responses[3].response);
  CHECK(first.kvs.at(0).value == "old");
  CHECK(first.header.revision == 2);
  CHECK(after.kvs.at(0).value == "new");
  CHECK(after.header.revision == 3);
  CHECK(explicit_old.kvs.at(0).value == "old");
  const auto& put_resp = std::get<PutResponse>(r->responses[1].response);
  CHECK(put_resp.header.revision == 3);
}

TEST_CASE("a txn that fails a check on its taken branch changes nothing") {
  EtcdStore s;
  put(s, "a", "1");
  TxnRequest t;
  t.success = {op(put_req("b", "1")), op(put_req("c", "1", 99))};
  auto r = s.txn(t, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::lease_not_found);
  CHECK(s.revision() == 2);
  CHECK_FALSE(get(s, "b").has_value());
  // The same unknown lease on the branch not taken is not checked.
  t.compare = {Compare::value_of("a", CompareResult::equal, "no")};
  t.failure = {op(put_req("b", "1"))};
  auto r2 = s.txn(t, nullptr);
  REQUIRE(r2.ok());
  CHECK(get(s, "b").has_value());
  TxnRequest future;
  future.success = {op(put_req("x", "1")), op(range_req("a", {}, 50))};
  auto r3 = s.txn(future, nullptr);
  REQUIRE_FALSE(r3.ok());
  CHECK(r3.error().code == ErrorCode::future_revision);
  CHECK_FALSE(get(s, "x").has_value());
}

TEST_CASE("a txn etcd 3.4 would crash on is refused and changes nothing") {
  // The "\0" delete escapes the duplicate-key check, then the put finds its key gone; etcd
  // panics applying this ("unexpected error during txn"). The store refuses it atomically.
  EtcdStore s;
  grant(s, 1, 10);
  put(s, "a", "1", 1);
  put(s, "b", "1");
  PutRequest keep_value = put_req("b", "");
  keep_value.ignore_value = true;
  TxnRequest t;
  t.success = {op(del_req("a", std::string(1, '\0'))), op(keep_value)};
  std::vector<Event> events;
  auto before = s.all_live_keys();
  auto r = s.txn(t, &events);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::invalid_argument);
  CHECK(events.empty());
  CHECK(s.revision() == 3);
  CHECK(s.all_live_keys() == before);
  CHECK(s.lease_time_to_live({1, true}, at_ms(0)).keys == std::vector<std::string>{"a"});
  auto later = s.events_since(1, "a", std::string(1, '\0'));
  REQUIRE(later.ok());
  CHECK(later->size() == 2);  // the two puts only
}

TEST_CASE("txn static checks: empty keys in compares and ops") {
  EtcdStore s;
  TxnRequest t;
  t.compare = {Compare::version_of("", CompareResult::equal, 0)};
  auto r = s.txn(t, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::empty_key);
  TxnRequest u;
  u.failure = {op(range_req(""))};  // checked even on the branch not taken
  auto r2 = s.txn(u, nullptr);
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().code == ErrorCode::empty_key);
}

// ==================================== Compaction ====================================

TEST_CASE("compaction at or below the current compaction revision is compacted - above now is future") {
  EtcdStore s;
  put(s, "k", "1");
  put(s, "k", "2");
  auto future = s.compact(CompactionRequest{4, false});
  REQUIRE_FALSE(future.ok());
  CHECK(future.error().code == ErrorCode::future_revision);
  REQUIRE(s.compact(CompactionRequest{3, false}).ok());  // the current revision may be compacted
  CHECK(s.compact_revision() == 3);
  auto again = s.compact(CompactionRequest{3, false});
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().code == ErrorCode::compacted);
  auto lower = s.compact(CompactionRequest{2, false});
  REQUIRE_FALSE(lower.ok());
  CHECK(lower.error().code == ErrorCode::compacted);
}

TEST_CASE("compaction keeps the latest live version of every key readable") {
  EtcdStore s;
  put(s, "a", "1");                                      // 2
  put(s, "b", "1");                                      // 3
  REQUIRE(s.delete_range(del_req("b"), nullptr).ok());  // 4
  put(s, "a", "2");                                      // 5
  put(s, "c", "1");                                      // 6
  auto before = s.all_live_keys();
  REQUIRE(s.compact(CompactionRequest{5, false}).ok());
  CHECK(s.all_live_keys() == before);
  CHECK(get(s, "a", 5)->value == "2");
  CHECK_FALSE(get(s, "b", 5).has_value());
  CHECK_FALSE(get(s, "c", 5).has_value());
  CHECK(get(s, "c", 6)->value == "1");
  CHECK(s.revision() == 6);
  put(s, "a", "3");
  CHECK(get(s, "a")->version == 3);
  CHECK(get(s, "a")->create_revision == 2);
}

// ======================================== Leases ========================================

TEST_CASE("lease TTLs are raised to the minimum TTL") {
  EtcdStore s(EtcdStoreOptions{3, 128});
  LeaseGrantRequest g;
  g.id = 1;
  g.ttl_seconds = 1;
  auto r = s.lease_grant(g, at_ms(1000));
  REQUIRE(r.ok());
  CHECK(r->ttl_seconds == 3);
  CHECK(r->id == 1);
  CHECK(s.lease_expiry(1) == at_ms(4000));
  g.id = 2;
  g.ttl_seconds = 10;
  auto r2 = s.lease_grant(g, at_ms(0));
  REQUIRE(r2.ok());
  CHECK(r2->ttl_seconds == 10);
}

TEST_CASE("lease grant refuses id 0 - a duplicate id and a too large TTL") {
  EtcdStore s;
  LeaseGrantRequest g;
  g.ttl_seconds = 5;
  auto zero = s.lease_grant(g, at_ms(0));
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().code == ErrorCode::invalid_argument);
  g.id = 4;
  REQUIRE(s.lease_grant(g, at_ms(0)).ok());
  auto dup = s.lease_grant(g, at_ms(0));
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().message == "etcdserver: lease already exists");
  g.id = 5;
  g.ttl_seconds = EtcdStore::kMaxLeaseTtlSeconds + 1;
  auto large = s.lease_grant(g, at_ms(0));
  REQUIRE_FALSE(large.ok());
  CHECK(large.error().message == "etcdserver: too large lease TTL");
}

TEST_CASE("revoking deletes every attached key in one revision - in key order") {
  EtcdStore s;
  grant(s, 1, 10);
  put(s, "b", "1", 1);
  put(s, "a", "1", 1);
  put(s, "free", "1");
  std::vector<Event> events;
  auto r = s.lease_revoke(1, &events);
  REQUIRE(r.ok());
  CHECK(r->header.revision == 5);
  CHECK(s.revision() == 5);
  REQUIRE(events.size() == 2);
  CHECK(events[0].kv.key == "a");
  CHECK(events[1].kv.key == "b");
  for (const Event& e : events) {
    CHECK(e.type == EventType::del);
    CHECK(e.kv.mod_revision == 5);
    REQUIRE(e.prev_kv.size() == 1);
    CHECK(e.prev_kv[0].lease == 1);
  }
  CHECK(keys_of(s.all_live_keys()) == std::vector<std::string>{"free"});
  CHECK(s.lease_ids().empty());
}

TEST_CASE("revoking a lease with no keys does not bump the revision") {
  // etcd's lessor.Revoke deletes through a write txn that only bumps the revision on changes.
  EtcdStore s;
  grant(s, 1, 10);
  auto r = s.lease_revoke(1, nullptr);
  REQUIRE(r.ok());
  CHECK(r->header.revision == 1);
  CHECK(s.revision() == 1);
  CHECK(s.lease_time_to_live({1, false}, at_ms(0)).ttl_seconds == -1);
}

TEST_CASE("revoke of an unknown lease is lease not found") {
  EtcdStore s;
  auto r = s.lease_revoke(3, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::lease_not_found);
}

TEST_CASE("re-putting a key with another lease or none detaches it from the old lease") {
  EtcdStore s;
  grant(s, 1, 10);
  grant(s, 2, 10);
  put(s, "k", "v", 1);
  put(s, "j", "v", 1);
  CHECK(s.lease_time_to_live({1, true}, at_ms(0)).keys == std::vector<std::string>{"j", "k"});
  put(s, "k", "v", 2);
  CHECK(s.lease_time_to_live({1, true}, at_ms(0)).keys == std::vector<std::string>{"j"});
  CHECK(s.lease_time_to_live({2, true}, at_ms(0)).keys == std::vector<std::string>{"k"});
  put(s, "j", "v", 0);
  REQUIRE(s.lease_revoke(1, nullptr).ok());
  CHECK(get(s, "j").has_value());  // no longer attached: survives the revoke
  REQUIRE(s.delete_range(del_req("k"), nullptr).ok());
  CHECK(s.lease_time_to_live({2, true}, at_ms(0)).keys.empty());
}

TEST_CASE("a lease expires at grant time + TTL - never earlier") {
  EtcdStore s;
  grant(s, 1, 5, at_ms(1000));
  grant(s, 2, 3, at_ms(1000));
  CHECK(s.expired_leases(at_ms(3999)).empty());
  CHECK(s.expired_leases(at_ms(4000)) == std::vector<LeaseId>{2});
  CHECK(s.expired_leases(at_ms(6000)) == std::vector<LeaseId>{2, 1});  // by expiry, then id
  CHECK(s.lease_expired(1, at_ms(6000)));
  CHECK_FALSE(s.lease_expired(1, at_ms(5999)));
}

TEST_CASE("expired leases with equal expiry come in id order") {
  EtcdStore s;
  grant(s, 9, 2);
  grant(s, 3, 2);
  grant(s, 5, 2);
  CHECK(s.expired_leases(at_ms(2000)) == std::vector<LeaseId>{3, 5, 9});
}

TEST_CASE("a keepalive renews to now + TTL and returns the granted TTL") {
  EtcdStore s;
  grant(s, 1, 4, at_ms(0));
  auto r = s.lease_renew(1, at_ms(3000));
  REQUIRE(r.ok());
  CHECK(r.value() == 4);
  CHECK(s.lease_expiry(1) == at_ms(7000));
  CHECK(s.expired_leases(at_ms(6999)).empty());
}

TEST_CASE("a keepalive of an unknown or already expired lease is lease not found") {
  EtcdStore s;
  auto unknown = s.lease_renew(8, at_ms(0));
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == ErrorCode::lease_not_found);
  grant(s, 1, 2, at_ms(0));
  auto expired = s.lease_renew(1, at_ms(2000));
  REQUIRE_FALSE(expired.ok());
  CHECK(expired.error().code == ErrorCode::lease_not_found);
  CHECK(s.lease_expiry(1) == at_ms(2000));  // not refreshed
}

TEST_CASE("a new leader extends every lease to now + extension + TTL") {
  EtcdStore s;
  grant(s, 1, 5, at_ms(0));
  grant(s, 2, 10, at_ms(0));
  s.extend_all_leases(at_ms(8000), milliseconds(1000));
  CHECK(s.lease_expiry(1) == at_ms(14000));
  CHECK(s.lease_expiry(2) == at_ms(19000));
  CHECK(s.expired_leases(at_ms(13999)).empty());
}

TEST_CASE("TimeToLive returns whole seconds remaining truncated - the granted TTL and the keys") {
  EtcdStore s;
  grant(s, 1, 10, at_ms(0));
  put(s, "k", "v", 1);
  auto r = s.lease_time_to_live({1, true}, at_ms(1500));
  CHECK(r.id == 1);
  CHECK(r.ttl_seconds == 8);  // 8.5 s left
  CHECK(r.granted_ttl_seconds == 10);
  CHECK(r.keys == std::vector<std::string>{"k"});
  CHECK(s.lease_time_to_live({1, false}, at_ms(1500)).keys.empty());
  CHECK(s.lease_time_to_live({1, false}, at_ms(10500)).ttl_seconds == 0);   // expired, -0.5 s
  CHECK(s.lease_time_to_live({1, false}, at_ms(11500)).ttl_seconds == -1);  // -1.5 s
}

TEST_CASE("TimeToLive of an unknown lease returns TTL -1") {
  EtcdStore s;
  auto r = s.lease_time_to_live({77, true}, at_ms(0));
  CHECK(r.id == 77);
  CHECK(r.ttl_seconds == -1);
  CHECK(r.granted_ttl_seconds == 0);
  CHECK(r.keys.empty());
}

// ======================================== Watch ========================================

TEST_CASE("writes return their events with kv and prev_kv") {
  EtcdStore s;
  std::vector<Event> events;
  put(s, "k", "1", 0, &events);
  put(s, "k", "2", 0, &events);
  REQUIRE(s.delete_range(del_req("k"), &events).ok());
  REQUIRE(events.size() == 3);
  CHECK(events[0].type == EventType::put);
  CHECK(events[0].kv == KeyValue{"k", 2, 2, 1, "1", 0});
  CHECK(events[0].prev_kv.empty());
  CHECK(events[1].kv.version == 2);
  REQUIRE(events[1].prev_kv.size() == 1);
  CHECK(events[1].prev_kv[0].value == "1");
  CHECK(events[2].type == EventType::del);
  CHECK(events[2].kv == KeyValue{"k", 0, 4, 0, "", 0});
  REQUIRE(events[2].prev_kv.size() == 1);
  CHECK(events[2].prev_kv[0].value == "2");
}

TEST_CASE("events_since: start_revision is inclusive and events come in revision order") {
  EtcdStore s;
  put(s, "b", "1");  // 2
  put(s, "a", "1");  // 3
  put(s, "b", "2");  // 4
  TxnRequest t;
  t.success = {op(put_req("c", "1")), op(del_req("a"))};  // 5
  REQUIRE(s.txn(t, nullptr).ok());
  auto r = s.events_since(3, "a", "z");
  REQUIRE(r.ok());
  REQUIRE(r->size() == 4);
  CHECK(r.value()[0].kv.key == "a");
  CHECK(r.value()[0].kv.mod_revision == 3);
  CHECK(r.value()[1].kv.key == "b");
  CHECK(r.value()[1].kv.mod_revision == 4);
  CHECK(r.value()[2].kv.key == "c");  // within a revision: the txn's order
  CHECK(r.value()[3].kv.key == "a");
  CHECK(r.value()[3].type == EventType::del);
  REQUIRE(r.value()[1].prev_kv.size() == 1);
  CHECK(r.value()[1].prev_kv[0].value == "1");
  auto one_key = s.events_since(1, "b", "");
  REQUIRE(one_key.ok());
  CHECK(one_key->size() == 2);
  auto future = s.events_since(6, "a", "z");
  REQUIRE(future.ok());
  CHECK(future->empty());
}

TEST_CASE("events_since matches the events the writes returned") {
  EtcdStore s;
  grant(s, 1, 10);
  std::vector<Event> written;
  put(s, "a", "1", 1, &written);
  put(s, "b", "1", 0, &written);
  put(s, "a", "2", 1, &written);
  REQUIRE(s.lease_revoke(1, &written).ok());
  auto replayed = s.events_since(1, std::string(1, '\0'), std::string(1, '\0'));
  REQUIRE(replayed.ok());
  CHECK(replayed.value() == written);
}

TEST_CASE("events_since from start 0 has no past events") {
  EtcdStore s;
  put(s, "a", "1");
  auto r = s.events_since(0, "a", "");
  REQUIRE(r.ok());
  CHECK(r->empty());
}

TEST_CASE("events_since below the compaction point is compacted") {
  EtcdStore s;
  put(s, "a", "1");                                      // 2
  put(s, "a", "2");                                      // 3
  put(s, "b", "1");                                      // 4
  REQUIRE(s.delete_range(del_req("b"), nullptr).ok());  // 5
  put(s, "a", "3");                                      // 6
  REQUIRE(s.compact(CompactionRequest{5, false}).ok());
  CHECK(s.compact_revision() == 5);
  auto r = s.events_since(4, "a", "z");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::compacted);
  auto from_compaction = s.events_since(5, "a", "z");
  REQUIRE(from_compaction.ok());
  // Like etcd, the tombstone at the compaction revision is gone; later events remain, with
  // prev_kv since revision 5 is still readable.
  REQUIRE(from_compaction->size() == 1);
  CHECK(from_compaction->at(0).kv.mod_revision == 6);
  REQUIRE(from_compaction->at(0).prev_kv.size() == 1);
  CHECK(from_compaction->at(0).prev_kv[0].value == "2");
}

TEST_CASE("a put at the compaction revision is still watchable from it - without prev_kv") {
  EtcdStore s;
  put(s, "a", "1");  // 2
  put(s, "a", "2");  // 3
  REQUIRE(s.compact(CompactionRequest{3, false}).ok());
  auto r = s.events_since(3, "a", "");
  REQUIRE(r.ok());
  REQUIRE(r->size() == 1);
  CHECK(r->at(0).kv.value == "2");
  CHECK(r->at(0).prev_kv.empty());  // revision 2 is compacted
}

// ===================================== Determinism =====================================

TEST_CASE("two stores given the same calls end in the same state") {
  auto run = [](EtcdStore& s, std::vector<Event>& events) {
    grant(s, 3, 5, at_ms(10));
    grant(s, 1, 5, at_ms(10));
    for (int i = 0; i < 20; ++i) {
      std::string key(1, static_cast<char>('a' + (i * 7) % 5));
      REQUIRE(s.put(put_req(key, std::to_string(i), i % 3 == 0 ? 0 : (i % 2 ? 1 : 3)), &events)
                  .ok());
    }
    for (LeaseId id : s.expired_leases(at_ms(5010))) REQUIRE(s.lease_revoke(id, &events).ok());
  };
  EtcdStore a, b;
  std::vector<Event> ea, eb;
  run(a, ea);
  run(b, eb);
  CHECK(a.all_live_keys() == b.all_live_keys());
  CHECK(ea == eb);
  CHECK(a.revision() == b.revision());
  CHECK(a.lease_ids().empty());
}

// ================================ The live-key index ================================

TEST_CASE("ranges at the latest revision and at older ones agree after many deletes") {
  // Latest-revision ranges walk an index of live keys; older ones walk the whole history.
  EtcdStore s;
  for (int i = 0; i < 50; ++i) {
    put(s, "/lock/" + std::to_string(100 + i), "v");
    if (i % 3 != 0)
      REQUIRE(s.delete_range(del_req("/lock/" + std::to_string(100 + i)), nullptr).ok());
  }
  put(s, "/lock/0", "outside the range's start");
  put(s, "/m", "past the range's end");
  const Revision latest = s.revision();
  const std::vector<std::string> at_latest = range_keys(s, range_req("/lock/1", "/lock/2"));
  REQUIRE(at_latest.size() == 17);  // i = 0, 3, ..., 48
  REQUIRE(at_latest.front() == "/lock/100");
  REQUIRE(at_latest.back() == "/lock/148");
  // An explicit revision equal to the latest takes the same path; one below it the other.
  REQUIRE(range_keys(s, range_req("/lock/1", "/lock/2", latest)) == at_latest);
  put(s, "/other", "moves the revision");
  REQUIRE(range_keys(s, range_req("/lock/1", "/lock/2", latest)) == at_latest);
}

TEST_CASE("a copied store answers ranges from its own history") {
  EtcdStore original;
  put(original, "/a", "1");
  put(original, "/b", "2");
  EtcdStore copy = original;
  REQUIRE(original.delete_range(del_req("/a"), nullptr).ok());
  put(original, "/c", "3");
  REQUIRE(range_keys(copy, range_req("/", "/z")) == std::vector<std::string>{"/a", "/b"});
  REQUIRE(range_keys(original, range_req("/", "/z")) == std::vector<std::string>{"/b", "/c"});
  EtcdStore assigned;
  assigned = copy;
  put(copy, "/d", "4");
  REQUIRE(range_keys(assigned, range_req("/", "/z")) == std::vector<std::string>{"/a", "/b"});
}

}  // namespace
