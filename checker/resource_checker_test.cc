#include "lockstep/checker/resource_checker.h"

#include <catch2/catch.hpp>

namespace lockstep {
namespace {

struct Builder {
  History h;
  std::int64_t t = 0;
  void add(const std::string& p, EventKind k, const std::string& op, nlohmann::json args,
           nlohmann::json result = nlohmann::json::object()) {
    HistoryEvent e;
    e.index = static_cast<std::int64_t>(h.events.size());
    e.process = p;
    e.kind = k;
    e.op = op;
    e.args = std::move(args);
    e.result = std::move(result);
    e.true_ns = ++t;
    h.events.push_back(e);
  }
  // A write applied at the resource, optionally acknowledged to the client.
  void write(const std::string& client, std::int64_t base, std::int64_t order, std::int64_t token,
             bool acknowledged = true) {
    add(client, EventKind::invoke, "write", {{"base", base}, {"value", base + 1}, {"token", token}});
    add("resource", EventKind::truth, "resource-write",
        {{"client", client}, {"base", base}, {"value", base + 1}, {"order", order},
         {"token", token}, {"accepted", true}});
    if (acknowledged) {
      add(client, EventKind::ok, "write", nlohmann::json::object(), {{"order", order}});
    } else {
      add(client, EventKind::info, "write", nlohmann::json::object(), {{"error", "timeout"}});
    }
  }
};

TEST_CASE("sequential increments lose nothing") {
  Builder b;
  b.write("a", 0, 1, 5);
  b.write("b", 1, 2, 7);
  b.write("a", 2, 3, 9);
  auto r = check_resource(b.h, {true, ""});
  REQUIRE(r.status == CheckStatus::ok);
  REQUIRE(r.figures["final_value"] == 3);
}

TEST_CASE("a write computed from a stale read loses the acknowledged update before it") {
  Builder b;
  b.write("a", 0, 1, 5);
  b.write("b", 0, 2, 7);  // b read 0 before a's write landed
  auto r = check_resource(b.h, {false, ""});
  REQUIRE(r.status == CheckStatus::violated);
  REQUIRE(r.witness["lost_acknowledged_by"] == "a");
  REQUIRE(r.witness["overwritten_by"]["client"] == "b");
  REQUIRE(r.figures["lost_acknowledged_updates"] == 1);
}

TEST_CASE("losing an unacknowledged write is counted but not a violation") {
  Builder b;
  b.write("a", 0, 1, 5, /*acknowledged=*/false);
  b.write("b", 0, 2, 7);
  auto r = check_resource(b.h, {false, ""});
  REQUIRE(r.status == CheckStatus::ok);
  REQUIRE(r.figures["lost_unacknowledged_updates"] == 1);
}

TEST_CASE("with fencing an accepted token lower than an earlier one is a violation") {
  Builder b;
  b.write("a", 0, 1, 9);
  b.write("b", 1, 2, 5);
  REQUIRE(check_resource(b.h, {true, ""}).status == CheckStatus::violated);
  REQUIRE(check_resource(b.h, {false, ""}).status == CheckStatus::ok);
}

TEST_CASE("guarded data in etcd is read from the store's own key changes") {
  Builder b;
  b.add("etcd", EventKind::truth, "key-put", {{"key", "/d"}, {"revision", 4}, {"value", "1@0@3"}});
  b.add("a", EventKind::invoke, "write", {{"base", 0}});
  b.add("a", EventKind::ok, "write", nlohmann::json::object(), {{"order", 4}});
  b.add("etcd", EventKind::truth, "key-put", {{"key", "/d"}, {"revision", 6}, {"value", "1@0@5"}});
  auto r = check_resource(b.h, {false, "/d"});
  REQUIRE(r.status == CheckStatus::violated);
  REQUIRE(r.figures["applied_writes"] == 2);
}

}  // namespace
}  // namespace lockstep

namespace lockstep {
namespace {

TEST_CASE("a write applied twice in a row by a duplicated message counts once") {
  Builder b;
  b.write("a", 0, 1, 5);
  b.add("resource", EventKind::truth, "resource-write",
        {{"client", "a"}, {"base", 0}, {"value", 1}, {"order", 2}, {"token", 5}, {"accepted", true}});
  b.write("b", 1, 3, 7);
  auto r = check_resource(b.h, {true, ""});
  REQUIRE(r.status == CheckStatus::ok);
  REQUIRE(r.figures["redelivered_writes"] == 1);
}

}  // namespace
}  // namespace lockstep
