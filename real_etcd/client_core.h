// ClientCore: what EtcdKvClient, its watch streams and its keep-alive channel share: the
// channels and stubs per endpoint, the failover cursor, the auth token, and the unary call
// driver with its retry rules. Private to real_etcd/.
#pragma once

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "etcdpb/rpc.grpc.pb.h"
#include "etcdpb/v3lock.grpc.pb.h"
#include "lockstep/kv/result.h"
#include "lockstep/kv/task.h"
#include "lockstep/real_etcd/error_mapping.h"
#include "lockstep/real_etcd/etcd_client_options.h"
#include "lockstep/real_etcd/loop_core.h"
#include "lockstep/real_etcd/unary_call.h"

namespace lockstep::real {

namespace pb = ::etcdserverpb;

struct EndpointConn {
  std::string target;
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  grpc::ChannelArguments arguments;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<pb::KV::Stub> kv;
  std::unique_ptr<pb::Lease::Stub> lease;
  std::unique_ptr<pb::Watch::Stub> watch;
  std::unique_ptr<pb::Auth::Stub> auth;
  std::unique_ptr<::v3lockpb::Lock::Stub> lock;
  ConnectSecurity security;  // for explaining failures to connect
};

template <typename Stub, typename Req, typename Resp>
using PrepareUnary = std::unique_ptr<grpc::ClientAsyncResponseReader<Resp>> (Stub::*)(
    grpc::ClientContext*, const Req&, grpc::CompletionQueue*);

class ClientCore {
 public:
  ClientCore(LoopCore& core, EtcdClientOptions options, std::vector<EndpointConn> endpoints)
      : loop(core), options(std::move(options)), endpoints(std::move(endpoints)) {}

  LoopCore& loop;
  const EtcdClientOptions options;
  std::vector<EndpointConn> endpoints;
  std::size_t current = 0;
  std::string token;  // empty: not authenticated yet (or no auth configured)

  // A call on endpoint `index` failed in a way that says "try another member": move the
  // cursor on, unless someone already did.
  void endpoint_failed(std::size_t index) {
    if (index == current) current = (current + 1) % endpoints.size();
  }

  // (Re)creates the channel and stubs of endpoint `index`. Called after gRPC could not
  // connect: a channel whose first attempts were refused was seen to stay in
  // TRANSIENT_FAILURE for ~10 s (gRPC 1.51) even after the member came back. Calls in
  // flight keep the old channel alive through their ClientContext.
  void connect(std::size_t index);

  // Appends what about TLS likely made endpoint `index` unreachable (tls_connect_hint) to an
  // `unavailable` error; other errors are left alone.
  void explain_unavailable(std::size_t index, Error& error) const {
    if (error.code == ErrorCode::unavailable)
      error.message += tls_connect_hint(error.message, endpoints[index].security);
  }

  // Adds the auth token (if any) and, for unary calls, the deadline.
  void prepare_context(grpc::ClientContext& context, bool with_deadline) const;

  // Authenticates on `index` if auth is configured and no token is held.
  Task<Result<void>> ensure_token(std::size_t index);

  // One unary RPC with failover, auth and error mapping (see EtcdKvClient's contract).
  template <typename Stub, typename Req, typename Resp>
  Task<Result<Resp>> unary(PrepareUnary<Stub, Req, Resp> prepare, Req request);

  // One attempt on one endpoint; `with_token` false only for Authenticate itself.
  template <typename Stub, typename Req, typename Resp>
  Task<UnaryOutcome<Resp>> send_once(std::size_t index, PrepareUnary<Stub, Req, Resp> prepare,
                                     Req request, bool with_token);

  template <typename Stub>
  Stub& stub(std::size_t index) {
    EndpointConn& e = endpoints[index];
    if constexpr (std::is_same_v<Stub, pb::KV::Stub>) return *e.kv;
    else if constexpr (std::is_same_v<Stub, pb::Lease::Stub>) return *e.lease;
    else if constexpr (std::is_same_v<Stub, pb::Watch::Stub>) return *e.watch;
    else if constexpr (std::is_same_v<Stub, ::v3lockpb::Lock::Stub>) return *e.lock;
    else return *e.auth;
  }
};

template <typename Stub, typename Req, typename Resp>
Task<UnaryOutcome<Resp>> ClientCore::send_once(std::size_t index,
                                               PrepareUnary<Stub, Req, Resp> prepare,
                                               Req request, bool with_token) {
  auto* call = new UnaryCall<Resp>();
  if (with_token) {
    prepare_context(call->context, true);
  } else {
    call->context.set_deadline(std::chrono::system_clock::now() + options.call_deadline);
  }
  call->reader = (stub<Stub>(index).*prepare)(&call->context, request, loop.cq());
  call->reader->StartCall();
  call->reader->Finish(&call->response, &call->status, loop.issue(call));
  UnaryAwaiter<Resp> awaiter(call);  // owns the call from here on
  UnaryOutcome<Resp> outcome = co_await awaiter;
  co_return outcome;
}

template <typename Stub, typename Req, typename Resp>
Task<Result<Resp>> ClientCore::unary(PrepareUnary<Stub, Req, Resp> prepare, Req request) {
  std::optional<Error> last_error;
  bool reauthenticated = false;
  // One try per endpoint for never-sent failures, plus one retry after re-authenticating.
  for (std::size_t attempt = 0; attempt <= endpoints.size(); ++attempt) {
    const std::size_t index = current;
    Result<void> authed = co_await ensure_token(index);
    if (!authed.ok()) {
      last_error = authed.error();
      if (authed.error().code == ErrorCode::unavailable) continue;  // try the next member
      co_return authed.error();
    }
    UnaryOutcome<Resp> outcome = co_await send_once<Stub, Req, Resp>(index, prepare, request, true);
    if (outcome.status.ok()) co_return std::move(outcome.response);
    CallFailure failure = classify_failure(outcome.status.error_code(),
                                           outcome.status.error_message());
    failure.error.message = endpoints[index].target + ": " + failure.error.message;
    explain_unavailable(index, failure.error);
    if (failure.switch_endpoint) endpoint_failed(index);
    if (failure.auth_token_rejected && !reauthenticated) {
      token.clear();
      reauthenticated = true;
      continue;
    }
    if (failure.never_sent) {
      connect(index);
      last_error = failure.error;
      continue;
    }
    co_return failure.error;
  }
  co_return *last_error;
}

}  // namespace lockstep::real
