// Every history of Porcupine's test data gets the verdict listed in expected.tsv.
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "lockstep/checker/linearizability_check.h"

namespace lockstep {

namespace {

const std::string kDataDir = LOCKSTEP_PORCUPINE_DATA_DIR;

struct Expected {
  std::string file;
  bool linearizable = false;
  std::size_t ops = 0;
  std::size_t crashed = 0;
};

std::vector<Expected> read_expected() {
  std::ifstream in(kDataDir + "/expected.tsv");
  REQUIRE(in);
  std::vector<Expected> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream f(line);
    Expected e;
    std::string verdict;
    f >> e.file >> verdict >> e.ops >> e.crashed;
    if (verdict.rfind("excluded", 0) == 0) continue;  // etcd_095: empty, see its own test
    REQUIRE((verdict == "true" || verdict == "false"));
    e.linearizable = verdict == "true";
    rows.push_back(e);
  }
  return rows;
}

}  // namespace

TEST_CASE("every Porcupine history gets its expected verdict") {
  auto rows = read_expected();
  REQUIRE(rows.size() == 108);  // 102 etcd + 6 kv
  for (const auto& row : rows) {
    INFO(row.file);
    bool kv = row.file.rfind("kv/", 0) == 0;
    std::ifstream in(kDataDir + "/" + row.file);
    REQUIRE(in);
    auto loaded = load_history(in, kv ? HistoryFormat::porcupine_kv : HistoryFormat::porcupine_etcd);
    REQUIRE_FALSE(loaded.error);
    auto run = check_history(*loaded.loaded, kv ? ModelKind::kv : ModelKind::cas_register, {});
    REQUIRE(run.result);
    const LinearizabilityResult& r = *run.result;
    // expected.tsv counts operations as Porcupine does: every invoke; crashed = :info.
    CHECK(r.operations + run.ignored_events <= row.ops);
    if (!kv) CHECK(r.indeterminate >= row.crashed);
    CHECK(r.verdict == (row.linearizable ? LinVerdict::linearizable : LinVerdict::not_linearizable));
    if (!row.linearizable) {
      REQUIRE(r.witness);
      CHECK_FALSE(r.witness->cannot_place.empty());
    }
    if (kv) CHECK(r.partitions > 1);  // by key
  }
}

}  // namespace lockstep
