#include "lockstep/real_etcd/error_mapping.h"

#include <string>

namespace lockstep::real {
namespace {

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// gRPC's wording when no connection could be made (the call was never written to a socket).
bool is_connect_failure(std::string_view message) {
  return contains(message, "failed to connect") || contains(message, "Connection refused") ||
         contains(message, "connections to all backends failing") ||
         contains(message, "Failed to connect");
}

}  // namespace

CallFailure classify_failure(grpc::StatusCode code, std::string_view message) {
  const std::string msg(message);
  const std::string described = "grpc status " + std::to_string(static_cast<int>(code)) + ": " + msg;
  CallFailure f{Error(ErrorCode::invalid_argument, described)};

  // etcd's refusals first: they are definite whatever their gRPC code.
  struct Known {
    std::string_view text;
    ErrorCode code;
  };
  static constexpr Known kDefinite[] = {
      {"required revision has been compacted", ErrorCode::compacted},
      {"required revision is a future revision", ErrorCode::future_revision},
      {"requested lease not found", ErrorCode::lease_not_found},
      {"duplicate key given in txn request", ErrorCode::duplicate_key},
      {"too many operations in txn request", ErrorCode::too_many_ops},
      {"etcdserver: key is not provided", ErrorCode::empty_key},
  };
  for (const auto& k : kDefinite) {
    if (contains(message, k.text)) {
      f.error = Error(k.code, described);
      return f;
    }
  }
  if (contains(message, "etcdserver: invalid auth token")) {
    f.error = Error(ErrorCode::invalid_argument, described);
    f.auth_token_rejected = true;
    return f;
  }
  if (contains(message, "etcdserver: leader changed")) {
    f.error = Error(ErrorCode::leader_changed, described);
    return f;
  }
  if (contains(message, "etcdserver: no leader")) {
    f.error = Error(ErrorCode::no_leader, described);
    f.switch_endpoint = true;
    return f;
  }
  if (contains(message, "etcdserver: request timed out")) {
    f.error = Error(ErrorCode::timeout, described);
    f.switch_endpoint = true;
    return f;
  }
  if (contains(message, "etcdserver: server stopped")) {
    f.error = Error(ErrorCode::connection_lost, described);
    f.switch_endpoint = true;
    return f;
  }
  // Refused before being proposed to raft: nothing happened. A leader handing over its
  // leadership drops proposals (raft's ErrProposalDropped, sent with code Unknown).
  if (contains(message, "raft proposal dropped") ||
      contains(message, "etcdserver: too many requests") ||
      contains(message, "etcdserver: not capable") ||
      contains(message, "etcdserver: unhealthy cluster") ||
      contains(message, "rpc not supported for learner")) {
    f.error = Error(ErrorCode::unavailable, described);
    f.switch_endpoint = true;
    return f;
  }

  switch (code) {
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      f.error = Error(ErrorCode::timeout, described);
      f.switch_endpoint = true;
      return f;
    case grpc::StatusCode::UNAVAILABLE:
      f.switch_endpoint = true;
      if (is_connect_failure(message)) {
        f.error = Error(ErrorCode::unavailable, described);
        f.never_sent = true;
      } else {
        f.error = Error(ErrorCode::connection_lost, described);
      }
      return f;
    case grpc::StatusCode::CANCELLED:
      // Only our own cancellations (an abandoned call, a stream being closed) get here; the
      // request may already have been on the wire.
      f.error = Error(ErrorCode::cancelled, Outcome::indeterminate, described);
      return f;
    case grpc::StatusCode::UNKNOWN:
    case grpc::StatusCode::INTERNAL:
    case grpc::StatusCode::ABORTED:
    case grpc::StatusCode::DATA_LOSS:
      f.error = Error(ErrorCode::connection_lost, described);
      f.switch_endpoint = true;
      return f;
    default:
      // INVALID_ARGUMENT, FAILED_PRECONDITION, PERMISSION_DENIED, UNAUTHENTICATED, NOT_FOUND,
      // OUT_OF_RANGE, RESOURCE_EXHAUSTED, UNIMPLEMENTED...: the server refused the request.
      f.error = Error(ErrorCode::invalid_argument, described);
      return f;
  }
}

std::string tls_connect_hint(std::string_view message, ConnectSecurity security) {
  if (contains(message, "Connection refused")) return {};
  if (security.tls) {
    if (contains(message, "certificate verify failed") || contains(message, "CERTIFICATE_VERIFY_FAILED"))
      return " (TLS: the member's certificate is not signed by the trusted CA (--cacert) or "
             "does not name this address)";
    // The member ended the handshake: an alert about our certificate (when it comes during
    // the handshake), or a closed or reset connection (TLS 1.3: the client's side was
    // already done; a plain-text member resets it). gRPC words these differently from run
    // to run, so every wording seen is listed.
    if (contains(message, "certificate required") || contains(message, "bad certificate") ||
        contains(message, "Endpoint read failed") || contains(message, "Socket closed") ||
        contains(message, "Connection reset by peer")) {
      return security.client_cert
                 ? " (TLS: the member closed the connection during the handshake; it may not "
                   "accept this client certificate, or not serve https)"
                 : " (TLS: the member closed the connection during the handshake; it may demand "
                   "a client certificate (--cert, --key), or not serve https)";
    }
    if (contains(message, "Ssl handshake failed") || contains(message, "Handshake failed"))
      return " (TLS handshake failed: does the member serve https?)";
    return {};
  }
  if (contains(message, "Socket closed") || contains(message, "Endpoint read failed") ||
      contains(message, "Connection reset by peer"))
    return " (the member closed the connection: if it serves TLS, write the endpoint "
           "https://... or give --cacert)";
  return {};
}

}  // namespace lockstep::real
