#include "lockstep/real_etcd/endpoints.h"

#include <catch2/catch.hpp>

namespace lockstep::real {
namespace {

TEST_CASE("endpoints parse with and without a scheme") {
  auto plain = parse_endpoint("127.0.0.1:23790");
  REQUIRE(plain.ok());
  REQUIRE(plain->host == "127.0.0.1");
  REQUIRE(plain->port == 23790);
  REQUIRE_FALSE(plain->tls);
  REQUIRE(plain->target() == "127.0.0.1:23790");

  auto secure = parse_endpoint("https://localhost:443/");
  REQUIRE(secure.ok());
  REQUIRE(secure->tls);
  REQUIRE(secure->host == "localhost");

  auto v6 = parse_endpoint("http://[::1]:4001");
  REQUIRE(v6.ok());
  REQUIRE(v6->host == "::1");
  REQUIRE(v6->target() == "[::1]:4001");
}

TEST_CASE("bad endpoints are refused with a message naming them") {
  for (const char* bad : {"127.0.0.1", "host:", ":80", "host:99999", "host:12x", "[::1:80",
                          "::1:80"}) {
    auto r = parse_endpoint(bad);
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.error().code == ErrorCode::invalid_argument);
    REQUIRE(r.error().message.find(bad) != std::string::npos);
  }
}

TEST_CASE("only loopback endpoints are allowed unless allow_remote") {
  REQUIRE(is_loopback_host("localhost"));
  REQUIRE(is_loopback_host("127.0.0.1"));
  REQUIRE(is_loopback_host("127.5.6.7"));
  REQUIRE(is_loopback_host("::1"));
  REQUIRE_FALSE(is_loopback_host("10.0.0.1"));
  REQUIRE_FALSE(is_loopback_host("etcd.example.com"));
  REQUIRE_FALSE(is_loopback_host("128.0.0.1"));

  REQUIRE(check_endpoints_allowed({"127.0.0.1:1", "http://localhost:2"}, false).ok());
  auto refused = check_endpoints_allowed({"127.0.0.1:1", "10.1.2.3:2379"}, false);
  REQUIRE_FALSE(refused.ok());
  REQUIRE(refused.error().message.find("10.1.2.3:2379") != std::string::npos);
  REQUIRE(refused.error().message.find("--allow-remote") != std::string::npos);
  REQUIRE(check_endpoints_allowed({"10.1.2.3:2379"}, true).ok());
  REQUIRE_FALSE(check_endpoints_allowed({}, true).ok());
}

}  // namespace
}  // namespace lockstep::real
