// Endpoint strings as users write them ("127.0.0.1:2379", "http://localhost:2379",
// "https://[::1]:2379") and the safety rule for the CLI: lockstep injects faults and writes
// keys, so it refuses endpoints off this machine unless the user says --allow-remote.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lockstep/kv/result.h"

namespace lockstep::real {

struct EndpointAddress {
  std::string host;  // without brackets for IPv6
  int port = 0;
  bool tls = false;  // "https://" given
  // The gRPC target, "host:port" ("[::1]:port" for IPv6).
  std::string target() const;
};

// Definite invalid_argument with a message naming the endpoint when it does not parse.
Result<EndpointAddress> parse_endpoint(std::string_view text);

// localhost, 127.0.0.0/8 and ::1.
bool is_loopback_host(std::string_view host);

// ok if every endpoint parses and is loopback (or allow_remote); otherwise a definite
// invalid_argument naming the first offending endpoint and the --allow-remote escape hatch.
Result<void> check_endpoints_allowed(const std::vector<std::string>& endpoints,
                                     bool allow_remote);

}  // namespace lockstep::real
