#include "lockstep/sim/lock_service.h"

#include <cstdio>
#include <utility>

#include "lockstep/sim/etcd_cluster.h"
#include "lockstep/sim/sim_kv_client.h"
#include "lockstep/sim/sim_node.h"

namespace lockstep::sim {

namespace {

// The in-process client's own deadline: none in etcd (the calls use the Lock call's context,
// ended here by end_context, or client.Ctx()); the member still fails each request after its
// server request timeout.
constexpr Duration kNoClientDeadline = seconds(365LL * 24 * 3600);

// The key under `prefix` created first (ascend) or last (descend): Go's WithFirstCreate and
// WithLastCreate.
RangeRequest first_created_under(const std::string& prefix, SortOrder order) {
  RangeRequest r;
  r.key = prefix;
  r.range_end = prefix_range_end(prefix);
  r.sort_target = SortTarget::create;
  r.sort_order = order;
  r.limit = 1;
  return r;
}

}  // namespace

LockService::LockService(EtcdCluster& cluster, int member_index, ProcessId member_pid)
    : cluster_(cluster), member_index_(member_index), pid_(member_pid) {}

LockService::~LockService() { on_crash(); }

void LockService::ensure_client() {
  if (client_) return;
  SimClientOptions options;
  options.preferred_member = member_index_;
  options.request_timeout = kNoClientDeadline;
  options.record_calls = false;  // the history names them as the Lock call's (truth causes)
  options.fail_over = false;
  client_ = std::make_unique<SimKvClient>(cluster_.world(), cluster_, pid_, options);
  node_ = std::make_unique<SimNode>(cluster_.world(), pid_, *client_,
                                    cluster_.world().rng_for("lock-service"));
}

void LockService::on_crash() {
  if (client_) client_->disconnect();
  calls_.clear();  // cancels every task through its handle
  node_.reset();
  client_.reset();
}

LockService::Call* LockService::find(std::uint64_t id) {
  const auto it = calls_.find(id);
  return it == calls_.end() ? nullptr : &it->second;
}

std::uint64_t LockService::add_call(const ReplyRoute& route, const char* request) {
  ensure_client();
  const std::uint64_t id = next_id_++;
  Call& call = calls_[id];
  call.route = route;
  call.request = request;
  if (route.timeout_ns > 0) {
    // gRPC's deadline, counted from the call's arrival on the server's clock.
    call.deadline = cluster_.world().schedule_after_local(Duration(route.timeout_ns), pid_,
                                                          [this, id] { end_context(id); });
  }
  return id;
}

SimKvClient& LockService::client_for(std::uint64_t id) {
  const Call* call = find(id);
  client_->set_calls_for(call ? call->route.client : 0, call ? call->route.call_id : 0,
                         call ? call->request : "");
  return *client_;
}

void LockService::lock(const ReplyRoute& route, LockRequest request) {
  const std::uint64_t id = add_call(route, "lock");
  find(id)->task = node_->spawn(run_lock(id, std::move(request)), "v3lock.Lock");
}

void LockService::unlock(const ReplyRoute& route, UnlockRequest request) {
  const std::uint64_t id = add_call(route, "unlock");
  find(id)->task = node_->spawn(run_unlock(id, std::move(request)), "v3lock.Unlock");
}

void LockService::cancel(const ReplyRoute& call) {
  for (auto& [id, c] : calls_) {
    if (c.route.client == call.client && c.route.call_id == call.call_id) {
      end_context(id);
      return;
    }
  }
}

void LockService::end_context(std::uint64_t id) {
  Call* call = find(id);
  if (call == nullptr || call->ended || call->context_ended) return;
  call->context_ended = true;  // the deadline and the cancellation may both come
  cluster_.world().cancel(call->deadline);
  if (call->waiting) {
    // Mutex.Lock: "release lock key if wait failed". Replacing the handle ends the wait.
    call->waiting = false;
    call->task = node_->spawn(run_cleanup(id), "v3lock.Lock clean-up");
    return;
  }
  // Not started, in its Txn, or an Unlock: the call ends; what it sent may still apply.
  calls_.erase(id);
}

void LockService::finish(std::uint64_t id, Result<ClientResponse>&& response) {
  Call* call = find(id);
  if (call == nullptr || call->ended) return;
  call->ended = true;
  cluster_.world().cancel(call->deadline);
  cluster_.member(member_index_).reply(call->route, std::move(response));
  forget_later(id);
}

void LockService::forget_later(std::uint64_t id) {
  // In a later event: the task that ends the call is still running.
  cluster_.world().post(pid_, [this, id] { calls_.erase(id); });
}

// Why a second Mutex here, beside algorithms/etcd_mutex: this one is the server's, fixed at
// 3.4.23 (no re-check, one clean-up Delete with no deadline, a lease it does not keep
// alive), and sim/ sits below algorithms/.
Task<void> LockService::run_lock(std::uint64_t id, LockRequest request) {
  const std::string prefix = request.name + "/";
  char hex[32];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(request.lease));
  const std::string my_key = prefix + hex;
  find(id)->my_key = my_key;

  // Put the own key if absent (reuse it if this lease holds one), and read the first key.
  TxnRequest txn;
  txn.compare.push_back(Compare::create_revision_of(my_key, CompareResult::equal, 0));
  PutRequest put;
  put.key = my_key;
  put.lease = request.lease;
  RangeRequest get_own;
  get_own.key = my_key;
  const RangeRequest get_owner = first_created_under(prefix, SortOrder::ascend);
  txn.success = {RequestOp{put}, RequestOp{get_owner}};
  txn.failure = {RequestOp{get_own}, RequestOp{get_owner}};
  Result<TxnResponse> resp = co_await client_for(id).txn(std::move(txn));
  if (!resp.ok()) {
    finish(id, resp.error());
    co_return;
  }
  Revision my_revision = resp->header.revision;
  if (!resp->succeeded) {
    const auto& own = std::get<RangeResponse>(resp->responses[0].response);
    if (own.kvs.empty()) {  // not possible within one txn; Go would index out of range
      finish(id, Error(ErrorCode::invalid_argument, "v3lock: own key missing"));
      co_return;
    }
    my_revision = own.kvs[0].create_revision;
  }
  const auto& owner = std::get<RangeResponse>(resp->responses[1].response);
  if (owner.kvs.empty() || owner.kvs[0].create_revision == my_revision) {
    finish(id, ClientResponse(LockResponse{resp->header, my_key}));
    co_return;
  }

  find(id)->waiting = true;
  Result<ResponseHeader> waited = co_await wait_deletes(id, prefix, my_revision - 1);
  if (!waited.ok()) {
    find(id)->waiting = false;
    DeleteRangeRequest unlock;  // Mutex.Unlock(client.Ctx())
    unlock.key = my_key;
    (void)co_await client_for(id).delete_range(std::move(unlock));
    finish(id, waited.error());
    co_return;
  }
  // 3.4.23 answers here: no read of the own key, which may have expired meanwhile.
  finish(id, ClientResponse(LockResponse{waited.value(), my_key}));
}

Task<void> LockService::run_cleanup(std::uint64_t id) {
  DeleteRangeRequest unlock;  // Mutex.Unlock(client.Ctx())
  unlock.key = find(id)->my_key;
  (void)co_await client_for(id).delete_range(std::move(unlock));
  // The caller is gone: nobody is answered.
  find(id)->ended = true;
  forget_later(id);
}

Task<void> LockService::run_unlock(std::uint64_t id, UnlockRequest request) {
  DeleteRangeRequest del;
  del.key = std::move(request.key);
  Result<DeleteRangeResponse> r = co_await client_for(id).delete_range(std::move(del));
  if (!r.ok()) {
    finish(id, r.error());
    co_return;
  }
  finish(id, ClientResponse(UnlockResponse{r->header}));
}

Task<Result<ResponseHeader>> LockService::wait_deletes(std::uint64_t id, std::string prefix,
                                                       Revision max_create_revision) {
  for (;;) {
    RangeRequest newest_older = first_created_under(prefix, SortOrder::descend);
    newest_older.max_create_revision = max_create_revision;
    Result<RangeResponse> resp = co_await client_for(id).range(std::move(newest_older));
    if (!resp.ok()) co_return resp.error();
    if (resp->kvs.empty()) co_return resp->header;
    Result<void> deleted = co_await wait_delete(id, resp->kvs[0].key, resp->header.revision);
    if (!deleted.ok()) co_return deleted.error();
  }
}

Task<Result<void>> LockService::wait_delete(std::uint64_t id, std::string key,
                                            Revision from_revision) {
  WatchCreateRequest request;
  request.key = std::move(key);
  request.start_revision = from_revision;
  Result<std::unique_ptr<WatchStream>> stream = co_await client_for(id).watch(std::move(request));
  if (!stream.ok()) co_return stream.error();
  for (;;) {
    Result<WatchResponse> batch = co_await stream.value()->next(kNoClientDeadline);
    if (!batch.ok()) {
      if (batch.error().code == ErrorCode::timeout &&
          batch.error().outcome == Outcome::definite)
        continue;  // nothing yet: the wait has no deadline of its own
      co_return batch.error();
    }
    if (batch->canceled)
      co_return Error(ErrorCode::compacted, Outcome::definite,
                      "watch cancelled: " + batch->cancel_reason);
    for (const Event& e : batch->events)
      if (e.type == EventType::del) co_return Result<void>();
  }
}

}  // namespace lockstep::sim
