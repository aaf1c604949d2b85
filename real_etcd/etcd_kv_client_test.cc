// Integration tests: EtcdKvClient and PrefixedKvClient against a real single-member etcd
// started by LocalCluster. Every test keeps to keys under its own unique prefix.
#include "lockstep/real_etcd/etcd_kv_client.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "etcdpb/rpc.grpc.pb.h"
#include "lockstep/kv/lock_service_test_support.h"
#include "lockstep/real_etcd/link_proxy.h"
#include "lockstep/real_etcd/prefixed_kv_client.h"
#include "lockstep/real_etcd/real_node_context.h"
#include "lockstep/real_etcd/test_cluster.h"

namespace lockstep::real {
namespace {

using testing::make_client;
using testing::shared_cluster;
using testing::unique_prefix;

const std::string kNul(1, '\0');

RangeRequest get(std::string key) {
  RangeRequest r;
  r.key = std::move(key);
  return r;
}

RangeRequest get_prefix(const std::string& prefix) {
  RangeRequest r;
  r.key = prefix;
  r.range_end = prefix_range_end(prefix);
  return r;
}

PutRequest put(std::string key, std::string value, LeaseId lease = 0) {
  PutRequest r;
  r.key = std::move(key);
  r.value = std::move(value);
  r.lease = lease;
  return r;
}

Task<void> kv_round_trip(KvClient* kv, std::string p) {
  Result<PutResponse> first = co_await kv->put(put(p + "a", "1"));
  REQUIRE(first.ok());
  const Revision rev = first->header.revision;
  REQUIRE(rev > 1);
  REQUIRE(first->prev_kv.empty());

  Result<RangeResponse> got = co_await kv->range(get(p + "a"));
  REQUIRE(got.ok());
  REQUIRE(got->kvs.size() == 1);
  REQUIRE(got->kvs[0].value == "1");
  REQUIRE(got->kvs[0].create_revision == rev);
  REQUIRE(got->kvs[0].mod_revision == rev);
  REQUIRE(got->kvs[0].version == 1);
  REQUIRE(got->header.revision == rev);

  PutRequest again = put(p + "a", "2");
  again.prev_kv = true;
  Result<PutResponse> second = co_await kv->put(again);
  REQUIRE(second.ok());
  REQUIRE(second->header.revision == rev + 1);
  REQUIRE(second->prev_kv.size() == 1);
  REQUIRE(second->prev_kv[0].value == "1");

  Result<PutResponse> b = co_await kv->put(put(p + "b", "x"));
  REQUIRE(b.ok());
  RangeRequest limited = get_prefix(p);
  limited.limit = 1;
  limited.sort_order = SortOrder::descend;
  Result<RangeResponse> page = co_await kv->range(limited);
  REQUIRE(page.ok());
  REQUIRE(page->count == 2);
  REQUIRE(page->more);
  REQUIRE(page->kvs.size() == 1);
  REQUIRE(page->kvs[0].key == p + "b");

  // Reading at an older revision sees the older value.
  RangeRequest old = get(p + "a");
  old.revision = rev;
  Result<RangeResponse> old_value = co_await kv->range(old);
  REQUIRE(old_value.ok());
  REQUIRE(old_value->kvs.at(0).value == "1");

  DeleteRangeRequest del;
  del.key = p;
  del.range_end = prefix_range_end(p);
  del.prev_kv = true;
  Result<DeleteRangeResponse> deleted = co_await kv->delete_range(del);
  REQUIRE(deleted.ok());
  REQUIRE(deleted->deleted == 2);
  REQUIRE(deleted->prev_kvs.size() == 2);
  Result<RangeResponse> empty = co_await kv->range(get_prefix(p));
  REQUIRE(empty.ok());
  REQUIRE(empty->kvs.empty());
  // Deleting what is not there does not bump the revision.
  Result<DeleteRangeResponse> nothing = co_await kv->delete_range(del);
  REQUIRE(nothing.ok());
  REQUIRE(nothing->deleted == 0);
  REQUIRE(nothing->header.revision == deleted->header.revision);
}

TEST_CASE("etcd: put - range and delete_range round-trip with etcd's revisions") {
  EventLoop loop;
  auto client = make_client(loop, shared_cluster().client_endpoints());
  loop.run(kv_round_trip(client.get(), unique_prefix("kv")));
}

Task<void> txn_cases(KvClient* kv, std::string p) {
  const std::string lock = p + "lock";
  TxnRequest create;
  create.compare.push_back(Compare::create_revision_of(lock, CompareResult::equal, 0));
  create.success.push_back(RequestOp{put(lock, "me")});
  create.failure.push_back(RequestOp{get(lock)});
  Result<TxnResponse> won = co_await kv->txn(create);
  REQUIRE(won.ok());
  REQUIRE(won->succeeded);
  REQUIRE(std::holds_alternative<PutResponse>(won->responses.at(0).response));

  Result<TxnResponse> lost = co_await kv->txn(create);
  REQUIRE(lost.ok());
  REQUIRE_FALSE(lost->succeeded);
  const auto& holder = std::get<RangeResponse>(lost->responses.at(0).response);
  REQUIRE(holder.kvs.at(0).value == "me");
  REQUIRE(lost->header.revision == won->header.revision);  // read-only: no new revision

  // A value compare on a missing key fails; a nested txn runs inside the outer one.
  auto nested = std::make_shared<TxnRequest>();
  nested->compare.push_back(Compare::value_of(lock, CompareResult::equal, "me"));
  nested->success.push_back(RequestOp{put(p + "nested", "yes")});
  TxnRequest outer;
  outer.compare.push_back(Compare::value_of(p + "missing", CompareResult::not_equal, "z"));
  outer.success.push_back(RequestOp{get(lock)});
  outer.failure.push_back(RequestOp{nested});
  Result<TxnResponse> r = co_await kv->txn(outer);
  REQUIRE(r.ok());
  REQUIRE_FALSE(r->succeeded);
  const auto& inner = std::get<std::shared_ptr<TxnResponse>>(r->responses.at(0).response);
  REQUIRE(inner->succeeded);
  Result<RangeResponse> n = co_await kv->range(get(p + "nested"));
  REQUIRE(n->kvs.at(0).value == "yes");
}

TEST_CASE("etcd: txn compares - branches and nested txns") {
  EventLoop loop;
  auto client = make_client(loop, shared_cluster().client_endpoints());
  loop.run(txn_cases(client.get(), unique_prefix("txn")));
}

void require_definite(const Error& e, ErrorCode code) {
  INFO(e.to_string());
  REQUIRE(e.code == code);
  REQUIRE(e.outcome == Outcome::definite);
}

Task<void> error_cases(KvClient* kv, std::string p) {
  Result<PutResponse> bad_lease = co_await kv->put(put(p + "k", "v", 0x7eadbeef));
  REQUIRE_FALSE(bad_lease.ok());
  require_definite(bad_lease.error(), ErrorCode::lease_not_found);

  Result<LeaseRevokeResponse> revoke = co_await kv->lease_revoke(LeaseRevokeRequest{0x7eadbeef});
  REQUIRE_FALSE(revoke.ok());
  require_definite(revoke.error(), ErrorCode::lease_not_found);

  Result<PutResponse> base = co_await kv->put(put(p + "k", "v"));
  REQUIRE(base.ok());
  RangeRequest future = get(p + "k");
  future.revision = base->header.revision + 1000;
  Result<RangeResponse> f = co_await kv->range(future);
  REQUIRE_FALSE(f.ok());
  require_definite(f.error(), ErrorCode::future_revision);

  TxnRequest dup;
  dup.success.push_back(RequestOp{put(p + "d", "1")});
  dup.success.push_back(RequestOp{put(p + "d", "2")});
  Result<TxnResponse> d = co_await kv->txn(dup);
  REQUIRE_FALSE(d.ok());
  require_definite(d.error(), ErrorCode::duplicate_key);

  TxnRequest many;
  for (int i = 0; i < 129; ++i) many.success.push_back(RequestOp{get(p + std::to_string(i))});
  Result<TxnResponse> m = co_await kv->txn(many);
  REQUIRE_FALSE(m.ok());
  require_definite(m.error(), ErrorCode::too_many_ops);

  Result<PutResponse> empty = co_await kv->put(put("", "v"));
  REQUIRE_FALSE(empty.ok());
  require_definite(empty.error(), ErrorCode::empty_key);

  // Nothing of the refused requests happened.
  Result<RangeResponse> after = co_await kv->range(get_prefix(p));
  REQUIRE(after->kvs.size() == 1);
  REQUIRE(after->header.revision == base->header.revision);
}

TEST_CASE("etcd: server refusals map to definite error codes") {
  EventLoop loop;
  auto client = make_client(loop, shared_cluster().client_endpoints());
  loop.run(error_cases(client.get(), unique_prefix("errors")));
}

Task<void> lease_cases(KvClient* kv, std::string p) {
  Result<LeaseGrantResponse> lease = co_await kv->lease_grant(LeaseGrantRequest{1, 0});
  REQUIRE(lease.ok());
  REQUIRE(lease->id != 0);
  REQUIRE(lease->ttl_seconds == 2);  // raised to the minimum TTL

  Result<PutResponse> attached = co_await kv->put(put(p + "owned", "v", lease->id));
  REQUIRE(attached.ok());

  LeaseTimeToLiveRequest ttl_req;
  ttl_req.id = lease->id;
  ttl_req.keys = true;
  Result<LeaseTimeToLiveResponse> ttl = co_await kv->lease_time_to_live(ttl_req);
  REQUIRE(ttl.ok());
  REQUIRE(ttl->granted_ttl_seconds == 2);
  REQUIRE(ttl->ttl_seconds >= 1);
  REQUIRE(ttl->ttl_seconds <= 2);
  REQUIRE(ttl->keys == std::vector<std::string>{p + "owned"});

  Result<LeaseKeepAliveResponse> ka = co_await kv->lease_keep_alive(LeaseKeepAliveRequest{lease->id});
  REQUIRE(ka.ok());
  REQUIRE(ka->id == lease->id);
  REQUIRE(ka->ttl_seconds == 2);

  Result<LeaseRevokeResponse> revoked = co_await kv->lease_revoke(LeaseRevokeRequest{lease->id});
  REQUIRE(revoked.ok());
  REQUIRE(revoked->header.revision > attached->header.revision);  // the delete is a write
  Result<RangeResponse> gone = co_await kv->range(get(p + "owned"));
  REQUIRE(gone->kvs.empty());

  Result<LeaseKeepAliveResponse> dead = co_await kv->lease_keep_alive(LeaseKeepAliveRequest{lease->id});
  REQUIRE(dead.ok());
  REQUIRE(dead->ttl_seconds == 0);  // the lease is gone: TTL 0, not an error
  Result<LeaseTimeToLiveResponse> unknown = co_await kv->lease_time_to_live(ttl_req);
  REQUIRE(unknown.ok());
  REQUIRE(unknown->ttl_seconds == -1);
}

TEST_CASE("etcd: lease grant - time-to-live - keep-alive and revoke") {
  EventLoop loop;
  auto client = make_client(loop, shared_cluster().client_endpoints());
  loop.run(lease_cases(client.get(), unique_prefix("lease")));
}

Task<void> keep_alive_loop(NodeContext* node, LeaseId id, int* rounds) {
  for (;;) {
    Result<LeaseKeepAliveResponse> r = co_await node->kv().lease_keep_alive(LeaseKeepAliveRequest{id});
    if (r.ok() && r->ttl_seconds > 0) ++*rounds;
    co_await node->sleep_for(milliseconds(500));
  }
}

Task<void> expiry_case(RealNodeContext* node, std::string p) {
  KvClient& kv = node->kv();
  Result<LeaseGrantResponse> kept = co_await kv.lease_grant(LeaseGrantRequest{2, 0});
  Result<LeaseGrantResponse> dropped = co_await kv.lease_grant(LeaseGrantRequest{2, 0});
  REQUIRE(kept.ok());
  REQUIRE(dropped.ok());
  // (Never co_await inside REQUIRE: with g++ 12 Catch2's macro evaluates it more than once.)
  Result<PutResponse> put_kept = co_await kv.put(put(p + "kept", "v", kept->id));
  Result<PutResponse> put_dropped = co_await kv.put(put(p + "dropped", "v", dropped->id));
  REQUIRE(put_kept.ok());
  REQUIRE(put_dropped.ok());
  int rounds = 0;
  SpawnHandle keeper = node->spawn(keep_alive_loop(node, kept->id, &rounds), "keepalive");
  co_await node->sleep_for(milliseconds(3500));
  Result<RangeResponse> live = co_await kv.range(get(p + "kept"));
  Result<RangeResponse> expired = co_await kv.range(get(p + "dropped"));
  REQUIRE(live->kvs.size() == 1);
  REQUIRE(expired->kvs.empty());
  REQUIRE(rounds >= 5);
  Result<LeaseTimeToLiveResponse> ttl = co_await kv.lease_time_to_live(LeaseTimeToLiveRequest{dropped->id, false});
  REQUIRE(ttl->ttl_seconds == -1);
  keeper.cancel();  // the keep-alive loop dies with its handle
  REQUIRE(keeper.done());
}

TEST_CASE("etcd: a lease without keep-alives expires and takes its key - a kept one lives") {
  EventLoop loop;
  auto client = make_client(loop, shared_cluster().client_endpoints());
  RealNodeContext node(loop, "client-1", *client, 7);
  loop.run(expiry_case(&node, unique_prefix("expiry")));
}

Task<void> watch_cases(KvClient* kv, std::string p) {
  Result<PutResponse> r1 = co_await kv->put(put(p + "w", "1"));
  Result<PutResponse> r2 = co_await kv->put(put(p + "w", "2"));
  DeleteRangeRequest del;
  del.key = p + "w";
  Result<DeleteRangeResponse> r3 = co_await kv->delete_range(del);
  REQUIRE(r3.ok());

  WatchCreateRequest from_start;
  from_start.key = p;
  from_start.range_end = prefix_range_end(p);
  from_start.start_revision = r1->header.revision;
  from_start.prev_kv = true;
  Result<std::unique_ptr<WatchStream>> watch = co_await kv->watch(from_start);
  REQUIRE(watch.ok());
  WatchStream& stream = *watch.value();
  REQUIRE(stream.watch_id() >= 0);
  REQUIRE(stream.created_header().revision >= r3->header.revision);

  std::vector<Event> events;
  while (events.size() < 3) {
    Result<WatchResponse> batch = co_await stream.next(seconds(3));
    REQUIRE(batch.ok());
    REQUIRE_FALSE(batch->canceled);
    for (auto& e : batch->events) events.push_back(e);
  }
  REQUIRE(events.size() == 3);
  REQUIRE(events[0].type == EventType::put);
  REQUIRE(events[0].kv.mod_revision == r1->header.revision);
  REQUIRE(events[1].kv.value == "2");
  REQUIRE(events[1].prev_kv.at(0).value == "1");
  REQUIRE(events[2].type == EventType::del);
  REQUIRE(events[2].kv.mod_revision == r3->header.revision);

  // Nothing more: a definite timeout that loses nothing.
  Result<WatchResponse> quiet = co_await stream.next(milliseconds(200));
  REQUIRE_FALSE(quiet.ok());
  REQUIRE(quiet.error().code == ErrorCode::timeout);
  REQUIRE(quiet.error().outcome == Outcome::definite);

  Result<PutResponse> live = co_await kv->put(put(p + "w2", "live"));
  Result<WatchResponse> seen = co_await stream.next(seconds(3));
  REQUIRE(seen.ok());
  REQUIRE(seen->events.at(0).kv.key == p + "w2");
  REQUIRE(seen->events.at(0).kv.mod_revision == live->header.revision);
}

Task<void> lock_service_on_etcd(RealNodeContext* node, std::string prefix, Duration call_deadline) {
  co_await lockstep::testing::lock_service_program(node, std::move(prefix), call_deadline);
}

// The same program as the simulator's test (sim/cluster_test.cc): the simulated lock service
// behaves as etcd's does in what it asserts.
TEST_CASE("etcd: the lock service grants - queues behind an unlock - and cleans up a lock its caller gave up") {
  EventLoop loop;
  const Duration call_deadline = milliseconds(1500);
  auto client = make_client(loop, shared_cluster().client_endpoints(), call_deadline);
  RealNodeContext node(loop, "client-1", *client, 11);
  loop.run(lock_service_on_etcd(&node, unique_prefix("lock-service"), call_deadline));
}

TEST_CASE("etcd: a watch replays from its start revision - then follows live writes") {
  EventLoop loop;
  auto client = make_client(loop, shared_cluster().client_endpoints());
  loop.run(watch_cases(client.get(), unique_prefix("watch")));
}

Task<void> compaction_cases(KvClient* kv, std::string p) {
  Result<PutResponse> r1 = co_await kv->put(put(p + "c", "1"));
  Result<PutResponse> r2 = co_await kv->put(put(p + "c", "2"));
  REQUIRE(r2.ok());
  Result<CompactionResponse> compacted = co_await kv->compact(CompactionRequest{r2->header.revision, true});
  REQUIRE(compacted.ok());

  RangeRequest old = get(p + "c");
  old.revision = r1->header.revision;
  Result<RangeResponse> too_old = co_await kv->range(old);
  REQUIRE_FALSE(too_old.ok());
  require_definite(too_old.error(), ErrorCode::compacted);
  old.revision = r2->header.revision;  // the compaction revision itself is readable
  Result<RangeResponse> at_point = co_await kv->range(old);
  REQUIRE(at_point.ok());
  REQUIRE(at_point->kvs.at(0).value == "2");

  Result<CompactionResponse> again = co_await kv->compact(CompactionRequest{r1->header.revision, false});
  REQUIRE_FALSE(again.ok());
  require_definite(again.error(), ErrorCode::compacted);

  // A watch from below the compaction point is created, then cancelled with the
  // compaction revision.
  WatchCreateRequest w;
  w.key = p + "c";
  w.start_revision = r1->header.revision;
  Result<std::unique_ptr<WatchStream>> watch = co_await kv->watch(w);
  REQUIRE(watch.ok());
  Result<WatchResponse> cancelled = co_await watch.value()->next(seconds(3));
  REQUIRE(cancelled.ok());
  REQUIRE(cancelled->canceled);
  REQUIRE(cancelled->compact_revision == r2->header.revision);
  REQUIRE(cancelled->events.empty());
}

TEST_CASE("etcd: compaction makes old revisions unreadable and cancels old watches") {
  EventLoop loop;
  auto client = make_client(loop, shared_cluster().client_endpoints());
  loop.run(compaction_cases(client.get(), unique_prefix("compact")));
}

Task<void> isolation_case(KvClient* raw, std::string base) {
  PrefixedKvClient a(*raw, base + "run-a/");
  PrefixedKvClient b(*raw, base + "run-b/");
  Result<PutResponse> outside = co_await raw->put(put(base + "outside", "keep"));
  REQUIRE(outside.ok());
  Result<PutResponse> put_a = co_await a.put(put("x", "a"));
  Result<PutResponse> put_b = co_await b.put(put("x", "b"));
  REQUIRE(put_a.ok());
  REQUIRE(put_b.ok());

  RangeRequest all;
  all.key = "";
  all.range_end = kNul;  // "every key": inside the run's prefix only
  Result<RangeResponse> seen_by_a = co_await a.range(all);
  REQUIRE(seen_by_a.ok());
  REQUIRE(seen_by_a->kvs.size() == 1);
  REQUIRE(seen_by_a->kvs[0].key == "x");
  REQUIRE(seen_by_a->kvs[0].value == "a");

  // A txn in run a compares and writes a's keys only.
  TxnRequest t;
  t.compare.push_back(Compare::value_of("x", CompareResult::equal, "a"));
  t.success.push_back(RequestOp{put("y", "from-a")});
  Result<TxnResponse> tr = co_await a.txn(t);
  REQUIRE(tr.ok());
  REQUIRE(tr->succeeded);

  // A watch in run a sees a's events with a's keys, and none of b's.
  WatchCreateRequest w;
  w.key = "";
  w.range_end = kNul;
  w.start_revision = outside->header.revision;  // (older revisions may be compacted)
  Result<std::unique_ptr<WatchStream>> watch = co_await a.watch(w);
  REQUIRE(watch.ok());
  std::vector<std::string> keys;
  while (keys.size() < 2) {
    Result<WatchResponse> batch = co_await watch.value()->next(seconds(3));
    INFO((batch.ok() ? std::string("ok") : batch.error().to_string()));
    REQUIRE(batch.ok());
    REQUIRE_FALSE(batch->canceled);
    for (auto& e : batch->events) {
      keys.push_back(e.kv.key);
      UNSCOPED_INFO("event " << e.kv.key << " rev " << e.kv.mod_revision << " watch "
                             << batch->watch_id << " value " << e.kv.value);
    }
  }
  REQUIRE(keys == std::vector<std::string>{"x", "y"});
  Result<WatchResponse> nothing_more = co_await watch.value()->next(milliseconds(200));
  REQUIRE_FALSE(nothing_more.ok());

  // Deleting "everything" in run a leaves b and the outside key alone.
  DeleteRangeRequest wipe;
  wipe.key = "";
  wipe.range_end = kNul;
  Result<DeleteRangeResponse> wiped = co_await a.delete_range(wipe);
  REQUIRE(wiped.ok());
  REQUIRE(wiped->deleted == 2);
  Result<RangeResponse> survivors = co_await raw->range(get_prefix(base));
  std::vector<std::string> left;
  for (auto& kv : survivors->kvs) left.push_back(kv.key);
  REQUIRE(left == std::vector<std::string>{base + "outside", base + "run-b/x"});
}

TEST_CASE("etcd: a prefixed run can neither see nor touch keys outside its prefix") {
  EventLoop loop;
  auto client = make_client(loop, shared_cluster().client_endpoints());
  loop.run(isolation_case(client.get(), unique_prefix("isolation")));
}

Task<void> range_forever(KvClient* kv, std::string key, bool* finished) {
  for (;;) {
    Result<RangeResponse> r = co_await kv->range(get(key));
    (void)r;
  }
  *finished = true;
}

Task<void> watch_forever(KvClient* kv, std::string key) {
  WatchCreateRequest w;
  w.key = key;
  Result<std::unique_ptr<WatchStream>> s = co_await kv->watch(w);
  REQUIRE(s.ok());
  for (;;) {
    Result<WatchResponse> r = co_await s.value()->next(seconds(10));
    (void)r;
  }
}

Task<void> keep_alive_forever(KvClient* kv, LeaseId id) {
  for (;;) {
    Result<LeaseKeepAliveResponse> r = co_await kv->lease_keep_alive(LeaseKeepAliveRequest{id});
    (void)r;
  }
}

Task<LeaseId> grant(KvClient* kv) {
  Result<LeaseGrantResponse> r = co_await kv->lease_grant(LeaseGrantRequest{5, 0});
  REQUIRE(r.ok());
  co_return r->id;
}

TEST_CASE("etcd: cancelling tasks with calls - watches and keep-alives in flight is safe") {
  // Run under ASan: a cancelled call's tag must come back to live memory, and the loop
  // must not resume a destroyed frame.
  EventLoop loop;
  auto client = make_client(loop, shared_cluster().client_endpoints());
  const std::string p = unique_prefix("cancel");
  const LeaseId lease = loop.run(grant(client.get()));
  for (int round = 0; round < 5; ++round) {
    bool finished = false;
    auto a = loop.spawn(range_forever(client.get(), p + "k", &finished), "ranges");
    auto b = loop.spawn(watch_forever(client.get(), p + "k"), "watch");
    auto c = loop.spawn(keep_alive_forever(client.get(), lease), "keepalive");
    loop.run_for(milliseconds(round * 7 + 3));
    loop.cancel_spawned(a);
    loop.cancel_spawned(b);
    loop.cancel_spawned(c);
    REQUIRE(loop.live_roots() == 0);
    REQUIRE_FALSE(finished);
  }
  // The client still works afterwards.
  Result<RangeResponse> after = loop.run(client->range(get(p + "k")));
  REQUIRE(after.ok());
  Result<LeaseKeepAliveResponse> ka = loop.run(client->lease_keep_alive(LeaseKeepAliveRequest{lease}));
  REQUIRE(ka.ok());
  REQUIRE(ka->ttl_seconds == 5);
}

TEST_CASE("etcd: an unreachable endpoint is a definite error - a live one behind it is used") {
  EventLoop loop;
  // A port nothing listens on: bind-and-release gives one, and no etcd is started there.
  const std::string dead = "127.0.0.1:1";
  auto lonely = make_client(loop, {dead}, milliseconds(1500));
  Result<RangeResponse> r = loop.run(lonely->range(get("k")));
  REQUIRE_FALSE(r.ok());
  INFO(r.error().to_string());
  REQUIRE(r.error().code == ErrorCode::unavailable);
  REQUIRE(r.error().outcome == Outcome::definite);

  auto failover = make_client(loop, {dead, shared_cluster().client_endpoint(0)});
  Result<RangeResponse> ok = loop.run(failover->range(get("k")));
  REQUIRE(ok.ok());
  REQUIRE(failover->current_endpoint() == 1);
}

Task<void> put_outcome(KvClient* kv, std::string key, std::string* outcome) {
  Result<PutResponse> r = co_await kv->put(put(std::move(key), "v"));
  *outcome = r.ok() ? std::string("ok") : r.error().to_string();
}

// What the simulator's links model (docs/fidelity.md): a cut shorter than any timeout holds
// the call's bytes, and the call completes once the cut heals; nothing is lost.
// A link proxy between "client-0" and the shared cluster's member-0; `endpoint` is its end
// for the client.
std::unique_ptr<LinkProxy> proxy_to_member0(std::string* endpoint) {
  auto made = LinkProxy::create();
  REQUIRE(made.ok());
  std::unique_ptr<LinkProxy> proxy = std::move(made.value());
  const std::string member = shared_cluster().client_endpoint(0);
  const int member_port = std::stoi(member.substr(member.rfind(':') + 1));
  auto port = proxy->add_fixed_listener("client-0", "member-0", member_port);
  REQUIRE(port.ok());
  *endpoint = "127.0.0.1:" + std::to_string(port.value());
  return proxy;
}

TEST_CASE("etcd client: a call held by a 1 s cut of its link completes when the cut heals") {
  std::string proxied;
  std::unique_ptr<LinkProxy> link = proxy_to_member0(&proxied);
  LinkProxy& proxy = *link;
  EventLoop loop;
  auto client = make_client(loop, {proxied}, seconds(5));
  const std::string p = unique_prefix("held-by-cut");
  std::string first, held;
  loop.run(put_outcome(client.get(), p + "first", &first));  // the connection is up
  REQUIRE(first == "ok");
  proxy.block("client-0", "member-0");
  std::thread healer([&proxy] {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    proxy.unblock("client-0", "member-0");
  });
  const auto started = std::chrono::steady_clock::now();
  loop.run(put_outcome(client.get(), p + "held", &held));
  const auto took = std::chrono::steady_clock::now() - started;
  healer.join();
  CHECK(held == "ok");
  CHECK(took >= std::chrono::milliseconds(900));  // it waited for the heal
  CHECK(took < std::chrono::seconds(5));          // and did not time out
}

Task<void> phantom_holder(RealNodeContext* node, KvClient* direct, KvClient* proxied, LinkProxy* proxy,
                          std::string name) {
  LeaseId leases[3] = {0, 0, 0};
  co_await lockstep::testing::grant_leases(direct, leases, 3);
  LockRequest first;
  first.name = name;
  first.lease = leases[0];
  Result<LockResponse> held = co_await direct->lock(std::move(first));
  REQUIRE(held.ok());
  bool second_done = false;
  std::string second_key;
  SpawnHandle second = node->spawn(
      lockstep::testing::lock_into(proxied, name, leases[1], &second_done, &second_key), "second");
  co_await node->sleep_for(milliseconds(300));
  REQUIRE_FALSE(second_done);
  proxy->block("member-0", "client-0");  // the proxied client's answers are held from now on
  UnlockRequest unlock;
  unlock.key = held->key;
  Result<UnlockResponse> unlocked = co_await direct->unlock(std::move(unlock));
  REQUIRE(unlocked.ok());
  for (int i = 0; i < 80 && !second_done; ++i) co_await node->sleep_for(milliseconds(50));
  proxy->unblock("member-0", "client-0");
  REQUIRE(second_done);
  REQUIRE(second_key.empty());  // the caller gave its Lock up at its deadline
  const bool phantom =
      co_await lockstep::testing::key_exists(direct, lockstep::testing::lock_key_of(name, leases[1]));
  REQUIRE(phantom);  // etcd granted it anyway: the key is first in line under a live lease
  LockRequest third;
  third.name = name;
  third.lease = leases[2];
  Result<LockResponse> waited = co_await proxied->lock(std::move(third));
  REQUIRE_FALSE(waited.ok());  // a third caller waits behind the holder nobody knows of
  REQUIRE(waited.error().code == ErrorCode::timeout);
}

// The simulator's "the phantom holder" (sim/cluster_test.cc) on etcd 3.4.23: a Lock whose
// answer a cut holds past its caller's deadline is granted in the server all the same.
TEST_CASE("etcd: a Lock granted after its caller gave up leaves the lock held for that caller - the phantom holder") {
  std::string proxied_endpoint;
  std::unique_ptr<LinkProxy> proxy = proxy_to_member0(&proxied_endpoint);
  EventLoop loop;
  auto direct = make_client(loop, {shared_cluster().client_endpoint(0)});
  auto proxied = make_client(loop, {proxied_endpoint}, milliseconds(2000));
  RealNodeContext node(loop, "client-0", *direct, 13);
  loop.run(phantom_holder(&node, direct.get(), proxied.get(), proxy.get(), unique_prefix("phantom") + "m"));
}

}  // namespace
}  // namespace lockstep::real
