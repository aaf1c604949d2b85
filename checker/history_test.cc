#include "lockstep/checker/history.h"

#include <catch2/catch.hpp>
#include <sstream>

namespace lockstep {
namespace {

HistoryParseResult parse(const std::string& text) {
  std::istringstream in(text);
  return parse_history_jsonl(in);
}

const char* kHeader = R"({"format":"lockstep-history","version":1,"meta":{"seed":1}})";

TEST_CASE("a written history parses back identically") {
  History h;
  h.header.meta = {{"seed", 7}};
  HistoryEvent a;
  a.index = 0;
  a.process = "client-0";
  a.kind = EventKind::invoke;
  a.op = "acquire";
  a.args = {{"mode", "exclusive"}};
  a.true_ns = 10;
  a.local_ns = 12;
  HistoryEvent b = a;
  b.index = 1;
  b.kind = EventKind::ok;
  b.args = nlohmann::json::object();
  b.result = {{"token", 5}};
  b.true_ns = 20;
  h.events = {a, b};
  std::ostringstream out;
  write_history_jsonl(out, h);
  auto parsed = parse(out.str());
  REQUIRE(parsed.history);
  REQUIRE(history_hash(*parsed.history) == history_hash(h));
  REQUIRE(parsed.history->events[1].result["token"] == 5);
}

TEST_CASE("malformed histories name the line and what was expected") {
  SECTION("empty") {
    auto r = parse("");
    REQUIRE(r.error);
    REQUIRE(r.error->message.find("empty") != std::string::npos);
  }
  SECTION("truncated line") {
    auto r = parse(std::string(kHeader) + "\n{\"index\":0,\"process\":\"c\"");
    REQUIRE(r.error);
    REQUIRE(r.error->line == 2);
  }
  SECTION("missing field") {
    auto r = parse(std::string(kHeader) + "\n{\"index\":0,\"process\":\"c\",\"type\":\"invoke\",\"op\":\"acquire\"}\n");
    REQUIRE(r.error);
    REQUIRE(r.error->line == 2);
    REQUIRE(r.error->message.find("true_ns") != std::string::npos);
  }
  SECTION("completion without invoke") {
    auto r = parse(std::string(kHeader) +
                   "\n{\"index\":0,\"process\":\"c\",\"type\":\"ok\",\"op\":\"acquire\",\"true_ns\":1}\n");
    REQUIRE(r.error);
    REQUIRE(r.error->message.find("no open invoke") != std::string::npos);
  }
  SECTION("no header") {
    auto r = parse("{\"index\":0}\n");
    REQUIRE(r.error);
    REQUIRE(r.error->line == 1);
  }
}

TEST_CASE("bytes that are not printable are escaped") {
  REQUIRE(escape_bytes(std::string("a\0b\xff\\", 5)) == "a\\x00b\\xff\\\\");
}

}  // namespace
}  // namespace lockstep
