#include "lockstep/sim/sim_kv_client.h"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <string>

#include "lockstep/sim/json_object.h"

namespace lockstep::sim {

namespace {

void push_to_stream(World& world, ProcessId pid, SimKvClient::StreamState& s,
                    Result<WatchResponse> item) {
  if (s.ended) return;
  if (!item.ok() || item.value().canceled) s.ended = true;
  s.queue.push_back(std::move(item));
  if (s.waiter && !s.waiter->value) {
    s.waiter->value = true;
    fire_wake(world, pid, wake_of(s.waiter));
  }
}

}  // namespace

class SimWatchStream : public WatchStream {
 public:
  SimWatchStream(SimKvClient& client, std::uint64_t stream_id, std::int64_t watch_id,
                 ResponseHeader created, std::shared_ptr<SimKvClient::StreamState> state)
      : client_(client),
        stream_id_(stream_id),
        watch_id_(watch_id),
        created_(created),
        state_(std::move(state)) {}

  ~SimWatchStream() override {
    client_.streams_.erase(stream_id_);
    if (!state_->ended) {
      // Fire-and-forget cancel, as the client closing its watch.
      ReplyRoute route{client_.pid_, 0};
      client_.cluster_.send_request(client_.pid_, state_->member, route,
                                    WatchCancelRequest{watch_id_});
    }
  }

  std::int64_t watch_id() const override { return watch_id_; }
  const ResponseHeader& created_header() const override { return created_; }

  Task<Result<WatchResponse>> next(Duration max_wait) override {
    if (state_->queue.empty()) {
      if (state_->ended) co_return Error(ErrorCode::connection_lost, "watch stream ended");
      auto slot = make_local<Slot<bool>>();
      state_->waiter = slot;
      const auto timer = client_.world_.schedule_after_local(
          max_wait, client_.pid_, [world = &client_.world_, pid = client_.pid_, slot] {
            if (slot->value) return;
            slot->value = false;
            fire_wake(*world, pid, wake_of(slot));
          });
      co_await WakeAwaiter(wake_of(slot));
      client_.world_.cancel(timer);
      state_->waiter.reset();
      if (state_->queue.empty())
        co_return Error(ErrorCode::timeout, Outcome::definite, "no watch event within max_wait");
    }
    Result<WatchResponse> item = std::move(state_->queue.front());
    state_->queue.pop_front();
    co_return item;
  }

 private:
  SimKvClient& client_;
  std::uint64_t stream_id_;
  std::int64_t watch_id_;
  ResponseHeader created_;
  std::shared_ptr<SimKvClient::StreamState> state_;
};

SimKvClient::SimKvClient(World& world, EtcdCluster& cluster, ProcessId pid,
                         SimClientOptions options)
    : world_(world),
      cluster_(cluster),
      pid_(pid),
      options_(options),
      member_(options.preferred_member % cluster.size()),
      deadline_timer_(world, pid, [this] { fail_expired_calls(); }) {
  cluster_.register_client(pid_, [this](std::uint64_t id, Result<ClientResponse>&& r) {
    on_reply(id, std::move(r));
  });
  cluster_.register_stream_break(pid_, [this](int member) { on_member_reset(member); });
}

SimKvClient::~SimKvClient() {
  cluster_.register_client(pid_, nullptr);
  cluster_.register_stream_break(pid_, nullptr);
}

void SimKvClient::on_crash() {
  // The kernel closes a dead process's connections: each member cancels the calls it had
  // from this client (what it had not started is never run).
  for (const auto& [id, c] : calls_)
    cluster_.send_request(pid_, c.member, ReplyRoute{pid_, id, 0}, CallCancel{});
  calls_.clear();
  deadline_timer_.disarm();
  streams_.clear();
  member_ = options_.preferred_member % cluster_.size();
}

void SimKvClient::disconnect() {
  calls_.clear();
  deadline_timer_.disarm();
  for (auto& [id, state] : streams_) state->ended = true;  // their destructors send nothing
}

void SimKvClient::note_error(const Error& e, int member) {
  const bool unhealthy = e.code == ErrorCode::timeout || e.code == ErrorCode::no_leader ||
                         e.code == ErrorCode::connection_lost ||
                         e.code == ErrorCode::unavailable;
  if (unhealthy && member == member_ && options_.fail_over) switch_member((member_ + 1) % cluster_.size(), error_code_name(e.code));
}

void SimKvClient::switch_member(int to, const char* after) {
  if (options_.record_calls && world_.observer() && to != member_)
    world_.record_client_event(pid_, "member-switch",
                               {{"from", "member-" + std::to_string(member_)},
                                {"to", "member-" + std::to_string(to)},
                                {"after", after}});
  member_ = to;
}

namespace {

// The request's name in etcd's API, in ClientRequest's alternative order.
const char* request_name(const ClientRequest& request) {
  static constexpr const char* kNames[] = {
      "range",       "put",         "delete_range",     "txn",          "compaction",
      "lease_grant", "lease_revoke", "lease_keep_alive", "lease_time_to_live", "watch_create",
      "watch_cancel", "cancel",      "lock",        "unlock"};
  static_assert(std::size(kNames) == std::variant_size_v<ClientRequest>);
  return kNames[request.index()];
}

}  // namespace

void SimKvClient::record_send(std::uint64_t call_id, const ClientRequest& request, int member) {
  // Members in key order (see JsonObject): call, key, lease, member, range_end, request.
  JsonObject args;
  args.add("call", call_id);
  const std::string* key = nullptr;
  if (const auto* range = std::get_if<RangeRequest>(&request)) key = &range->key;
  if (const auto* put = std::get_if<PutRequest>(&request)) key = &put->key;
  if (const auto* del = std::get_if<DeleteRangeRequest>(&request)) key = &del->key;
  if (const auto* lock = std::get_if<LockRequest>(&request)) key = &lock->name;
  if (const auto* unlock = std::get_if<UnlockRequest>(&request)) key = &unlock->key;
  if (key != nullptr) args.add("key", escape_bytes(*key));
  if (const auto* ka = std::get_if<LeaseKeepAliveRequest>(&request)) args.add("lease", ka->id);
  if (const auto* rv = std::get_if<LeaseRevokeRequest>(&request)) args.add("lease", rv->id);
  if (const auto* lock = std::get_if<LockRequest>(&request)) args.add("lease", lock->lease);
  args.add("member", "member-" + std::to_string(member));
  if (const auto* range = std::get_if<RangeRequest>(&request); range && !range->range_end.empty())
    args.add("range_end", escape_bytes(range->range_end));
  args.add("request", request_name(request));
  world_.record_client_event(pid_, "kv-send", std::move(args).take());
}

void SimKvClient::record_end(std::uint64_t call_id, const char* outcome, const Error* error) {
  JsonObject args;  // in key order: call, error, outcome
  args.add("call", call_id);
  if (error != nullptr) args.add("error", error->message);
  args.add("outcome", outcome);
  world_.record_client_event(pid_, "kv-end", std::move(args).take());
}

SimKvClient::Calls::iterator SimKvClient::find_call(std::uint64_t call_id) {
  auto it = std::lower_bound(calls_.begin(), calls_.end(), call_id,
                             [](const auto& call, std::uint64_t id) { return call.first < id; });
  return it != calls_.end() && it->first == call_id ? it : calls_.end();
}

void SimKvClient::complete(std::uint64_t call_id, Result<ClientResponse>&& response,
                           bool in_own_event) {
  auto it = find_call(call_id);
  if (it == calls_.end()) return;
  auto slot = it->second.slot;  // keeps the slot alive while its coroutine runs
  calls_.erase(it);
  if (slot->value) return;
  slot->value = std::move(response);
  if (in_own_event) {
    fire_wake_now(world_, pid_, *slot);
  } else {
    fire_wake(world_, pid_, wake_of(slot));
  }
}

void SimKvClient::on_reply(std::uint64_t call_id, Result<ClientResponse>&& response) {
  if (auto s = streams_.find(call_id); s != streams_.end()) {
    if (!response.ok()) {
      push_to_stream(world_, pid_, *s->second, response.error());
    } else if (auto* w = std::get_if<WatchResponse>(&response.value())) {
      push_to_stream(world_, pid_, *s->second, *w);
    }
    return;
  }
  auto it = find_call(call_id);
  if (it == calls_.end()) return;
  if (options_.record_calls && world_.observer())
    record_end(call_id, response.ok() ? "ok" : "error", response.ok() ? nullptr : &response.error());
  if (it->second.is_watch_create && response.ok()) {
    auto* w = std::get_if<WatchResponse>(&response.value());
    // Created and cancelled at once is a refusal (watch() turns it into an error): there is
    // no watch on the member to stream from or to cancel.
    if (w && w->created && !w->canceled) {
      if (it->second.slot->cancelled) {
        // Nobody waits for this watch any more: close it.
        cluster_.send_request(pid_, it->second.member, ReplyRoute{pid_, 0},
                              WatchCancelRequest{w->watch_id});
      } else {
        auto state = std::make_shared<StreamState>();
        state->member = it->second.member;
        streams_[call_id] = state;
      }
    }
  }
  complete(call_id, std::move(response), /*in_own_event=*/true);
}

void SimKvClient::on_member_reset(int member) {
  std::vector<std::uint64_t> broken;
  for (const auto& [id, c] : calls_)
    if (c.member == member) broken.push_back(id);
  for (auto id : broken) {
    const Error reset(ErrorCode::connection_lost, "connection to member reset");
    if (options_.record_calls && world_.observer()) record_end(id, "connection-lost", &reset);
    cluster_.note_abandoned_call(pid_, id);
    complete(id, Error(reset), /*in_own_event=*/false);  // a crash of the member, not an event of this client
  }
  for (auto& [id, s] : streams_)
    if (s->member == member)
      push_to_stream(world_, pid_, *s,
                     Error(ErrorCode::connection_lost, "watch stream's member went away"));
  if (member == member_ && options_.fail_over)
    switch_member((member_ + 1) % cluster_.size(), "connection_lost");
}

SimKvClient::CallInFlight SimKvClient::start_call(ClientRequest&& request) {
  const std::uint64_t id = next_call_id_++;
  CallInFlight call;
  call.member = member_;
  call.slot = make_local<Slot<Result<ClientResponse>>>();
  const Duration deadline = world_.local_monotonic(pid_) + options_.request_timeout;
  calls_.emplace_back(id, PendingCall{call.slot, call.member,
                                      std::holds_alternative<WatchCreateRequest>(request),
                                      deadline});
  if (options_.record_calls && world_.observer()) record_send(id, request, call.member);
  cluster_.send_request(pid_, call.member,
                        ReplyRoute{pid_, id, world_.now().time_since_epoch().count(),
                                   options_.request_timeout.count(), calls_for_client_,
                                   calls_for_call_id_, calls_for_request_},
                        std::move(request));
  deadline_timer_.arm_no_later_than_local(deadline);
  return call;
}

void SimKvClient::fail_expired_calls() {
  const Duration now = world_.local_monotonic(pid_);
  std::vector<std::uint64_t> expired;
  for (const auto& [id, c] : calls_)
    if (c.deadline <= now) expired.push_back(id);
  for (const std::uint64_t id : expired) {
    if (options_.record_calls && world_.observer()) record_end(id, "deadline", nullptr);
    cluster_.note_abandoned_call(pid_, id);
    // gRPC cancels the call on its stream: behind the request on the same connection.
    cluster_.send_request(pid_, find_call(id)->second.member, ReplyRoute{pid_, id, 0},
                          CallCancel{});
    complete(id, Error(ErrorCode::timeout, "context deadline exceeded"),
             /*in_own_event=*/false);  // several may fail at once: each resumes in turn
  }
  Duration earliest = Duration::max();
  for (const auto& [id, c] : calls_) earliest = std::min(earliest, c.deadline);
  if (!calls_.empty()) deadline_timer_.arm_at_local(earliest);
}

Result<ClientResponse> SimKvClient::finish_call(const CallInFlight& call) {
  Result<ClientResponse> response = std::move(*call.slot->value);
  if (!response.ok()) note_error(response.error(), call.member);
  return response;
}

template <typename Response>
Task<Result<Response>> SimKvClient::typed_call(ClientRequest request) {
  const CallInFlight call = start_call(std::move(request));
  co_await WakeAwaiter(wake_of(call.slot));
  Result<ClientResponse> r = finish_call(call);
  if (!r.ok()) co_return r.error();
  auto* typed = std::get_if<Response>(&r.value());
  assert(typed && "a member answered with the wrong response type");
  co_return std::move(*typed);
}

Task<Result<RangeResponse>> SimKvClient::range(RangeRequest request) {
  return typed_call<RangeResponse>(std::move(request));
}
Task<Result<PutResponse>> SimKvClient::put(PutRequest request) {
  return typed_call<PutResponse>(std::move(request));
}
Task<Result<DeleteRangeResponse>> SimKvClient::delete_range(DeleteRangeRequest request) {
  return typed_call<DeleteRangeResponse>(std::move(request));
}
Task<Result<TxnResponse>> SimKvClient::txn(TxnRequest request) {
  return typed_call<TxnResponse>(std::move(request));
}
Task<Result<CompactionResponse>> SimKvClient::compact(CompactionRequest request) {
  return typed_call<CompactionResponse>(std::move(request));
}
Task<Result<LeaseGrantResponse>> SimKvClient::lease_grant(LeaseGrantRequest request) {
  return typed_call<LeaseGrantResponse>(std::move(request));
}
Task<Result<LeaseRevokeResponse>> SimKvClient::lease_revoke(LeaseRevokeRequest request) {
  return typed_call<LeaseRevokeResponse>(std::move(request));
}
Task<Result<LeaseKeepAliveResponse>> SimKvClient::lease_keep_alive(LeaseKeepAliveRequest request) {
  return typed_call<LeaseKeepAliveResponse>(std::move(request));
}
Task<Result<LeaseTimeToLiveResponse>> SimKvClient::lease_time_to_live(
    LeaseTimeToLiveRequest request) {
  return typed_call<LeaseTimeToLiveResponse>(std::move(request));
}

Task<Result<LockResponse>> SimKvClient::lock(LockRequest request) {
  return typed_call<LockResponse>(std::move(request));
}
Task<Result<UnlockResponse>> SimKvClient::unlock(UnlockRequest request) {
  return typed_call<UnlockResponse>(std::move(request));
}

Task<Result<std::unique_ptr<WatchStream>>> SimKvClient::watch(WatchCreateRequest request) {
  const std::uint64_t id = next_call_id_;  // the id start_call() will use
  Result<WatchResponse> created = co_await typed_call<WatchResponse>(std::move(request));
  if (!created.ok()) co_return created.error();
  if (created.value().canceled) {
    // The member refused the watch, as etcd's server does (created and cancelled in one
    // reply); the same errors as the gRPC client's (real_etcd/watch_stream.cc).
    if (created.value().compact_revision > 0) {
      co_return Error(ErrorCode::compacted,
                      "watch: start revision compacted (compact_revision " +
                          std::to_string(created.value().compact_revision) + ")");
    }
    co_return Error(ErrorCode::invalid_argument,
                    "watch refused: " + created.value().cancel_reason);
  }
  auto s = streams_.find(id);
  if (s == streams_.end())
    co_return Error(ErrorCode::connection_lost, "watch stream closed before it was created");
  std::unique_ptr<WatchStream> stream = std::make_unique<SimWatchStream>(
      *this, id, created.value().watch_id, created.value().header, s->second);
  co_return stream;
}

}  // namespace lockstep::sim
