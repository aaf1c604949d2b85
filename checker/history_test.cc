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

std::string event_line(const std::string& args_json, std::int64_t index = 0) {
  return "{\"index\":" + std::to_string(index) +
         ",\"process\":\"c\",\"type\":\"trace\",\"op\":\"x\",\"args\":" + args_json +
         ",\"true_ns\":1}\n";
}

TEST_CASE("a line nested too deeply is bad input, not a stack overflow") {
  SECTION("args 150,000 arrays deep") {
    auto r = parse(std::string(kHeader) + "\n" +
                   event_line("{\"a\":" + std::string(150000, '[') + std::string(150000, ']') + "}"));
    REQUIRE(r.error);
    REQUIRE(r.error->line == 2);
    REQUIRE(r.error->message.find("nested less deeply") != std::string::npos);
  }
  SECTION("the header's meta") {
    auto r = parse(R"({"format":"lockstep-history","version":1,"meta":{"x":)" +
                   std::string(100000, '[') + std::string(100000, ']') + "}}\n");
    REQUIRE(r.error);
    REQUIRE(r.error->line == 1);
    REQUIRE(r.error->message.find("nested less deeply") != std::string::npos);
  }
  SECTION("the limit itself is allowed") {
    // The event's object is level 1 and args level 2: kMaxHistoryJsonDepth - 2 arrays fit.
    const int arrays = kMaxHistoryJsonDepth - 2;
    auto ok = parse(std::string(kHeader) + "\n" +
                    event_line("{\"a\":" + std::string(arrays, '[') + std::string(arrays, ']') + "}"));
    REQUIRE_FALSE(ok.error);
    auto deeper = parse(std::string(kHeader) + "\n" +
                        event_line("{\"a\":" + std::string(arrays + 1, '[') +
                                   std::string(arrays + 1, ']') + "}"));
    REQUIRE(deeper.error);
  }
}

TEST_CASE("a key given twice in one object is bad input") {
  SECTION("in args") {
    auto r = parse(std::string(kHeader) + "\n" + event_line(R"({"lock":"jobs","lock":"other"})"));
    REQUIRE(r.error);
    REQUIRE(r.error->line == 2);
    REQUIRE(r.error->message == "the key \"lock\" appears twice in one object (which one is meant?)");
  }
  SECTION("an event's own field, deep in an array, or in the header") {
    auto top = parse(std::string(kHeader) + "\n" +
                     R"({"index":0,"process":"c","type":"trace","op":"x","true_ns":1,"true_ns":2})" "\n");
    REQUIRE(top.error);
    REQUIRE(top.error->message.find("\"true_ns\" appears twice") != std::string::npos);
    auto deep = parse(std::string(kHeader) + "\n" + event_line(R"({"a":[{"b":1},{"c":1,"c":2}]})"));
    REQUIRE(deep.error);
    REQUIRE(deep.error->message.find("\"c\" appears twice") != std::string::npos);
    auto header = parse(R"({"format":"lockstep-history","version":1,"version":1})" "\n");
    REQUIRE(header.error);
    REQUIRE(header.error->line == 1);
  }
  SECTION("equal keys in different objects are fine") {
    auto r = parse(std::string(kHeader) + "\n" + event_line(R"({"a":{"k":1},"b":{"k":1},"k":[{"k":2}]})"));
    REQUIRE_FALSE(r.error);
  }
}

TEST_CASE("integers beyond int64 are out of range, not wrapped around") {
  auto r = parse(std::string(kHeader) + "\n" +
                 R"({"index":0,"process":"c","type":"trace","op":"x","true_ns":18446744073709551615})" "\n");
  REQUIRE(r.error);
  REQUIRE(r.error->message ==
          "field \"true_ns\" is out of range: expected an integer at most 9223372036854775807");
  auto local = parse(std::string(kHeader) + "\n" +
                     R"({"index":0,"process":"c","type":"trace","op":"x","true_ns":1,"local_ns":9223372036854775808})" "\n");
  REQUIRE(local.error);
  REQUIRE(local.error->message.find("\"local_ns\" is out of range") != std::string::npos);
}

TEST_CASE("meta.model must be a string") {
  auto r = parse(R"({"format":"lockstep-history","version":1,"meta":{"model":5}})" "\n");
  REQUIRE(r.error);
  REQUIRE(r.error->line == 1);
  REQUIRE(r.error->message.find("meta.model") != std::string::npos);
}

TEST_CASE("bytes that are not printable are escaped") {
  REQUIRE(escape_bytes(std::string("a\0b\xff\\", 5)) == "a\\x00b\\xff\\\\");
}

}  // namespace
}  // namespace lockstep
