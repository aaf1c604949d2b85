#include "lockstep/real_etcd/prefixed_kv_client.h"

#include <cassert>

namespace lockstep::real {
namespace {

Error empty_key_error() {
  return Error(ErrorCode::empty_key, "etcdserver: key is not provided (refused by the prefix "
                                     "wrapper before sending)");
}

}  // namespace

// Strips the prefix from every event of the inner stream.
class PrefixedWatchStream final : public WatchStream {
 public:
  PrefixedWatchStream(const PrefixedKvClient& owner, std::unique_ptr<WatchStream> inner)
      : owner_(owner), inner_(std::move(inner)) {}
  std::int64_t watch_id() const override { return inner_->watch_id(); }
  const ResponseHeader& created_header() const override { return inner_->created_header(); }
  Task<Result<WatchResponse>> next(Duration max_wait) override { return do_next(max_wait); }

 private:
  Task<Result<WatchResponse>> do_next(Duration max_wait) {
    Result<WatchResponse> r = co_await inner_->next(max_wait);
    if (r.ok()) {
      for (auto& e : r->events) {
        owner_.move_out(e.kv);
        for (auto& p : e.prev_kv) owner_.move_out(p);
      }
    }
    co_return r;
  }
  const PrefixedKvClient& owner_;
  std::unique_ptr<WatchStream> inner_;
};

PrefixedKvClient::PrefixedKvClient(KvClient& inner, std::string prefix)
    : inner_(inner), prefix_(std::move(prefix)), prefix_end_(prefix_range_end(prefix_)) {
  assert(!prefix_.empty() && prefix_end_ != std::string(1, '\0'));
}

std::string PrefixedKvClient::add_to_range_end(const std::string& range_end) const {
  if (range_end.empty()) return {};                         // a single key
  if (range_end == std::string(1, '\0')) return prefix_end_;  // every key >= key
  return prefix_ + range_end;
}

std::string PrefixedKvClient::strip(const std::string& key) const {
  if (key.compare(0, prefix_.size(), prefix_) == 0) return key.substr(prefix_.size());
  return key;
}

bool PrefixedKvClient::move_in(RangeRequest& r) const {
  // etcd allows an empty key only together with a range_end ("" .. "\0" is everything).
  if (r.key.empty() && r.range_end.empty()) return false;
  r.key = add_to_key(r.key);
  r.range_end = add_to_range_end(r.range_end);
  return true;
}

bool PrefixedKvClient::move_in(PutRequest& r) const {
  if (r.key.empty()) return false;
  r.key = add_to_key(r.key);
  return true;
}

bool PrefixedKvClient::move_in(DeleteRangeRequest& r) const {
  if (r.key.empty() && r.range_end.empty()) return false;
  r.key = add_to_key(r.key);
  r.range_end = add_to_range_end(r.range_end);
  return true;
}

bool PrefixedKvClient::move_in(TxnRequest& r) const {
  for (auto& c : r.compare) {
    c.key = add_to_key(c.key);
    c.range_end = add_to_range_end(c.range_end);
  }
  auto move_ops = [this](std::vector<RequestOp>& ops) {
    for (auto& op : ops) {
      bool ok = std::visit(
          [this](auto& req) -> bool {
            using T = std::decay_t<decltype(req)>;
            if constexpr (std::is_same_v<T, std::shared_ptr<TxnRequest>>) {
              if (!req) return true;
              // Copy: the caller's nested request may be shared with other requests.
              req = std::make_shared<TxnRequest>(*req);
              return move_in(*req);
            } else {
              return move_in(req);
            }
          },
          op.request);
      if (!ok) return false;
    }
    return true;
  };
  return move_ops(r.success) && move_ops(r.failure);
}

void PrefixedKvClient::move_out(KeyValue& kv) const { kv.key = strip(kv.key); }

void PrefixedKvClient::move_out(RangeResponse& r) const {
  for (auto& kv : r.kvs) move_out(kv);
}

void PrefixedKvClient::move_out(PutResponse& r) const {
  for (auto& kv : r.prev_kv) move_out(kv);
}

void PrefixedKvClient::move_out(DeleteRangeResponse& r) const {
  for (auto& kv : r.prev_kvs) move_out(kv);
}

void PrefixedKvClient::move_out(TxnResponse& r) const {
  for (auto& op : r.responses) {
    std::visit(
        [this](auto& resp) {
          using T = std::decay_t<decltype(resp)>;
          if constexpr (std::is_same_v<T, std::shared_ptr<TxnResponse>>) {
            if (resp) move_out(*resp);
          } else {
            move_out(resp);
          }
        },
        op.response);
  }
}

Task<Result<RangeResponse>> PrefixedKvClient::range(RangeRequest request) {
  return do_range(std::move(request));
}
Task<Result<RangeResponse>> PrefixedKvClient::do_range(RangeRequest request) {
  if (!move_in(request)) co_return empty_key_error();
  Result<RangeResponse> r = co_await inner_.range(std::move(request));
  if (r.ok()) move_out(r.value());
  co_return r;
}

Task<Result<PutResponse>> PrefixedKvClient::put(PutRequest request) {
  return do_put(std::move(request));
}
Task<Result<PutResponse>> PrefixedKvClient::do_put(PutRequest request) {
  if (!move_in(request)) co_return empty_key_error();
  Result<PutResponse> r = co_await inner_.put(std::move(request));
  if (r.ok()) move_out(r.value());
  co_return r;
}

Task<Result<DeleteRangeResponse>> PrefixedKvClient::delete_range(DeleteRangeRequest request) {
  return do_delete_range(std::move(request));
}
Task<Result<DeleteRangeResponse>> PrefixedKvClient::do_delete_range(DeleteRangeRequest request) {
  if (!move_in(request)) co_return empty_key_error();
  Result<DeleteRangeResponse> r = co_await inner_.delete_range(std::move(request));
  if (r.ok()) move_out(r.value());
  co_return r;
}

Task<Result<TxnResponse>> PrefixedKvClient::txn(TxnRequest request) {
  return do_txn(std::move(request));
}
Task<Result<TxnResponse>> PrefixedKvClient::do_txn(TxnRequest request) {
  if (!move_in(request)) co_return empty_key_error();
  Result<TxnResponse> r = co_await inner_.txn(std::move(request));
  if (r.ok()) move_out(r.value());
  co_return r;
}

Task<Result<CompactionResponse>> PrefixedKvClient::compact(CompactionRequest request) {
  return inner_.compact(request);
}

Task<Result<LeaseGrantResponse>> PrefixedKvClient::lease_grant(LeaseGrantRequest request) {
  return inner_.lease_grant(request);
}

Task<Result<LeaseRevokeResponse>> PrefixedKvClient::lease_revoke(LeaseRevokeRequest request) {
  return inner_.lease_revoke(request);
}

Task<Result<LeaseKeepAliveResponse>> PrefixedKvClient::lease_keep_alive(
    LeaseKeepAliveRequest request) {
  return inner_.lease_keep_alive(request);
}

Task<Result<LeaseTimeToLiveResponse>> PrefixedKvClient::lease_time_to_live(
    LeaseTimeToLiveRequest request) {
  return do_time_to_live(request);
}
Task<Result<LeaseTimeToLiveResponse>> PrefixedKvClient::do_time_to_live(
    LeaseTimeToLiveRequest request) {
  Result<LeaseTimeToLiveResponse> r = co_await inner_.lease_time_to_live(request);
  if (r.ok()) {
    for (auto& k : r->keys) k = strip(k);
  }
  co_return r;
}

Task<Result<LockResponse>> PrefixedKvClient::lock(LockRequest request) {
  return do_lock(std::move(request));
}
Task<Result<LockResponse>> PrefixedKvClient::do_lock(LockRequest request) {
  // The server's mutex keys are `name/<lease hex>`: an empty name is a valid prefix "/".
  request.name = add_to_key(request.name);
  Result<LockResponse> r = co_await inner_.lock(std::move(request));
  if (r.ok()) r->key = strip(r->key);
  co_return r;
}

Task<Result<UnlockResponse>> PrefixedKvClient::unlock(UnlockRequest request) {
  return do_unlock(std::move(request));
}
Task<Result<UnlockResponse>> PrefixedKvClient::do_unlock(UnlockRequest request) {
  // etcd's Unlock deletes the key, and an empty one is "key is not provided"; prefix + ""
  // would be a valid key.
  if (request.key.empty()) co_return empty_key_error();
  request.key = add_to_key(request.key);
  co_return co_await inner_.unlock(std::move(request));
}

Task<Result<std::unique_ptr<WatchStream>>> PrefixedKvClient::watch(WatchCreateRequest request) {
  return do_watch(std::move(request));
}
Task<Result<std::unique_ptr<WatchStream>>> PrefixedKvClient::do_watch(
    WatchCreateRequest request) {
  // etcd accepts an empty watch key (it names the key ""), which here is the key `prefix`.
  request.key = add_to_key(request.key);
  request.range_end = add_to_range_end(request.range_end);
  Result<std::unique_ptr<WatchStream>> r = co_await inner_.watch(std::move(request));
  if (!r.ok()) co_return r.error();
  co_return std::unique_ptr<WatchStream>(
      std::make_unique<PrefixedWatchStream>(*this, std::move(r.value())));
}

}  // namespace lockstep::real
