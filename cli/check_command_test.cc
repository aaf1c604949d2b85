// `lockstep check`: the history -> model operations adapters, the importers' errors and the
// command's options, verdicts and messages, end to end on files.
#include "lockstep/cli/check_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "lockstep/checker/history_file_check.h"
#include "lockstep/checker/history_ops.h"
#include "lockstep/checker/linearizability_check.h"
#include "lockstep/kv_json/etcd_json.h"
#include "lockstep/checker/porcupine_import.h"

namespace lockstep::cli {

namespace {

// A history from a compact list of events: process, type, op, args, result, true_ns.
struct Ev {
  std::string process, type, op;
  nlohmann::json args = nlohmann::json::object(), result = nlohmann::json::object();
  std::int64_t t = 0;
};

std::string jsonl(const std::vector<Ev>& events, nlohmann::json meta = nlohmann::json::object()) {
  History h;
  h.header.meta = std::move(meta);
  for (const auto& e : events) {
    HistoryEvent x;
    x.index = static_cast<std::int64_t>(h.events.size());
    x.process = e.process;
    x.kind = *parse_event_kind(e.type);
    x.op = e.op;
    x.args = e.args;
    x.result = e.result;
    x.true_ns = e.t;
    h.events.push_back(x);
  }
  std::ostringstream o;
  write_history_jsonl(o, h);
  return o.str();
}

// Writes `text` to a temporary file and runs the command on it.
struct Run {
  int code;
  std::string out, err;
};
Run run_on(const std::string& text, CheckOptions o = {}) {
  // ctest runs each test case as a process of its own, in parallel: the pid keeps their files
  // apart (a shared name would let one case read, or miss, another's file).
  static int n = 0;
  std::string path = (std::filesystem::temp_directory_path() /
                      ("lockstep_check_test_" + std::to_string(::getpid()) + "_" +
                       std::to_string(n++) + ".txt"))
                         .string();
  {
    std::ofstream f(path, std::ios::binary);
    f << text;
  }
  o.files = {path};
  std::ostringstream out, err;
  int code = run_check_command(o, out, err);
  std::remove(path.c_str());
  return {code, out.str(), err.str()};
}

}  // namespace

TEST_CASE("mutex histories: partitioned by lock - indeterminate and failed acquires") {
  auto text = jsonl({
      {"c1", "invoke", "acquire", {{"lock", "a"}}, {}, 0},
      {"c1", "ok", "acquire", {}, {}, 1},
      {"c2", "invoke", "acquire", {{"lock", "b"}}, {}, 2},
      {"c2", "ok", "acquire", {}, {}, 3},
      {"c3", "invoke", "write", {{"value", 1}}, {}, 4},  // not a lock operation: ignored
      {"c3", "ok", "write", {}, {}, 5},
      {"c3", "invoke", "acquire", {{"lock", "a"}}, {}, 6},
      {"c3", "fail", "acquire", {}, {}, 7},  // did not happen
      {"c1", "invoke", "release", {{"lock", "a"}}, {}, 8},
      {"c1", "info", "release", {}, {}, 9},  // maybe released
      {"c2", "invoke", "acquire", {{"lock", "a"}}, {}, 10},  // never completes
  });
  std::istringstream in(text);
  auto parsed = parse_history_jsonl(in);
  REQUIRE(parsed.history);
  std::string why;
  CHECK(detect_model(*parsed.history, why) == ModelKind::mutex);
  auto parts = history_partitions(*parsed.history, ModelKind::mutex);
  REQUIRE_FALSE(parts.error);
  REQUIRE(parts.partitions.size() == 2);
  CHECK(parts.partitions[0].name == "a");
  CHECK(parts.partitions[0].model->size() == 3);  // acquire, release (info), acquire (open)
  CHECK_FALSE(parts.partitions[0].model->interval(1).ret);
  CHECK_FALSE(parts.partitions[0].model->interval(2).ret);
  CHECK(parts.ignored_events == 1);
  auto r = run_on(text);
  CHECK(r.code == 0);
  CHECK(r.out.find("partitions: 2") != std::string::npos);
}

TEST_CASE("mutex histories: a double hold is reported with a witness") {
  auto r = run_on(jsonl({
      {"c1", "invoke", "acquire", {}, {}, 0},
      {"c1", "ok", "acquire", {}, {}, 1},
      {"c2", "invoke", "acquire", {}, {}, 2},
      {"c2", "ok", "acquire", {}, {}, 3},
  }));
  CHECK(r.code == 1);
  CHECK(r.out.find("verdict: not linearizable") != std::string::npos);
  // The witness names operations by their line: the header is line 1, event 2 is line 4.
  CHECK(r.out.find("line 4 (process c2): acquire by 2") != std::string::npos);
  CHECK(r.out.find("state after the prefix: held by 1") != std::string::npos);
}

TEST_CASE("fenced mutex: detected from tokens - strings accepted as integers") {
  auto text = jsonl({
      {"c1", "invoke", "acquire", {}, {}, 0},
      {"c1", "ok", "acquire", {}, {{"token", "12"}}, 1},
      {"c1", "invoke", "release", {{"token", 12}}, {}, 2},
      {"c1", "ok", "release", {}, {}, 3},
      {"c2", "invoke", "acquire", {}, {}, 4},
      {"c2", "ok", "acquire", {}, {{"token", 11}}, 5},
  });
  auto r = run_on(text);
  CHECK(r.code == 1);
  CHECK(r.out.find("model: fenced-mutex") != std::string::npos);
  CheckOptions plain;
  plain.model = "mutex";  // without tokens the same history is fine
  CHECK(run_on(text, plain).code == 0);
}

TEST_CASE("malformed operations name the line and what was expected") {
  auto r = run_on(jsonl({
      {"c0", "invoke", "write", {{"value", 1}}, {}, 0},
      {"c0", "ok", "write", {}, {}, 1},
      {"c1", "invoke", "write", {{"value", "x"}}, {}, 2},
      {"c1", "ok", "write", {}, {}, 3},
  }));
  CHECK(r.code == 2);
  INFO(r.err);
  // The bad write is the file's 4th line (after the header and c0's two), not its event index.
  CHECK(r.err.find(".txt:4: ") != std::string::npos);
  CHECK(r.err.find("args.value: expected an integer") != std::string::npos);
  // A completion repeats its invoke's op: an acquire closed by a release is refused.
  auto crossed = run_on(jsonl({
      {"c1", "invoke", "acquire", {}, {}, 0},
      {"c1", "ok", "release", {}, {}, 1},
  }));
  CHECK(crossed.code == 2);
  CHECK(crossed.err.find(".txt:3: a completion (ok) of \"release\" for process \"c1\" whose open "
                         "invoke (line 2) is \"acquire\"") != std::string::npos);
  auto bad_json = run_on("{\"format\": \"lockstep-history\", \"version\": 1}\n{\"index\": 0,");
  CHECK(bad_json.code == 2);
  CHECK(bad_json.err.find(":2:") != std::string::npos);
  CHECK(run_on("").code == 2);
  CHECK(run_on("\n\n").err.find("empty") != std::string::npos);
  CHECK(run_on("hello\n").err.find("format") != std::string::npos);
  CheckOptions o;
  o.model = "nope";
  CHECK(run_on(jsonl({}), o).code == 2);
  auto ambiguous = run_on(jsonl({{"c", "invoke", "read", {}, {}, 0}, {"c", "invoke", "get", {}, {}, 1}}));
  CHECK(ambiguous.code == 2);
}

TEST_CASE("importers: truncated and malformed lines are errors naming the line") {
  std::istringstream cut("INFO  jepsen.util - 0\t:invoke\t:write\t1\nINFO  jepsen.util - 0\t:ok\t:wr");
  auto a = import_jepsen_etcd_log(cut);
  REQUIRE(a.error);
  CHECK(a.error->line == 2);
  std::istringstream mismatch("INFO  jepsen.util - 0\t:invoke\t:write\t12\nINFO  jepsen.util - 0\t:ok\t:write\t1\n");
  auto b = import_jepsen_etcd_log(mismatch);
  REQUIRE(b.error);
  CHECK(b.error->message.find("line 1") != std::string::npos);
  std::istringstream edn("{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}\n{:process 0, :type :ok, :f :get, :key \"1\", :value \"x");
  auto c = import_porcupine_kv(edn);
  REQUIRE(c.error);
  CHECK(c.error->line == 2);
  CHECK(c.error->message.find("truncated") != std::string::npos);
  // Cut at a line boundary that still parses: the missing newline gives it away.
  auto d = run_on("INFO  jepsen.util - 0\t:invoke\t:write\t1");
  CHECK(d.code == 2);
  CHECK(d.err.find("truncated") != std::string::npos);
  std::istringstream empty("");
  CHECK(import_porcupine_kv(empty).error);
}

TEST_CASE("etcd histories: a model-generated history passes - a forged answer does not") {
  using model::EtcdKv;
  EtcdKv::State s;
  std::vector<EtcdKv::Input> reqs;
  PutRequest p;
  p.key = "lock/\x01";  // a byte that the history escapes
  p.value = "me";
  p.lease = 5;
  reqs.push_back(p);
  TxnRequest t;
  Compare c;
  c.key = p.key;
  c.target = CompareTarget::create;
  c.result = CompareResult::equal;
  c.create_revision = 0;
  t.compare.push_back(c);
  t.success.push_back(RequestOp{p});
  RangeRequest all;
  all.key = "lock/";
  all.range_end = "lock0";
  t.failure.push_back(RequestOp{all});
  reqs.push_back(t);
  reqs.push_back(all);
  reqs.push_back(LeaseRevokeRequest{5});
  reqs.push_back(all);
  std::vector<Ev> events;
  std::int64_t now = 0;
  for (const auto& q : reqs) {
    auto resp = EtcdKv::apply(s, q);
    events.push_back({"c1", "invoke", etcd_op_name(q), etcd_request_to_json(q), {}, now++});
    events.push_back({"c1", "ok", etcd_op_name(q), {}, etcd_response_to_json(resp), now++});
  }
  // A round trip through JSON gives back the same request and response.
  EtcdKv::Input back;
  std::string error;
  REQUIRE(etcd_request_from_json("txn", events[2].args, back, error));
  CHECK(std::get<TxnRequest>(back).compare[0].key == p.key);

  auto good = run_on(jsonl(events));
  CHECK(good.code == 0);
  CHECK(good.out.find("model: etcd") != std::string::npos);
  auto forged = events;
  forged[5].result["kvs"] = nlohmann::json::array();  // the range after the failed txn saw nothing
  forged[5].result["count"] = 0;
  auto bad = run_on(jsonl(forged));
  CHECK(bad.code == 1);
  auto bad_rev = events;
  bad_rev[1].result["revision"] = 9;
  CHECK(run_on(jsonl(bad_rev)).code == 1);
  auto malformed = events;
  malformed[2].args["compare"][0]["target"] = "colour";
  auto m = run_on(jsonl(malformed));
  CHECK(m.code == 2);
  CHECK(m.err.find("args.compare[0].target: expected one of") != std::string::npos);
}

// A txn holding a txn ... `levels` deep, around one put.
nlohmann::json nested_txn(int levels) {
  nlohmann::json request = {{"key", "k"}, {"value", "v"}};
  std::string op = "put";
  for (int i = 0; i < levels; ++i) {
    request = {{"success", nlohmann::json::array({{{op, request}}})}};
    op = "txn";
  }
  return request;
}

TEST_CASE("etcd histories: nesting, negative revisions and counts are bad input") {
  SECTION("txns nested past the reader's limit: an error, not a stack overflow") {
    model::EtcdKv::Input in;
    std::string error;
    CHECK(etcd_request_from_json("txn", nested_txn(64), in, error));
    CHECK_FALSE(etcd_request_from_json("txn", nested_txn(65), in, error));
    CHECK(error.find(": expected a request inside at most 64 nested txns") != std::string::npos);
    CHECK(error.rfind("args.success[0].txn.success[0].txn", 0) == 0);
    // 10,000 deep, as a file: its line is too deep for the history reader already.
    std::string line = "{\"format\":\"lockstep-history\",\"version\":1}\n"
                       "{\"index\":0,\"process\":\"c\",\"type\":\"invoke\",\"op\":\"txn\",\"true_ns\":0,\"args\":";
    std::string deep;
    for (int i = 0; i < 10000; ++i) deep += i + 1 < 10000 ? R"({"success":[{"txn":)" : R"({"success":[{"put":)";
    deep += R"({"key":"k"})";
    for (int i = 0; i < 10000; ++i) deep += "}]}";
    auto r = run_on(line + deep + "}\n");
    CHECK(r.code == 2);
    CHECK(r.err.find(".txt:2: expected a value nested less deeply") != std::string::npos);
  }
  SECTION("a range at a negative revision, a negative limit, a response's negative revision") {
    auto history = [](nlohmann::json args, nlohmann::json result) {
      return jsonl({{"c", "invoke", "range", std::move(args), {}, 0}, {"c", "ok", "range", {}, std::move(result), 1}});
    };
    auto rev = run_on(history({{"key", "k"}, {"revision", -5}}, {{"revision", 1}}));
    CHECK(rev.code == 2);
    CHECK(rev.err.find(".txt:2: args.revision: expected an integer >= 0") != std::string::npos);
    auto limit = run_on(history({{"key", "k"}, {"limit", -1}}, {{"revision", 1}}));
    CHECK(limit.code == 2);
    CHECK(limit.err.find("args.limit: expected an integer >= 0") != std::string::npos);
    auto answer = run_on(history({{"key", "k"}}, {{"revision", -1}}));
    CHECK(answer.code == 2);
    CHECK(answer.err.find(".txt:3: result.revision: expected an integer >= 0") != std::string::npos);
    auto big = run_on(history({{"key", "k"}, {"revision", 18446744073709551615ULL}}, {{"revision", 1}}));
    CHECK(big.code == 2);
    CHECK(big.err.find("args.revision: expected an integer at most") != std::string::npos);
  }
}

TEST_CASE("a model the history has no operation of: bad input, not a vacuous verdict") {
  const auto lock = jsonl({{"c", "invoke", "acquire", {}, {}, 0}, {"c", "ok", "acquire", {}, {}, 1}});
  CheckOptions kv;
  kv.model = "kv";
  auto r = run_on(lock, kv);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find(": the history has no operation the kv model reads (get, put, append)") !=
        std::string::npos);
  // From the header's meta.model, the same.
  auto meta = run_on(jsonl({{"c", "invoke", "acquire", {}, {}, 0}}, {{"model", "etcd"}}));
  CHECK(meta.code == 2);
  CHECK(meta.err.find("no operation the etcd model reads") != std::string::npos);
  // Operations of the model that all failed are operations of the model: nothing happened.
  CheckOptions mutex;
  mutex.model = "mutex";
  auto failed = run_on(jsonl({{"c", "invoke", "acquire", {}, {}, 0}, {"c", "fail", "acquire", {}, {}, 1}}), mutex);
  CHECK(failed.code == 0);
}

TEST_CASE("kv and cas-register histories from JSON Lines") {
  auto kv = run_on(jsonl({
      {"a", "invoke", "append", {{"key", "k"}, {"value", "x"}}, {}, 0},
      {"b", "invoke", "get", {{"key", "k"}}, {}, 0},
      {"a", "ok", "append", {}, {}, 5},
      {"b", "ok", "get", {}, {{"value", "x"}}, 5},
      {"b", "invoke", "get", {{"key", "j"}}, {}, 6},
      {"b", "ok", "get", {}, {{"value", ""}}, 7},
  }));
  CHECK(kv.code == 0);
  CHECK(kv.out.find("partitions: 2") != std::string::npos);
  // Closed intervals with equal true_ns: the read invoked at 5 overlaps the write returning at 5.
  auto reg = run_on(jsonl({
      {"a", "invoke", "write", {{"value", 1}}, {}, 0},
      {"a", "ok", "write", {}, {}, 5},
      {"b", "invoke", "read", {}, {}, 5},
      {"b", "ok", "read", {}, {{"value", nullptr}}, 6},
  }));
  CHECK(reg.code == 0);
  CheckOptions budget;
  budget.time_budget_seconds = 0;  // no limit
  CHECK(run_on(jsonl({{"a", "invoke", "read", {}, {}, 0}, {"a", "ok", "read", {}, {{"value", 3}}, 1}}),
               budget)
            .code == 1);
}

TEST_CASE("check options parse with CLI11") {
  CLI::App app;
  CheckOptions o;
  add_check_options(app, o);
  app.parse("--time-budget 2.5 --model kv --format porcupine-kv h.txt", false);
  CHECK(o.files == std::vector<std::string>{"h.txt"});
  CHECK(o.model == "kv");
  CHECK(o.format == "porcupine-kv");
  CHECK(o.time_budget_seconds == 2.5);
  CLI::App strict;
  CheckOptions p;
  add_check_options(strict, p);
  CHECK_THROWS_AS(strict.parse("f --model nope", false), CLI::ValidationError);
}

// The command on Porcupine's own test data.
const std::string kPorcupineDataDir = LOCKSTEP_PORCUPINE_DATA_DIR;

TEST_CASE("etcd_095 is empty: an error - not a verdict") {
  std::ostringstream out, err;
  CheckOptions o;
  o.files = {kPorcupineDataDir + "/jepsen/etcd_095.log"};
  CHECK(run_check_command(o, out, err) == 2);
  CHECK(err.str().find("empty") != std::string::npos);
  CHECK(out.str().empty());
  o.format = "porcupine-etcd";
  CHECK(run_check_command(o, out, err) == 2);
}

TEST_CASE("the command detects the format and defaults the model") {
  std::ostringstream out, err;
  CheckOptions o;
  o.files = {kPorcupineDataDir + "/jepsen/etcd_002.log"};
  CHECK(run_check_command(o, out, err) == 0);
  CHECK(out.str().find("model: cas-register") != std::string::npos);
  o.files = {kPorcupineDataDir + "/jepsen/etcd_000.log"};
  out.str("");
  CHECK(run_check_command(o, out, err) == 1);
  CHECK(out.str().find("witness") != std::string::npos);
  CHECK(out.str().find("cannot be placed next") != std::string::npos);
  o.files = {kPorcupineDataDir + "/kv/c01-bad.txt"};
  out.str("");
  CHECK(run_check_command(o, out, err) == 1);
  CHECK(out.str().find("model: kv") != std::string::npos);
  o.files = {kPorcupineDataDir + "/kv/c01-ok.txt"};
  CHECK(run_check_command(o, out, err) == 0);
  CHECK(err.str().empty());
}

// One file's partitions on several threads: the same verdicts, every partition decided the
// same way when the history is linearizable, a witness from a partition that is not otherwise.
TEST_CASE("a single file's partitions on two threads give the verdicts of one") {
  for (const char* name : {"c10-ok", "c10-bad", "c50-ok", "c50-bad"}) {
    INFO(name);
    HistoryFileOptions one, two;
    two.budget.threads = 2;
    const std::string path = kPorcupineDataDir + "/kv/" + name + ".txt";
    const HistoryFileCheck a = check_history_file(path, one);
    const HistoryFileCheck b = check_history_file(path, two);
    REQUIRE(a.result);
    REQUIRE(b.result);
    CHECK(a.result->verdict == b.result->verdict);
    CHECK(a.result->partitions == b.result->partitions);
    if (a.result->verdict == LinVerdict::linearizable) {
      CHECK(a.result->states_explored == b.result->states_explored);
    } else {
      REQUIRE(b.result->witness);
      bool refuted = false;
      for (const auto& p : b.result->per_partition)
        refuted = refuted || (p.name == b.result->witness->partition && p.verdict == LinVerdict::not_linearizable);
      CHECK(refuted);
    }
  }
}

}  // namespace lockstep::cli
