// Options of the gRPC etcd client (EtcdKvClient).
#pragma once

#include <string>
#include <vector>

#include "kv/time.h"

namespace lockstep::real {

struct EtcdTlsOptions {
  bool enabled = false;
  std::string ca_file;    // PEM; empty: the system's roots
  std::string cert_file;  // PEM client certificate (mutual TLS), optional
  std::string key_file;   // PEM private key for cert_file
};

struct EtcdClientOptions {
  // "host:port", "http://host:port" or "https://host:port" (https implies TLS). Calls go to
  // one member at a time and fail over to the next on transport errors, like etcd's client.
  std::vector<std::string> endpoints;
  // Every unary call, a keep-alive round and watch creation give up after this long with an
  // indeterminate timeout. Short, because a request sent just after a leader died hangs
  // until it (ENVIRONMENT.md).
  Duration call_deadline = seconds(3);
  // Upper bound on gRPC's reconnect backoff, so a restarted member is used again soon.
  Duration max_reconnect_backoff = seconds(1);
  EtcdTlsOptions tls;
  // Non-empty: authenticate with Auth.Authenticate and send the token as "token" metadata.
  std::string username;
  std::string password;
};

}  // namespace lockstep::real
