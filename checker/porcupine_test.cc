// Every history of Porcupine's test data gets the verdict listed in expected.tsv; the EDN (kv)
// importer's two routes (a History, the kv model's partitions) agree, on good input and bad.
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "lockstep/checker/history_file_check.h"
#include "lockstep/checker/linearizability_check.h"
#include "lockstep/checker/porcupine_import.h"

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

// ---- The EDN (kv) importer ----

namespace lockstep {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The partitions the History route makes: import_porcupine_kv, then history_partitions.
PartitionsResult partitions_via_history(const std::string& text) {
  ImportResult imp = import_porcupine_kv(std::string_view(text));
  PartitionsResult r;
  if (imp.error) {
    r.error = imp.error;
    return r;
  }
  return history_partitions(*imp.history, ModelKind::kv, imp.event_lines);
}

// The same partitions, operation for operation: names, intervals, labels, inputs and outputs
// (describe_op prints the label, the input and the output).
void check_same_partitions(const PartitionsResult& a, const PartitionsResult& b) {
  REQUIRE(a.error.has_value() == b.error.has_value());
  if (a.error) {
    CHECK(a.error->line == b.error->line);
    CHECK(a.error->message == b.error->message);
    return;
  }
  CHECK(a.ignored_events == b.ignored_events);
  CHECK(a.unchecked_ops == b.unchecked_ops);
  REQUIRE(a.partitions.size() == b.partitions.size());
  for (std::size_t p = 0; p < a.partitions.size(); ++p) {
    const PartitionModel& x = *a.partitions[p].model;
    const PartitionModel& y = *b.partitions[p].model;
    CHECK(a.partitions[p].name == b.partitions[p].name);
    REQUIRE(x.size() == y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      INFO("partition " << a.partitions[p].name << ", op " << i);
      CHECK(x.describe_op(i) == y.describe_op(i));
      CHECK(x.interval(i).call == y.interval(i).call);
      CHECK(x.interval(i).ret == y.interval(i).ret);
    }
  }
}

}  // namespace

TEST_CASE("kv importer: the partitions read straight from the text are the History route's") {
  for (const char* name : {"c01-ok", "c01-bad", "c10-ok", "c10-bad", "c50-ok", "c50-bad"}) {
    INFO(name);
    const std::string text = read_text(kDataDir + "/kv/" + name + ".txt");
    PartitionsResult direct = import_porcupine_kv_partitions(text);
    REQUIRE_FALSE(direct.error);
    check_same_partitions(direct, partitions_via_history(text));
    // And the stream overload reads the same History.
    std::istringstream in(text);
    ImportResult streamed = import_porcupine_kv(in);
    ImportResult viewed = import_porcupine_kv(std::string_view(text));
    REQUIRE(streamed.history);
    REQUIRE(viewed.history);
    CHECK(history_hash(*streamed.history) == history_hash(*viewed.history));
    CHECK(streamed.event_lines == viewed.event_lines);
  }
  // Lines the quick reader leaves to the general one (escapes, integer keys, other keys and
  // their order, blanks and commas), outcomes of every kind: a :fail dropped (and a key whose
  // only operation failed has no partition), an :info and a missing completion left open.
  const std::string text =
      "{:process 0, :type :invoke, :f :put, :key \"a\\\\b\", :value \"x\\\"y\\n\"}\n"
      "\n"
      "  {:type :ok :process 0 :f :put :key \"a\\\\b\" :value \"x\\\"y\\n\" :time 12}  \r\n"
      "{:process 1, :type :invoke, :f :get, :key 7, :value nil}\n"
      "{:process 2, :type :invoke, :f :append, :key \"gone\", :value \"z\"}\n"
      "{:process 1, :type :ok, :f :get, :key 7, :value \"\"}\n"
      "{:process 2, :type :fail, :f :append, :key \"gone\", :value \"z\"}\n"
      "{:process 3, :type :invoke, :f :append, :key \"a\\\\b\", :value \"q\"}\n"
      "{:process 3, :type :info, :f :append, :key \"a\\\\b\", :value \"q\"}\n"
      "{:process -4, :type :invoke, :f :get, :key \"7\", :value nil, :extra [1 [2 \"]\"] nil]}\n"
      "{:process 5, :type :invoke, :f :get, :key \"k\"}\n"
      "{:process 5, :type :ok, :f :get, :key \"k\", :value nil}\n"
      "{:process 6, :type :invoke, :f :put, :key \"\\u00e9\", :value \"v\"}\n";
  // (the last line's escape is not EDN's: an error on line 13, the same by both routes)
  check_same_partitions(import_porcupine_kv_partitions(text), partitions_via_history(text));
  const std::string good = text.substr(0, text.rfind("{:process 6"));
  PartitionsResult direct = import_porcupine_kv_partitions(good);
  REQUIRE_FALSE(direct.error);
  check_same_partitions(direct, partitions_via_history(good));
  REQUIRE(direct.partitions.size() == 3);  // "7", "a\b", "k"; not "gone"
  CHECK(direct.partitions[0].name == "7");
  CHECK(direct.partitions[1].name == "a\\b");
  CHECK(direct.partitions[2].name == "k");
  const PartitionModel& seven = *direct.partitions[0].model;
  REQUIRE(seven.size() == 2);
  CHECK(seven.describe_op(0) == "line 4 (process 1): get -> \"\"");
  CHECK(seven.describe_op(1) == "line 10 (process -4): get -> ?");
  const PartitionModel& ab = *direct.partitions[1].model;
  REQUIRE(ab.size() == 2);
  CHECK(ab.describe_op(0) == "line 1 (process 0): put \"x\"y\n\"");
  CHECK(ab.interval(0).ret == 3);
  CHECK(ab.describe_op(1) == "line 8 (process 3): append \"q\" -> ?");
  CHECK_FALSE(ab.interval(1).ret);
}

TEST_CASE("kv importer: malformed input is an error naming the line, the same by both routes") {
  const std::string get0 = "{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}\n";
  const std::string put0 = "{:process 0, :type :invoke, :f :put, :key \"1\", :value \"v\"}\n";
  struct Case {
    std::string text;
    std::int64_t line;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"", 0, "empty file: expected EDN op maps events"},
      {"\n \t\r\n", 0, "empty file: expected EDN op maps events"},
      {"(:process 0)\n", 1, "expected an EDN op map starting with '{'"},
      {get0 + "{:process 0, :type :ok, :f :get, :key \"1\", :value \"x", 2,
       "expected a closing '\"' (truncated string?)"},
      {get0 + "{:process 0, :type :ok, :f :get, :key \"1\", :value \"x\"", 2,
       "expected '}' before the end of the line (truncated?)"},
      {get0 + "{:process 0, :type :ok, :f :get, :key \"1\", :value\n", 2,
       "expected a value after :value"},
      {"{:process 0, :type :invoke, :f :get, :key \"1\", :value nil} x\n", 1,
       "expected nothing after the closing '}'"},
      {"{:process 0, \"type\" :invoke}\n", 1, "expected a keyword key such as :process"},
      {"{:process 0, :type :invoke, :process 1}\n", 1, "duplicate key :process"},
      {"{:process 0, :time 1, :time 2}\n", 1, "duplicate key :time"},
      {"{:process 0, : x}\n", 1, "expected a keyword name after ':'"},
      {"{:process 0, :x {}}\n", 1, "expected a value, got '{'"},
      {"{:process zero}\n", 1,
       "expected nil, true, false, a number, a string, a keyword or a vector, got \"zero\""},
      {"{:process 0, :key \"\\q\"}\n", 1, "expected a known string escape, got \\q"},
      {"{:process 0, :x [[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}\n", 1,
       "expected a value nested less deeply"},
      {"{:process \"0\", :type :invoke, :f :get, :key \"1\", :value nil}\n", 1,
       "expected :process with an integer"},
      {"{:process 0, :type \"invoke\", :f :get, :key \"1\", :value nil}\n", 1,
       "expected :type with :invoke, :ok, :fail or :info"},
      {"{:process 0, :type :invoke, :f :cas, :key \"1\", :value nil}\n", 1,
       "expected :f with :get, :put or :append"},
      {"{:process 0, :type :invoke, :f :get, :key nil, :value nil}\n", 1,
       "expected :key with a string"},
      {"{:process 0, :type :started, :f :get, :key \"1\", :value nil}\n", 1,
       "expected :type with :invoke, :ok, :fail or :info"},
      {"{:process 0, :type :invoke, :f :get, :key \"1\", :value 3}\n", 1,
       "expected :value with a string or nil"},
      {"{:process 0, :type :invoke, :f :put, :key \"1\", :value nil}\n", 1,
       "expected :value with the string to put"},
      {get0 + get0, 2, "process 0 invokes :get while its :get from line 1 is still open"},
      {"{:process 0, :type :ok, :f :get, :key \"1\", :value nil}\n", 1,
       "a completion for process 0 with no open :invoke"},
      {get0 + "{:process 0, :type :ok, :f :put, :key \"1\", :value \"v\"}\n", 2,
       "process 0 completes :put but invoked :get (line 1)"},
      {get0 + "{:process 0, :type :ok, :f :get, :key \"2\", :value nil}\n", 2,
       "expected the :key invoked on line 1"},
      {put0 + "{:process 0, :type :ok, :f :put, :key \"1\", :value \"w\"}\n", 2,
       "expected the :value invoked on line 1"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    ImportResult imp = import_porcupine_kv(std::string_view(c.text));
    REQUIRE(imp.error);
    CHECK(imp.error->line == c.line);
    CHECK(imp.error->message == c.message);
    PartitionsResult direct = import_porcupine_kv_partitions(c.text);
    REQUIRE(direct.error);
    CHECK(direct.error->line == c.line);
    CHECK(direct.error->message == c.message);
  }
}

TEST_CASE("kv files: `lockstep check`'s straight route gives the History route's verdicts") {
  for (const char* name : {"c01-ok", "c01-bad", "c10-ok", "c10-bad", "c50-ok", "c50-bad"}) {
    INFO(name);
    const std::string path = kDataDir + "/kv/" + name + ".txt";
    HistoryFileCheck direct = check_history_file(path, {});
    REQUIRE(direct.result);
    CHECK(direct.model == ModelKind::kv);
    std::ifstream in(path);
    auto loaded = load_history(in, HistoryFormat::porcupine_kv);
    REQUIRE(loaded.loaded);
    CheckRun run = check_history(*loaded.loaded, ModelKind::kv, {});
    REQUIRE(run.result);
    const LinearizabilityResult& a = *direct.result;
    const LinearizabilityResult& b = *run.result;
    CHECK(a.verdict == b.verdict);
    CHECK(a.operations == b.operations);
    CHECK(a.indeterminate == b.indeterminate);
    CHECK(a.partitions == b.partitions);
    CHECK(a.states_explored == b.states_explored);
    REQUIRE(a.witness.has_value() == b.witness.has_value());
    if (a.witness) {
      CHECK(a.witness->partition == b.witness->partition);
      CHECK(a.witness->prefix == b.witness->prefix);
      CHECK(a.witness->state_after_prefix == b.witness->state_after_prefix);
      CHECK(a.witness->blocking == b.witness->blocking);
      CHECK(a.witness->cannot_place.size() == b.witness->cannot_place.size());
    }
  }
}

}  // namespace lockstep
