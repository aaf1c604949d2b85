// Options of the gRPC etcd client (EtcdKvClient).
#pragma once

#include <string>
#include <vector>

#include "lockstep/kv/time.h"

namespace lockstep::real {

struct EtcdTlsOptions {
  bool enabled = false;
  std::string ca_file;    // PEM; empty: the system's roots
  std::string cert_file;  // PEM client certificate (mutual TLS), optional
  std::string key_file;   // PEM private key for cert_file
};

// TLS and login: what a secured cluster asks of every client.
struct EtcdClientSecurity {
  EtcdTlsOptions tls;
  std::string username;  // empty: no authentication
  std::string password;

  // No TLS setting and no user: a plain, anonymous client.
  bool empty() const {
    return !tls.enabled && tls.ca_file.empty() && tls.cert_file.empty() &&
           tls.key_file.empty() && username.empty();
  }
};

struct EtcdClientOptions {
  // "host:port", "http://host:port" or "https://host:port" (https implies TLS). Calls go to
  // one member at a time and fail over to the next on transport errors, like etcd's client.
  std::vector<std::string> endpoints;
  // Every unary call, a keep-alive round and watch creation give up after this long with an
  // indeterminate timeout. Short, because a request sent just after a leader died hangs
  // until this deadline (the server itself gives up only after 7 s).
  Duration call_deadline = seconds(3);
  // Upper bound on gRPC's reconnect backoff, so a restarted member is used again soon.
  Duration max_reconnect_backoff = seconds(1);
  EtcdTlsOptions tls;
  // Non-empty: authenticate with Auth.Authenticate and send the token as "token" metadata.
  std::string username;
  std::string password;

  void set_security(const EtcdClientSecurity& security) {
    tls = security.tls;
    username = security.username;
    password = security.password;
  }
};

}  // namespace lockstep::real
