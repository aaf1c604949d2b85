// How a failed gRPC call to etcd becomes a lockstep Error. Private to real_etcd/.
//
// Contract: etcd's own refusals (its "etcdserver: ..." / "mvcc: ..." messages, matched by
// text as etcd's Go client does) become the definite ErrorCodes of kv/result.h. Transport
// failures are indeterminate (the request may have been applied) unless gRPC says it never
// got a connection, which is definite `unavailable` and safe to retry on another member.
#pragma once

#include <grpcpp/support/status.h>

#include <string_view>

#include "kv/result.h"

namespace lockstep::real {

struct CallFailure {
  Error error;
  bool switch_endpoint = false;  // the member looks unusable: later calls go to the next one
  bool never_sent = false;       // certainly not delivered: retrying elsewhere is safe
  bool auth_token_rejected = false;  // re-authenticate, then retry (the server did nothing)
};

CallFailure classify_failure(grpc::StatusCode code, std::string_view message);

}  // namespace lockstep::real
