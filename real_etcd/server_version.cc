#include "lockstep/real_etcd/server_version.h"

#include <grpcpp/create_channel.h>

#include <chrono>

#include "etcdpb/rpc.grpc.pb.h"
#include "lockstep/real_etcd/channel_credentials.h"
#include "lockstep/real_etcd/endpoints.h"

namespace lockstep::real {

Result<std::string> etcd_server_version(const EtcdClientOptions& options, Duration deadline) {
  if (options.endpoints.empty()) return Error(ErrorCode::invalid_argument, "no endpoint given");
  Error last(ErrorCode::unavailable, "no endpoint answered");
  for (const auto& text : options.endpoints) {
    auto address = parse_endpoint(text);
    if (!address) return address.error();
    auto credentials = make_channel_credentials(options.tls, address->tls);
    if (!credentials) return credentials.error();
    auto channel = grpc::CreateChannel(address->target(), credentials.value());
    auto maintenance = etcdserverpb::Maintenance::NewStub(channel);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + deadline);
    etcdserverpb::StatusResponse response;
    const grpc::Status status = maintenance->Status(&ctx, etcdserverpb::StatusRequest(), &response);
    if (status.ok()) return response.version();
    last = Error(ErrorCode::unavailable, text + ": " + status.error_message());
  }
  return last;
}

}  // namespace lockstep::real
