#include "lockstep/real_etcd/endpoints.h"

#include <arpa/inet.h>

#include <charconv>

namespace lockstep::real {

std::string EndpointAddress::target() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<EndpointAddress> parse_endpoint(std::string_view text) {
  const std::string original(text);
  auto bad = [&](const std::string& why) {
    return Error(ErrorCode::invalid_argument,
                 "endpoint '" + original + "': " + why + " (expected host:port, "
                 "http://host:port or https://host:port)");
  };
  EndpointAddress out;
  if (text.starts_with("https://")) {
    out.tls = true;
    text.remove_prefix(8);
  } else if (text.starts_with("http://")) {
    text.remove_prefix(7);
  }
  if (!text.empty() && text.back() == '/') text.remove_suffix(1);
  std::string_view port_text;
  if (text.starts_with("[")) {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return bad("unterminated IPv6 address or missing port");
    }
    out.host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad("missing port");
    out.host = std::string(text.substr(0, colon));
    if (out.host.find(':') != std::string::npos) return bad("IPv6 addresses need [brackets]");
    port_text = text.substr(colon + 1);
  }
  if (out.host.empty()) return bad("missing host");
  int port = 0;
  auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || ptr != port_text.data() + port_text.size() || port <= 0 ||
      port > 65535) {
    return bad("port must be a number in 1..65535");
  }
  out.port = port;
  return out;
}

bool is_loopback_host(std::string_view host) {
  if (host == "localhost") return true;
  const std::string h(host);
  in_addr v4{};
  if (inet_pton(AF_INET, h.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, h.c_str(), &v6) == 1) {
    return IN6_IS_ADDR_LOOPBACK(&v6);
  }
  return false;
}

Result<void> check_endpoints_allowed(const std::vector<std::string>& endpoints,
                                     bool allow_remote) {
  if (endpoints.empty()) return Error(ErrorCode::invalid_argument, "no etcd endpoint given");
  for (const auto& e : endpoints) {
    auto parsed = parse_endpoint(e);
    if (!parsed) return parsed.error();
    if (!allow_remote && !is_loopback_host(parsed->host)) {
      return Error(ErrorCode::invalid_argument,
                   "endpoint '" + e + "' is not on this machine; lockstep writes keys and "
                   "injects faults, so remote clusters need --allow-remote");
    }
  }
  return Result<void>::success();
}

}  // namespace lockstep::real
