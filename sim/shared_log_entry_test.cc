#include <catch2/catch.hpp>
#include <vector>

#include "lockstep/sim/etcd_messages.h"

namespace lockstep::sim {
namespace {

LogEntry put_entry(const std::string& key, std::uint64_t term) {
  LogEntry e;
  e.term = term;
  PutRequest put;
  put.key = key;
  put.value = "v";
  e.op = put;
  e.origin_member = 1;
  e.origin_request = 7;
  return e;
}

TEST_CASE("shared log entry: copies share one entry that outlives the first handle") {
  std::vector<SharedLogEntry> log;
  {
    SharedLogEntry first(put_entry("/k", 3));
    log.push_back(first);  // a copy, as a follower's log takes an append's entries
    log.push_back(first);
    REQUIRE(&*log[0] == &*first);
  }
  // The first handle is gone; the copies still read the same entry.
  REQUIRE(&*log[0] == &*log[1]);
  REQUIRE(log[0]->term == 3);
  REQUIRE(std::get<PutRequest>(log[1]->op).key == "/k");
  log.erase(log.begin());
  REQUIRE(log[0]->origin_request == 7);
}

TEST_CASE("shared log entry: moving hands the entry over and assigning drops the old one") {
  SharedLogEntry a(put_entry("/a", 1));
  const LogEntry* entry_a = &*a;
  SharedLogEntry moved(std::move(a));
  REQUIRE(&*moved == entry_a);
  SharedLogEntry b(put_entry("/b", 2));
  b = moved;  // b's own entry is released (sanitizer builds would see a leak or a double free)
  REQUIRE(&*b == entry_a);
  b = SharedLogEntry(put_entry("/c", 4));
  REQUIRE(b->term == 4);
  REQUIRE(moved->term == 1);
}

}  // namespace
}  // namespace lockstep::sim
