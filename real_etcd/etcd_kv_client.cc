#include "lockstep/real_etcd/etcd_kv_client.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include "lockstep/real_etcd/channel_credentials.h"
#include "lockstep/real_etcd/client_core.h"
#include "lockstep/real_etcd/convert.h"
#include "lockstep/real_etcd/endpoints.h"
#include "lockstep/real_etcd/keep_alive_channel.h"
#include "lockstep/real_etcd/loop_core.h"
#include "lockstep/real_etcd/watch_stream.h"

namespace lockstep::real {

void ClientCore::connect(std::size_t index) {
  EndpointConn& e = endpoints[index];
  e.channel = grpc::CreateCustomChannel(e.target, e.credentials, e.arguments);
  e.kv = pb::KV::NewStub(e.channel);
  e.lease = pb::Lease::NewStub(e.channel);
  e.watch = pb::Watch::NewStub(e.channel);
  e.auth = pb::Auth::NewStub(e.channel);
  e.lock = ::v3lockpb::Lock::NewStub(e.channel);
}

void ClientCore::prepare_context(grpc::ClientContext& context, bool with_deadline) const {
  if (!token.empty()) context.AddMetadata("token", token);
  if (with_deadline) {
    context.set_deadline(std::chrono::system_clock::now() + options.call_deadline);
  }
}

Task<Result<void>> ClientCore::ensure_token(std::size_t index) {
  if (options.username.empty() || !token.empty()) co_return Result<void>::success();
  pb::AuthenticateRequest request;
  request.set_name(options.username);
  request.set_password(options.password);
  UnaryOutcome<pb::AuthenticateResponse> outcome =
      co_await send_once<pb::Auth::Stub, pb::AuthenticateRequest, pb::AuthenticateResponse>(
          index, &pb::Auth::Stub::PrepareAsyncAuthenticate, request, false);
  if (!outcome.status.ok()) {
    CallFailure f = classify_failure(outcome.status.error_code(), outcome.status.error_message());
    explain_unavailable(index, f.error);
    if (f.switch_endpoint) endpoint_failed(index);
    if (f.never_sent) connect(index);
    // A refused login is definite; anything else about reaching the member is `unavailable`
    // here, since no request of the caller was sent.
    if (f.error.code == ErrorCode::invalid_argument) {
      co_return Error(ErrorCode::invalid_argument, "authentication failed: " + f.error.message);
    }
    co_return Error(ErrorCode::unavailable,
                    endpoints[index].target + ": authentication failed: " + f.error.message);
  }
  token = outcome.response.token();
  co_return Result<void>::success();
}

Result<std::unique_ptr<EtcdKvClient>> EtcdKvClient::create(EventLoop& loop,
                                                           EtcdClientOptions options) {
  if (options.endpoints.empty()) {
    return Error(ErrorCode::invalid_argument, "etcd client: no endpoint given");
  }
  if (options.call_deadline <= Duration::zero()) {
    return Error(ErrorCode::invalid_argument, "etcd client: call_deadline must be positive");
  }
  std::vector<EndpointConn> conns;
  for (const auto& text : options.endpoints) {
    auto address = parse_endpoint(text);
    if (!address) return address.error();
    auto creds = make_channel_credentials(options.tls, address->tls);
    if (!creds) return creds.error();
    grpc::ChannelArguments args;
    // Own subchannels per client: two clients must not share (and so lose) one connection.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    // (Not GRPC_ARG_MIN_RECONNECT_BACKOFF_MS: gRPC uses it as the connect timeout, and a
    // short one aborts the handshake with etcd: "tcp handshaker shutdown".)
    const int max_backoff_ms = static_cast<int>(to_ms(options.max_reconnect_backoff));
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, std::min(100, max_backoff_ms));
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, max_backoff_ms);
    args.SetMaxReceiveMessageSize(-1);
    EndpointConn conn;
    conn.target = address->target();
    conn.credentials = creds.value();
    conn.arguments = args;
    conn.security.tls = options.tls.enabled || address->tls;
    conn.security.client_cert = conn.security.tls && !options.tls.cert_file.empty();
    conns.push_back(std::move(conn));
  }
  auto core = std::make_unique<ClientCore>(loop.core(), std::move(options), std::move(conns));
  for (std::size_t i = 0; i < core->endpoints.size(); ++i) core->connect(i);
  return std::unique_ptr<EtcdKvClient>(new EtcdKvClient(std::move(core)));
}

EtcdKvClient::EtcdKvClient(std::unique_ptr<ClientCore> core)
    : core_(std::move(core)), keep_alive_(std::make_unique<KeepAliveChannel>(*core_)) {}

EtcdKvClient::~EtcdKvClient() = default;

std::size_t EtcdKvClient::current_endpoint() const { return core_->current; }

// Each call: translate, one RPC through the core's driver, translate back. The helper is a
// coroutine of its own so each public method stays one line of plumbing.
namespace {

template <typename Stub, typename PbReq, typename PbResp>
Task<Result<decltype(from_pb(std::declval<PbResp>()))>> call(ClientCore* core,
                                                            PrepareUnary<Stub, PbReq, PbResp> fn,
                                                            PbReq request) {
  Result<PbResp> r = co_await core->unary<Stub, PbReq, PbResp>(fn, std::move(request));
  if (!r.ok()) co_return r.error();
  co_return from_pb(r.value());
}

}  // namespace

Task<Result<RangeResponse>> EtcdKvClient::range(RangeRequest request) {
  return call<pb::KV::Stub, pb::RangeRequest, pb::RangeResponse>(
      core_.get(), &pb::KV::Stub::PrepareAsyncRange, to_pb(request));
}

Task<Result<PutResponse>> EtcdKvClient::put(PutRequest request) {
  return call<pb::KV::Stub, pb::PutRequest, pb::PutResponse>(
      core_.get(), &pb::KV::Stub::PrepareAsyncPut, to_pb(request));
}

Task<Result<DeleteRangeResponse>> EtcdKvClient::delete_range(DeleteRangeRequest request) {
  return call<pb::KV::Stub, pb::DeleteRangeRequest, pb::DeleteRangeResponse>(
      core_.get(), &pb::KV::Stub::PrepareAsyncDeleteRange, to_pb(request));
}

Task<Result<TxnResponse>> EtcdKvClient::txn(TxnRequest request) {
  return call<pb::KV::Stub, pb::TxnRequest, pb::TxnResponse>(
      core_.get(), &pb::KV::Stub::PrepareAsyncTxn, to_pb(request));
}

Task<Result<CompactionResponse>> EtcdKvClient::compact(CompactionRequest request) {
  return call<pb::KV::Stub, pb::CompactionRequest, pb::CompactionResponse>(
      core_.get(), &pb::KV::Stub::PrepareAsyncCompact, to_pb(request));
}

Task<Result<LeaseGrantResponse>> EtcdKvClient::lease_grant(LeaseGrantRequest request) {
  return call<pb::Lease::Stub, pb::LeaseGrantRequest, pb::LeaseGrantResponse>(
      core_.get(), &pb::Lease::Stub::PrepareAsyncLeaseGrant, to_pb(request));
}

Task<Result<LeaseRevokeResponse>> EtcdKvClient::lease_revoke(LeaseRevokeRequest request) {
  return call<pb::Lease::Stub, pb::LeaseRevokeRequest, pb::LeaseRevokeResponse>(
      core_.get(), &pb::Lease::Stub::PrepareAsyncLeaseRevoke, to_pb(request));
}

Task<Result<LeaseTimeToLiveResponse>> EtcdKvClient::lease_time_to_live(
    LeaseTimeToLiveRequest request) {
  return call<pb::Lease::Stub, pb::LeaseTimeToLiveRequest, pb::LeaseTimeToLiveResponse>(
      core_.get(), &pb::Lease::Stub::PrepareAsyncLeaseTimeToLive, to_pb(request));
}

Task<Result<LockResponse>> EtcdKvClient::lock(LockRequest request) {
  return call<::v3lockpb::Lock::Stub, ::v3lockpb::LockRequest, ::v3lockpb::LockResponse>(
      core_.get(), &::v3lockpb::Lock::Stub::PrepareAsyncLock, to_pb(request));
}

Task<Result<UnlockResponse>> EtcdKvClient::unlock(UnlockRequest request) {
  return call<::v3lockpb::Lock::Stub, ::v3lockpb::UnlockRequest, ::v3lockpb::UnlockResponse>(
      core_.get(), &::v3lockpb::Lock::Stub::PrepareAsyncUnlock, to_pb(request));
}

Task<Result<LeaseKeepAliveResponse>> EtcdKvClient::lease_keep_alive(
    LeaseKeepAliveRequest request) {
  return keep_alive_->round(request);
}

namespace {

Task<Result<std::unique_ptr<WatchStream>>> open_watch(ClientCore* core,
                                                      WatchCreateRequest request) {
  pb::WatchRequest create;
  *create.mutable_create_request() = to_pb(request);
  std::optional<Error> last_error;
  for (std::size_t attempt = 0; attempt < core->endpoints.size(); ++attempt) {
    const std::size_t index = core->current;
    Result<void> authed = co_await core->ensure_token(index);
    if (!authed.ok()) {
      last_error = authed.error();
      if (authed.error().code == ErrorCode::unavailable) continue;
      co_return authed.error();
    }
    auto* stream = EtcdWatchStream::Stream::create(core->loop);
    core->prepare_context(stream->context(), false);
    stream->start(core->endpoints[index].watch->PrepareAsyncWatch(&stream->context(),
                                                                  core->loop.cq()));
    stream->write(create);
    auto watch = std::make_unique<EtcdWatchStream>(core->loop, stream);
    Result<void> created = co_await watch->await_created(core->options.call_deadline);
    if (created.ok()) co_return std::unique_ptr<WatchStream>(std::move(watch));
    Error error = created.error();
    error.message = core->endpoints[index].target + ": " + error.message;
    core->explain_unavailable(index, error);
    const bool transport = error.code == ErrorCode::unavailable ||
                           error.code == ErrorCode::timeout ||
                           error.code == ErrorCode::connection_lost;
    if (transport) core->endpoint_failed(index);
    if (error.code != ErrorCode::unavailable) co_return error;
    core->connect(index);
    last_error = error;  // never connected: try the next member
  }
  co_return *last_error;
}

}  // namespace

Task<Result<std::unique_ptr<WatchStream>>> EtcdKvClient::watch(WatchCreateRequest request) {
  return open_watch(core_.get(), std::move(request));
}

}  // namespace lockstep::real
