// Unit tests of the key translation with a recording fake; the isolation test against a real
// etcd is in etcd_kv_client_test.cc.
#include "lockstep/real_etcd/prefixed_kv_client.h"

#include <catch2/catch.hpp>

#include "lockstep/real_etcd/event_loop.h"

namespace lockstep::real {
namespace {

const std::string kNul(1, '\0');

// Records requests and answers with responses whose keys carry the prefix.
class RecordingKv final : public KvClient {
 public:
  std::vector<RangeRequest> ranges;
  std::vector<TxnRequest> txns;
  std::vector<DeleteRangeRequest> deletes;
  std::vector<PutRequest> puts;
  std::vector<LockRequest> locks;
  std::vector<UnlockRequest> unlocks;
  std::string answer_key = "p/x";

  Task<Result<RangeResponse>> range(RangeRequest r) override {
    ranges.push_back(r);
    RangeResponse resp;
    resp.kvs.push_back(KeyValue{answer_key, 1, 1, 1, "v", 0});
    return ready<RangeResponse>(resp);
  }
  Task<Result<PutResponse>> put(PutRequest r) override {
    puts.push_back(r);
    PutResponse resp;
    resp.prev_kv.push_back(KeyValue{answer_key, 1, 1, 1, "old", 0});
    return ready<PutResponse>(resp);
  }
  Task<Result<DeleteRangeResponse>> delete_range(DeleteRangeRequest r) override {
    deletes.push_back(r);
    DeleteRangeResponse resp;
    resp.deleted = 1;
    resp.prev_kvs.push_back(KeyValue{answer_key, 1, 1, 1, "v", 0});
    return ready<DeleteRangeResponse>(resp);
  }
  Task<Result<TxnResponse>> txn(TxnRequest r) override {
    txns.push_back(r);
    TxnResponse resp;
    RangeResponse inner_range;
    inner_range.kvs.push_back(KeyValue{answer_key, 1, 1, 1, "v", 0});
    auto nested = std::make_shared<TxnResponse>();
    nested->responses.push_back(ResponseOp{inner_range});
    resp.responses.push_back(ResponseOp{inner_range});
    resp.responses.push_back(ResponseOp{nested});
    return ready<TxnResponse>(resp);
  }
  Task<Result<CompactionResponse>> compact(CompactionRequest) override {
    return ready<CompactionResponse>({});
  }
  Task<Result<LeaseGrantResponse>> lease_grant(LeaseGrantRequest) override {
    return ready<LeaseGrantResponse>({});
  }
  Task<Result<LeaseRevokeResponse>> lease_revoke(LeaseRevokeRequest) override {
    return ready<LeaseRevokeResponse>({});
  }
  Task<Result<LeaseKeepAliveResponse>> lease_keep_alive(LeaseKeepAliveRequest) override {
    return ready<LeaseKeepAliveResponse>({});
  }
  Task<Result<LeaseTimeToLiveResponse>> lease_time_to_live(LeaseTimeToLiveRequest) override {
    LeaseTimeToLiveResponse resp;
    resp.keys = {answer_key, "q/other"};
    return ready<LeaseTimeToLiveResponse>(resp);
  }
  Task<Result<LockResponse>> lock(LockRequest r) override {
    locks.push_back(r);
    LockResponse resp;
    resp.key = answer_key;
    return ready<LockResponse>(resp);
  }
  Task<Result<UnlockResponse>> unlock(UnlockRequest r) override {
    unlocks.push_back(r);
    return ready<UnlockResponse>({});
  }
  Task<Result<std::unique_ptr<WatchStream>>> watch(WatchCreateRequest) override {
    return error<std::unique_ptr<WatchStream>>();
  }

 private:
  template <typename T>
  static Task<Result<T>> ready(T value) {
    co_return value;
  }
  template <typename T>
  static Task<Result<T>> error() {
    co_return Error(ErrorCode::unavailable, "not in this fake");
  }
};

TEST_CASE("range ends: empty stays a single key - NUL stays inside the prefix") {
  RecordingKv inner;
  PrefixedKvClient kv(inner, "p/");
  REQUIRE(kv.add_to_key("a") == "p/a");
  REQUIRE(kv.add_to_key("") == "p/");
  REQUIRE(kv.add_to_range_end("") == "");
  REQUIRE(kv.add_to_range_end(kNul) == "p0");  // prefix_range_end("p/"): '/' + 1 == '0'
  REQUIRE(kv.add_to_range_end("b") == "p/b");
  REQUIRE(kv.strip("p/a") == "a");
  REQUIRE(kv.strip("other") == "other");
}

Task<void> exercise(PrefixedKvClient* kv, RecordingKv* inner) {
  RangeRequest everything;
  everything.key = "";
  everything.range_end = kNul;
  Result<RangeResponse> all = co_await kv->range(everything);
  REQUIRE(all.ok());
  REQUIRE(inner->ranges.back().key == "p/");
  REQUIRE(inner->ranges.back().range_end == "p0");
  REQUIRE(all->kvs.at(0).key == "x");

  RangeRequest no_key;  // etcd refuses an empty key without a range_end
  Result<RangeResponse> refused = co_await kv->range(no_key);
  REQUIRE_FALSE(refused.ok());
  REQUIRE(refused.error().code == ErrorCode::empty_key);
  REQUIRE(inner->ranges.size() == 1);  // not sent

  PutRequest put;
  put.key = "k";
  put.prev_kv = true;
  Result<PutResponse> put_result = co_await kv->put(put);
  REQUIRE(put_result.ok());
  REQUIRE(inner->puts.back().key == "p/k");
  REQUIRE(put_result->prev_kv.at(0).key == "x");

  PutRequest empty_put;
  Result<PutResponse> empty_refused = co_await kv->put(empty_put);
  REQUIRE(empty_refused.error().code == ErrorCode::empty_key);

  DeleteRangeRequest del;
  del.key = "a";
  del.range_end = "c";
  Result<DeleteRangeResponse> del_result = co_await kv->delete_range(del);
  REQUIRE(inner->deletes.back().key == "p/a");
  REQUIRE(inner->deletes.back().range_end == "p/c");
  REQUIRE(del_result->prev_kvs.at(0).key == "x");

  auto nested = std::make_shared<TxnRequest>();
  nested->success.push_back(RequestOp{DeleteRangeRequest{"d", kNul, false}});
  TxnRequest txn;
  txn.compare.push_back(Compare::version_of("c", CompareResult::equal, 0));
  txn.compare.back().range_end = kNul;
  txn.success.push_back(RequestOp{PutRequest{"s", "v"}});
  txn.failure.push_back(RequestOp{nested});
  Result<TxnResponse> txn_result = co_await kv->txn(txn);
  REQUIRE(txn_result.ok());
  const TxnRequest& sent = inner->txns.back();
  REQUIRE(sent.compare.at(0).key == "p/c");
  REQUIRE(sent.compare.at(0).range_end == "p0");
  REQUIRE(std::get<PutRequest>(sent.success.at(0).request).key == "p/s");
  const auto& sent_nested = std::get<std::shared_ptr<TxnRequest>>(sent.failure.at(0).request);
  const auto& sent_delete = std::get<DeleteRangeRequest>(sent_nested->success.at(0).request);
  REQUIRE(sent_delete.key == "p/d");
  REQUIRE(sent_delete.range_end == "p0");
  // The caller's nested request is untouched (it could be shared with another txn).
  REQUIRE(std::get<DeleteRangeRequest>(nested->success.at(0).request).key == "d");
  REQUIRE(std::get<RangeResponse>(txn_result->responses.at(0).response).kvs.at(0).key == "x");
  const auto& nested_resp = std::get<std::shared_ptr<TxnResponse>>(txn_result->responses.at(1).response);
  REQUIRE(std::get<RangeResponse>(nested_resp->responses.at(0).response).kvs.at(0).key == "x");

  Result<LeaseTimeToLiveResponse> ttl = co_await kv->lease_time_to_live(LeaseTimeToLiveRequest{5, true});
  REQUIRE(ttl->keys == std::vector<std::string>{"x", "q/other"});

  LockRequest lock;
  lock.name = "m";
  lock.lease = 7;
  Result<LockResponse> locked = co_await kv->lock(std::move(lock));
  REQUIRE(inner->locks.back().name == "p/m");
  REQUIRE(inner->locks.back().lease == 7);
  REQUIRE(locked->key == "x");
  UnlockRequest unlock;
  unlock.key = "m/7";
  Result<UnlockResponse> unlocked = co_await kv->unlock(std::move(unlock));
  REQUIRE(unlocked.ok());
  REQUIRE(inner->unlocks.back().key == "p/m/7");
  Result<UnlockResponse> empty_unlock = co_await kv->unlock(UnlockRequest());
  REQUIRE(empty_unlock.error().code == ErrorCode::empty_key);
  REQUIRE(inner->unlocks.size() == 1);  // not sent
}

TEST_CASE("requests move under the prefix and responses come back out of it") {
  EventLoop loop;
  RecordingKv inner;
  PrefixedKvClient kv(inner, "p/");
  loop.run(exercise(&kv, &inner));
}

}  // namespace
}  // namespace lockstep::real
