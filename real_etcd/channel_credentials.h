// The gRPC channel credentials for an etcd endpoint: plain, or TLS with an optional CA and
// client certificate (EtcdTlsOptions). Shared by EtcdKvClient and LocalCluster's probes.
// Private to real_etcd/ (it exposes gRPC types).
//
// Contract:
//   - TLS is used when tls.enabled or the endpoint was written "https://"; otherwise the
//     channel is plain (insecure) and the TLS files are not read.
//   - Every PEM file is read here, once: a missing or unreadable file, or a certificate
//     without its key (or the reverse), is a definite invalid_argument naming the file.
//   - With TLS and no ca_file, gRPC's default roots verify the server.
#pragma once

#include <grpcpp/security/credentials.h>

#include <memory>

#include "lockstep/kv/result.h"
#include "lockstep/real_etcd/etcd_client_options.h"

namespace lockstep::real {

Result<std::shared_ptr<grpc::ChannelCredentials>> make_channel_credentials(
    const EtcdTlsOptions& tls, bool endpoint_wants_tls);

}  // namespace lockstep::real
