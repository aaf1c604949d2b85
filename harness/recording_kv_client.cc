#include "lockstep/harness/recording_kv_client.h"

#include <utility>

#include "lockstep/kv/types.h"

namespace lockstep {

namespace {

// The outcome of a call as the history names it: a deadline and a lost connection are the
// two ways a call ends without an answer.
const char* outcome_of(const Error* e) {
  if (e == nullptr) return "ok";
  if (e->code == ErrorCode::timeout && e->outcome == Outcome::indeterminate) return "deadline";
  if (e->code == ErrorCode::connection_lost) return "connection-lost";
  return "error";
}

}  // namespace

RecordingKvClient::RecordingKvClient(KvClient& inner, std::function<std::string()> member_of_next_call,
                                     Record record)
    : ForwardingKvClient(inner),
      member_of_next_call_(std::move(member_of_next_call)),
      record_(std::move(record)) {}

std::uint64_t RecordingKvClient::sent(const char* request, nlohmann::json extra) {
  const std::uint64_t call = next_call_++;
  const std::string member = member_of_next_call_();
  if (!member_.empty() && member != member_)
    record_("member-switch", {{"from", member_}, {"to", member}, {"after", last_error_}});
  member_ = member;
  nlohmann::json args = extra.is_object() ? std::move(extra) : nlohmann::json::object();
  args["call"] = call;
  args["request"] = request;
  args["member"] = member;
  record_("kv-send", std::move(args));
  return call;
}

void RecordingKvClient::ended(std::uint64_t call, const Error* error) {
  nlohmann::json args = {{"call", call}, {"outcome", outcome_of(error)}};
  if (error != nullptr) args["error"] = error->message;
  last_error_ = error != nullptr ? error_code_name(error->code) : "";
  record_("kv-end", std::move(args));
}

template <typename T>
Task<Result<T>> RecordingKvClient::recorded(std::uint64_t call, Task<Result<T>> inner_call) {
  Result<T> r = co_await std::move(inner_call);
  ended(call, r.ok() ? nullptr : &r.error());
  co_return r;
}

Task<Result<RangeResponse>> RecordingKvClient::range(RangeRequest r) {
  nlohmann::json range = {{"key", escape_bytes(r.key)}};
  if (!r.range_end.empty()) range["range_end"] = escape_bytes(r.range_end);
  const auto call = sent("range", std::move(range));
  return recorded(call, ForwardingKvClient::range(std::move(r)));
}
Task<Result<PutResponse>> RecordingKvClient::put(PutRequest r) {
  const auto call = sent("put", {{"key", escape_bytes(r.key)}});
  return recorded(call, ForwardingKvClient::put(std::move(r)));
}
Task<Result<DeleteRangeResponse>> RecordingKvClient::delete_range(DeleteRangeRequest r) {
  const auto call = sent("delete_range", {{"key", escape_bytes(r.key)}});
  return recorded(call, ForwardingKvClient::delete_range(std::move(r)));
}
Task<Result<TxnResponse>> RecordingKvClient::txn(TxnRequest r) {
  const auto call = sent("txn", nullptr);
  return recorded(call, ForwardingKvClient::txn(std::move(r)));
}
Task<Result<LeaseGrantResponse>> RecordingKvClient::lease_grant(LeaseGrantRequest r) {
  const auto call = sent("lease_grant", nullptr);
  return recorded(call, ForwardingKvClient::lease_grant(std::move(r)));
}
Task<Result<LeaseRevokeResponse>> RecordingKvClient::lease_revoke(LeaseRevokeRequest r) {
  const auto call = sent("lease_revoke", {{"lease", r.id}});
  return recorded(call, ForwardingKvClient::lease_revoke(std::move(r)));
}
Task<Result<LeaseKeepAliveResponse>> RecordingKvClient::lease_keep_alive(LeaseKeepAliveRequest r) {
  const auto call = sent("lease_keep_alive", {{"lease", r.id}});
  return recorded(call, ForwardingKvClient::lease_keep_alive(std::move(r)));
}
Task<Result<LeaseTimeToLiveResponse>> RecordingKvClient::lease_time_to_live(LeaseTimeToLiveRequest r) {
  const auto call = sent("lease_time_to_live", nullptr);
  return recorded(call, ForwardingKvClient::lease_time_to_live(std::move(r)));
}
Task<Result<LockResponse>> RecordingKvClient::lock(LockRequest r) {
  const auto call = sent("lock", {{"key", escape_bytes(r.name)}, {"lease", r.lease}});
  return recorded(call, ForwardingKvClient::lock(std::move(r)));
}
Task<Result<UnlockResponse>> RecordingKvClient::unlock(UnlockRequest r) {
  const auto call = sent("unlock", {{"key", escape_bytes(r.key)}});
  return recorded(call, ForwardingKvClient::unlock(std::move(r)));
}
Task<Result<std::unique_ptr<WatchStream>>> RecordingKvClient::watch(WatchCreateRequest r) {
  const auto call = sent("watch_create", nullptr);
  return recorded(call, ForwardingKvClient::watch(std::move(r)));
}

}  // namespace lockstep
