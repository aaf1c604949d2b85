#include "lockstep/real_etcd/error_mapping.h"

#include <catch2/catch.hpp>

namespace lockstep::real {
namespace {

using grpc::StatusCode;

TEST_CASE("etcd's refusals map to definite error codes") {
  struct Case {
    StatusCode code;
    const char* message;
    ErrorCode expected;
  };
  const Case cases[] = {
      {StatusCode::NOT_FOUND, "etcdserver: requested lease not found", ErrorCode::lease_not_found},
      {StatusCode::OUT_OF_RANGE, "etcdserver: mvcc: required revision has been compacted",
       ErrorCode::compacted},
      {StatusCode::OUT_OF_RANGE, "etcdserver: mvcc: required revision is a future revision",
       ErrorCode::future_revision},
      {StatusCode::INVALID_ARGUMENT, "etcdserver: duplicate key given in txn request",
       ErrorCode::duplicate_key},
      {StatusCode::INVALID_ARGUMENT, "etcdserver: too many operations in txn request",
       ErrorCode::too_many_ops},
      {StatusCode::INVALID_ARGUMENT, "etcdserver: key is not provided", ErrorCode::empty_key},
      {StatusCode::PERMISSION_DENIED, "etcdserver: permission denied",
       ErrorCode::invalid_argument},
  };
  for (const auto& c : cases) {
    const CallFailure f = classify_failure(c.code, c.message);
    INFO(c.message);
    REQUIRE(f.error.code == c.expected);
    REQUIRE(f.error.outcome == Outcome::definite);
    REQUIRE_FALSE(f.never_sent);
  }
}

TEST_CASE("transport failures after sending are indeterminate and move to another member") {
  const CallFailure deadline = classify_failure(StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded");
  REQUIRE(deadline.error.code == ErrorCode::timeout);
  REQUIRE(deadline.error.indeterminate());
  REQUIRE(deadline.switch_endpoint);

  const CallFailure reset = classify_failure(StatusCode::UNAVAILABLE, "Socket closed");
  REQUIRE(reset.error.code == ErrorCode::connection_lost);
  REQUIRE(reset.error.indeterminate());
  REQUIRE_FALSE(reset.never_sent);

  const CallFailure leader = classify_failure(StatusCode::UNAVAILABLE, "etcdserver: leader changed");
  REQUIRE(leader.error.code == ErrorCode::leader_changed);
  REQUIRE(leader.error.indeterminate());

  const CallFailure no_leader = classify_failure(StatusCode::UNAVAILABLE, "etcdserver: no leader");
  REQUIRE(no_leader.error.code == ErrorCode::no_leader);
  REQUIRE(no_leader.switch_endpoint);

  const CallFailure timed_out = classify_failure(
      StatusCode::UNAVAILABLE, "etcdserver: request timed out, possibly due to previous leader failure");
  REQUIRE(timed_out.error.code == ErrorCode::timeout);
  REQUIRE(timed_out.error.indeterminate());
}

TEST_CASE("a proposal a leader dropped during a hand-over is definite: nothing was applied") {
  const CallFailure f = classify_failure(StatusCode::UNKNOWN, "raft proposal dropped");
  REQUIRE(f.error.code == ErrorCode::unavailable);
  REQUIRE(f.error.outcome == Outcome::definite);
  REQUIRE(f.switch_endpoint);
}

TEST_CASE("a call that never got a connection is definite and safe to retry elsewhere") {
  const CallFailure f = classify_failure(
      StatusCode::UNAVAILABLE,
      "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:1: Failed to "
      "connect to remote host: Connection refused");
  REQUIRE(f.error.code == ErrorCode::unavailable);
  REQUIRE(f.error.outcome == Outcome::definite);
  REQUIRE(f.never_sent);
  REQUIRE(f.switch_endpoint);
}

TEST_CASE("an expired auth token asks for re-authentication") {
  const CallFailure f = classify_failure(StatusCode::UNAUTHENTICATED, "etcdserver: invalid auth token");
  REQUIRE(f.auth_token_rejected);
  REQUIRE(f.error.outcome == Outcome::definite);
}

TEST_CASE("a failure to connect says what about TLS is the likely cause") {
  const ConnectSecurity tls_only{true, false}, with_cert{true, true}, plain{false, false};
  const char* verify =
      "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:1: Ssl handshake "
      "failed: SSL_ERROR_SSL: error:0A000086:SSL routines::certificate verify failed";
  CHECK(tls_connect_hint(verify, with_cert).find("not signed by the trusted CA") != std::string::npos);
  const char* closed = "failed to connect to all addresses; last error: UNAVAILABLE: "
                       "ipv4:127.0.0.1:1: Endpoint read failed";
  CHECK(tls_connect_hint(closed, tls_only).find("may demand a client certificate") != std::string::npos);
  CHECK(tls_connect_hint(closed, with_cert).find("may not accept this client certificate") !=
        std::string::npos);
  const char* alert = "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:1: "
                      "Ssl handshake failed: SSL_ERROR_SSL: error:0A00045C:SSL routines::tlsv13 "
                      "alert certificate required";
  CHECK(tls_connect_hint(alert, tls_only).find("may demand a client certificate") != std::string::npos);
  const char* socket_closed = "failed to connect to all addresses; last error: UNAVAILABLE: "
                              "ipv4:127.0.0.1:1: Socket closed";
  CHECK(tls_connect_hint(socket_closed, plain).find("write the endpoint https://") != std::string::npos);
  // A TLS client of a plain-text member: gRPC sometimes reports a reset instead (seen in CI).
  const char* reset = "failed to connect to all addresses; last error: UNAVAILABLE: "
                      "ipv4:127.0.0.1:1: recvmsg:Connection reset by peer";
  CHECK(tls_connect_hint(reset, with_cert).find("serve https") != std::string::npos);
  CHECK(tls_connect_hint(reset, plain).find("write the endpoint https://") != std::string::npos);
  // Nothing listening is not about TLS.
  const char* refused = "failed to connect to all addresses; last error: UNKNOWN: "
                        "ipv4:127.0.0.1:1: Failed to connect to remote host: Connection refused";
  CHECK(tls_connect_hint(refused, with_cert).empty());
  CHECK(tls_connect_hint(refused, plain).empty());
  CHECK(tls_connect_hint("etcdserver: too many requests", plain).empty());
}

}  // namespace
}  // namespace lockstep::real
