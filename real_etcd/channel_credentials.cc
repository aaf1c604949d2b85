#include "lockstep/real_etcd/channel_credentials.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace lockstep::real {
namespace {

Result<std::string> read_pem(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Error(ErrorCode::invalid_argument, std::string("cannot read TLS ") + what + " file '" +
                                                  path + "': " + std::strerror(errno));
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

Result<std::shared_ptr<grpc::ChannelCredentials>> make_channel_credentials(
    const EtcdTlsOptions& tls, bool endpoint_wants_tls) {
  if (!tls.enabled && !endpoint_wants_tls) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions ssl;
  if (!tls.ca_file.empty()) {
    auto ca = read_pem(tls.ca_file, "CA");
    if (!ca) return ca.error();
    ssl.pem_root_certs = std::move(ca.value());
  }
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    return Error(ErrorCode::invalid_argument,
                 "TLS client certificate and key must be given together");
  }
  if (!tls.cert_file.empty()) {
    auto cert = read_pem(tls.cert_file, "certificate");
    if (!cert) return cert.error();
    auto key = read_pem(tls.key_file, "key");
    if (!key) return key.error();
    ssl.pem_cert_chain = std::move(cert.value());
    ssl.pem_private_key = std::move(key.value());
  }
  return grpc::SslCredentials(ssl);
}

}  // namespace lockstep::real
