// The client protocol's lines, both ways, without a process: what lockstep writes, and every
// way a client's line is read or refused.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "lockstep/real_run/client_protocol.h"

namespace lockstep::real {
namespace {

nlohmann::json json_of(const std::string& line) {
  REQUIRE(!line.empty());
  CHECK(line.back() == '\n');
  return nlohmann::json::parse(line);
}

TEST_CASE("client protocol: lockstep's requests are one JSON object per line") {
  ClientHello hello;
  hello.client = "client-2";
  hello.endpoints = {"127.0.0.1:1", "127.0.0.1:2"};
  hello.key_prefix = "lockstep-run/1/";
  hello.lock_name = "lockstep-run/1//lockstep/lock";
  hello.options = {{"ttl", 5}};
  const auto h = json_of(hello_line(1, hello));
  CHECK(h["id"] == 1);
  CHECK(h["op"] == "hello");
  CHECK(h["protocol"] == kClientProtocolVersion);
  CHECK(h["endpoints"].size() == 2);
  CHECK(h["lock_name"] == "lockstep-run/1//lockstep/lock");
  CHECK(h["options"]["ttl"] == 5);
  CHECK_FALSE(h.contains("tls"));  // a plain cluster: no credentials at all
  CHECK_FALSE(h.contains("user"));
  hello.tls = true;
  hello.ca_file = "/pki/ca.pem";
  hello.user = "root";
  hello.password = "secret";
  const auto secure = json_of(hello_line(1, hello));
  CHECK(secure["tls"] == nlohmann::json{{"ca_file", "/pki/ca.pem"}});  // no client certificate
  CHECK(secure["user"] == nlohmann::json{{"name", "root"}, {"password", "secret"}});
  const auto a = json_of(acquire_line(2, true, milliseconds(1500)));
  CHECK(a == nlohmann::json{{"id", 2}, {"op", "acquire"}, {"mode", "shared"}, {"timeout_ms", 1500}});
  CHECK(json_of(critical_section_line(3, false)) ==
        nlohmann::json{{"id", 3}, {"op", "critical_section"}, {"write", false}});
  CHECK(json_of(release_line(4)) == nlohmann::json{{"id", 4}, {"op", "release"}});
  CHECK(json_of(resource_answer_line(false, true, 7, "")) ==
        nlohmann::json{{"call", "read"}, {"type", "ok"}, {"value", 7}});
  CHECK(json_of(resource_answer_line(true, false, 0, "stale token 1 < 3")) ==
        nlohmann::json{{"call", "write"}, {"type", "fail"}, {"reason", "stale token 1 < 3"}});
}

TEST_CASE("client protocol: answers and resource calls are read with every field") {
  auto ok = parse_client_line(R"({"id":2,"type":"ok","token":12,"key":"p/k","lease":99})");
  REQUIRE(ok.ok());
  const auto& a = std::get<ClientAnswer>(ok.value());
  CHECK(a.id == 2);
  CHECK(a.type == AnswerType::ok);
  CHECK(a.token == 12);
  CHECK(a.key == "p/k");
  CHECK(a.lease == 99);
  auto info = parse_client_line(R"({"id":5,"type":"info","reason":"context deadline exceeded"})");
  REQUIRE(info.ok());
  CHECK(std::get<ClientAnswer>(info.value()).type == AnswerType::info);
  CHECK(std::get<ClientAnswer>(info.value()).reason == "context deadline exceeded");
  auto read = parse_client_line(R"({"call":"read","token":3})");
  REQUIRE(read.ok());
  CHECK(!std::get<ResourceCall>(read.value()).write);
  CHECK(std::get<ResourceCall>(read.value()).token == 3);
  auto write = parse_client_line(R"({"call":"write","value":4})");
  REQUIRE(write.ok());
  CHECK(std::get<ResourceCall>(write.value()).write);
  CHECK(!std::get<ResourceCall>(write.value()).token);
  CHECK(std::get<ResourceCall>(write.value()).value == 4);
}

TEST_CASE("client protocol: a line that is no protocol line is refused with the reason") {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"hello-there", "not a JSON object"},
      {"[1,2]", "not a JSON object"},
      {"{}", "neither an answer"},
      {R"({"id":1,"call":"read"})", "not both"},
      {R"({"id":0,"type":"ok"})", "positive integer"},
      {R"({"id":"1","type":"ok"})", "\"id\" must be an integer"},
      {R"({"id":1})", "needs \"type\""},
      {R"({"id":1,"type":"maybe"})", "unknown \"type\" \"maybe\""},
      {R"({"id":1,"type":"ok","token":"7"})", "\"token\" must be an integer"},
      {R"({"id":1,"type":"fail","reason":3})", "\"reason\" must be a string"},
      {R"({"call":"delete"})", "unknown \"call\" \"delete\""},
      {R"({"call":"write","token":1})", "needs \"value\""},
  };
  for (const auto& [line, why] : bad) {
    INFO(line);
    auto parsed = parse_client_line(line);
    REQUIRE(!parsed.ok());
    CHECK(parsed.error().message.find(why) != std::string::npos);
  }
}

// JSON is UTF-8. A key "k\xff" in an acquire answer aborted the run (an uncaught type_error
// when the verdict, quoting the line, was written); now it is a bad client naming the field.
TEST_CASE("client protocol: a line that is not UTF-8 is refused naming the field") {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"{\"id\":2,\"type\":\"ok\",\"key\":\"k\xff\"}",
       "\"key\": not valid UTF-8 (byte 0xff at byte 29 of the line"},
      {"{\"id\":1,\"type\":\"fail\",\"reason\":\"bad \xff\xfe\"}", "\"reason\": not valid UTF-8 (byte 0xff"},
      {"{\"id\":1,\"k\xc3\":1}", "\"k\\xc3\": not valid UTF-8 (byte 0xc3"},  // in a field name
      {"{\"id\":1,\"type\":\"ok\",\"key\":\"\xed\xa0\x80\"}", "\"key\": not valid UTF-8 (byte 0xed"},  // a surrogate
      {"\xff", "not valid UTF-8 (byte 0xff at byte 1 of the line"},
  };
  for (const auto& [line, why] : bad) {
    INFO(line);
    auto parsed = parse_client_line(line);
    REQUIRE(!parsed.ok());
    CHECK(parsed.error().message.find(why) != std::string::npos);
    CHECK(first_invalid_utf8(parsed.error().message) == std::string::npos);
  }
  // Valid UTF-8 beyond ASCII is a key like any other.
  auto parsed = parse_client_line("{\"id\":2,\"type\":\"ok\",\"key\":\"k\xc3\xa9\xf0\x9f\x94\x92\"}");
  REQUIRE(parsed.ok());
  CHECK(*std::get<ClientAnswer>(parsed.value()).key == "k\xc3\xa9\xf0\x9f\x94\x92");
}

TEST_CASE("client protocol: a line quoted in a message is valid UTF-8 - cut between characters") {
  CHECK(printable_client_line("{\"key\":\"k\xff\"}") == "{\"key\":\"k\\xff\"}");
  CHECK(printable_client_line("a\tb\x01") == "a\\x09b\\x01");
  // 199 ASCII bytes then a 2-byte character: the cut keeps it whole, never half of it.
  const std::string line = std::string(199, 'x') + "\xc3\xa9" + std::string(50, 'y');
  const std::string quoted = printable_client_line(line, 200);
  CHECK(quoted == std::string(199, 'x') + "\xc3\xa9...");
  CHECK(first_invalid_utf8(quoted) == std::string::npos);
  CHECK(first_invalid_utf8(std::string(199, 'x') + "\xc3") == 199);
}

}  // namespace
}  // namespace lockstep::real
