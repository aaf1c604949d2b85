// How a failed gRPC call to etcd becomes a lockstep Error. Private to real_etcd/.
//
// Contract: etcd's own refusals (its "etcdserver: ..." / "mvcc: ..." messages, matched by
// text as etcd's Go client does) become the definite ErrorCodes of kv/result.h. Transport
// failures are indeterminate (the request may have been applied) unless gRPC says it never
// got a connection, which is definite `unavailable` and safe to retry on another member.
#pragma once

#include <grpcpp/support/status.h>

#include <string>
#include <string_view>

#include "lockstep/kv/result.h"

namespace lockstep::real {

struct CallFailure {
  Error error;
  bool switch_endpoint = false;  // the member looks unusable: later calls go to the next one
  bool never_sent = false;       // certainly not delivered: retrying elsewhere is safe
  bool auth_token_rejected = false;  // re-authenticate, then retry (the server did nothing)
};

CallFailure classify_failure(grpc::StatusCode code, std::string_view message);

// What the connection was set up with, for explaining a failure to connect.
struct ConnectSecurity {
  bool tls = false;          // TLS channel
  bool client_cert = false;  // presenting a client certificate
};

// A hint to append to a failure to connect (gRPC's `message`), saying what about TLS is the
// likely cause: a server certificate the CA does not verify, a member that demands a client
// certificate (it closes the handshake: "Endpoint read failed"), a TLS client talking to a
// plain member, or a plain-text client talking to a TLS member ("Socket closed"). Empty when
// TLS is not the likely cause (e.g. "Connection refused": nothing listens).
std::string tls_connect_hint(std::string_view message, ConnectSecurity security);

}  // namespace lockstep::real
