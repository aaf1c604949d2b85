// Every history of Porcupine's test data gets the verdict listed in expected.tsv.
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "checker/check_command.h"

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

TEST_CASE("etcd_095 is empty: an error - not a verdict") {
  std::ostringstream out, err;
  CheckOptions o;
  o.file = kDataDir + "/jepsen/etcd_095.log";
  CHECK(run_check_command(o, out, err) == 2);
  CHECK(err.str().find("empty") != std::string::npos);
  CHECK(out.str().empty());
  o.format = "porcupine-etcd";
  CHECK(run_check_command(o, out, err) == 2);
}

TEST_CASE("the command detects the format and defaults the model") {
  std::ostringstream out, err;
  CheckOptions o;
  o.file = kDataDir + "/jepsen/etcd_002.log";
  CHECK(run_check_command(o, out, err) == 0);
  CHECK(out.str().find("model: cas-register") != std::string::npos);
  o.file = kDataDir + "/jepsen/etcd_000.log";
  out.str("");
  CHECK(run_check_command(o, out, err) == 1);
  CHECK(out.str().find("witness") != std::string::npos);
  CHECK(out.str().find("cannot be placed next") != std::string::npos);
  o.file = kDataDir + "/kv/c01-bad.txt";
  out.str("");
  CHECK(run_check_command(o, out, err) == 1);
  CHECK(out.str().find("model: kv") != std::string::npos);
  o.file = kDataDir + "/kv/c01-ok.txt";
  CHECK(run_check_command(o, out, err) == 0);
  CHECK(err.str().empty());
}

}  // namespace lockstep
