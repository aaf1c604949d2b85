// write_report on run directories: a real failing simulated run, and every kind of bad input.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <unistd.h>

#include "lockstep/checker/mutex_checker.h"
#include "lockstep/harness/run_files.h"
#include "lockstep/harness/run_request.h"
#include "lockstep/harness/sim_runner.h"
#include "lockstep/checker/lock_truth.h"
#include "lockstep/reports/report_files.h"
#include "lockstep/reports/report_test_support.h"

namespace lockstep::reports {
namespace {

namespace fs = std::filesystem;

using reports_test::contains;

struct TempDir {
  // The pid keeps test processes run at once (ctest -j, two build types) apart.
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() /
             ("lockstep-reports-" + std::to_string(::getpid()) + "-" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path path;
};

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A valid run directory built from the hand-made paused-holder history.
void write_valid_run(const fs::path& dir) {
  const History h = reports_test::paused_holder_history();
  std::ostringstream history;
  write_history_jsonl(history, h);
  write_text(dir / "history.jsonl", history.str());
  write_text(dir / "verdict.json", reports_test::verdict_of({check_mutual_exclusion(h)}, h).dump(2));
  write_text(dir / "scenario.json", R"({"format": "lockstep-scenario", "seed": 7})");
}

TEST_CASE("a simulated run's leases live in the report from their grant to their revocation") {
  RunRequest request;
  request.algorithm = "txn-try-lock";  // a lease per holding: granted, used, revoked
  request.seed = 1;
  request.clients = 2;
  request.duration = seconds(5);
  RunConfig config;
  REQUIRE(expand_run_request(request, config).empty());
  const RunResult result = run_simulation(config);
  std::map<std::int64_t, std::int64_t> granted_ns, revoked_ns;
  for (const auto& e : result.history.events) {
    if (e.kind != EventKind::truth) continue;
    if (e.op == "lease-granted") granted_ns[e.args.at("lease").get<std::int64_t>()] = e.true_ns;
    if (e.op == "lease-revoked") revoked_ns[e.args.at("lease").get<std::int64_t>()] = e.true_ns;
  }
  REQUIRE(granted_ns.size() >= 2);
  REQUIRE_FALSE(revoked_ns.empty());
  const auto truth = extract_lock_truth(result.history);
  int checked = 0;
  for (const auto& [lease, at_ns] : revoked_ns) {
    const auto* l = truth.find_lease(lease);
    REQUIRE(l != nullptr);
    REQUIRE(granted_ns.count(lease));
    CHECK(l->first_seen_ns == granted_ns[lease]);  // from its grant, not its first key
    CHECK(l->last_seen_ns == at_ns);
    ++checked;
  }
  CHECK(checked == static_cast<int>(revoked_ns.size()));
}

TEST_CASE("a failing simulated run's directory becomes a report that explains it") {
  RunRequest request;
  request.algorithm = "naive-get-put";  // breaks with no fault at all
  request.seed = 1;
  request.clients = 3;
  request.duration = seconds(5);
  RunConfig config;
  REQUIRE(expand_run_request(request, config).empty());
  const RunResult result = run_simulation(config);
  REQUIRE_FALSE(result.all_ok());
  TempDir dir("sim-run");
  REQUIRE(write_run_directory(dir.path, config, result, true).empty());

  REQUIRE(write_report(dir.path, dir.path / "report.html") == "");
  const std::string html = read_text(dir.path / "report.html");
  CHECK(contains(html, "VIOLATED"));
  CHECK(contains(html, "id=\"violation-explanation\""));
  CHECK(contains(html, "acquired the lock at"));
  CHECK(contains(html, "naive-get-put"));
  CHECK(contains(html, "<summary>scenario.json</summary>"));  // a simulated run's settings
  CHECK(contains(html, "events_run <b>"));
  CHECK_FALSE(contains(html, "id=\"real-run\""));
  CHECK_FALSE(fs::exists(dir.path / "report.html.tmp"));

  RunFiles files;
  REQUIRE(load_run_files(dir.path, files).empty());
  const std::string summary = report_text_summary(files.history, files.verdict);
  CHECK(contains(summary, "naive-get-put seed 1: VIOLATED"));
  CHECK(contains(summary, "  why (mutex):\n    "));
  CHECK(contains(summary, "  replay: "));

  // The report is a function of the files: rendering twice gives the same bytes.
  REQUIRE(write_report(dir.path, dir.path / "again.html") == "");
  CHECK(read_text(dir.path / "again.html") == html);
}

TEST_CASE("bad run directories get one message naming the file and the line or field") {
  TempDir dir("bad");
  const fs::path d = dir.path;

  CHECK(write_report(d / "nope", d / "r.html") == (d / "nope").string() + ": not a directory");

  std::string err = write_report(d, d / "r.html");
  CHECK(contains(err, (d / "history.jsonl").string() + ": no such file"));

  write_valid_run(d);
  REQUIRE(write_report(d, d / "r.html") == "");

  SECTION("a history line that is not JSON") {
    std::string text = read_text(d / "history.jsonl");
    write_text(d / "history.jsonl", text + "{not json\n");
    err = write_report(d, d / "r.html");
    const auto lines = std::count(text.begin(), text.end(), '\n') + 1;
    CHECK(contains(err, (d / "history.jsonl").string() + ":" + std::to_string(lines) + ": "));
  }
  SECTION("verdict.json that is not JSON names its line") {
    write_text(d / "verdict.json", "{\n  \"format\": \"lockstep-verdict\",\n  oops\n}");
    err = write_report(d, d / "r.html");
    CHECK(contains(err, (d / "verdict.json").string() + ":3: not valid JSON"));
  }
  SECTION("verdict.json of another format") {
    write_text(d / "verdict.json", R"({"format": "something-else", "checks": []})");
    CHECK(write_report(d, d / "r.html") ==
          (d / "verdict.json").string() + ": format: expected one of \"lockstep-verdict\", got \"something-else\"");
  }
  SECTION("a check with a bad status names the field") {
    write_text(d / "verdict.json",
               R"({"format": "lockstep-verdict", "checks": [{"name": "mutex", "status": "ok", "summary": ""},
                   {"name": "resource", "status": "maybe", "summary": ""}]})");
    CHECK(write_report(d, d / "r.html") == (d / "verdict.json").string() +
                                               ": checks[1].status: expected one of \"ok\", \"violated\", \"unknown\", got \"maybe\"");
  }
  SECTION("a check without a summary") {
    write_text(d / "verdict.json", R"({"format": "lockstep-verdict", "checks": [{"name": "mutex", "status": "ok"}]})");
    CHECK(write_report(d, d / "r.html") ==
          (d / "verdict.json").string() + ": checks[0].summary: missing (expected a string)");
  }
  SECTION("a verdict that is not ok, violated or unknown") {
    nlohmann::json v = nlohmann::json::parse(read_text(d / "verdict.json"));
    v["verdict"] = "maybe";
    write_text(d / "verdict.json", v.dump());
    CHECK(write_report(d, d / "r.html") ==
          (d / "verdict.json").string() + ": verdict: expected one of \"ok\", \"violated\", \"unknown\", got \"maybe\"");
  }
  SECTION("a verdict of another run's history") {
    nlohmann::json v = nlohmann::json::parse(read_text(d / "verdict.json"));
    const History h = reports_test::paused_holder_history();
    v["history_hash"] = hash_hex(history_hash(h));  // the right one is accepted
    write_text(d / "verdict.json", v.dump());
    REQUIRE(write_report(d, d / "r.html") == "");
    v["history_hash"] = "0123456789abcdef";
    write_text(d / "verdict.json", v.dump());
    CHECK(write_report(d, d / "r.html") ==
          (d / "verdict.json").string() + ": history_hash: 0123456789abcdef is not the hash of " +
              (d / "history.jsonl").string() + " (" + hash_hex(history_hash(h)) +
              "): the two files come from different runs");
  }
  SECTION("a missing scenario.json") {
    fs::remove(d / "scenario.json");
    CHECK(contains(write_report(d, d / "r.html"), (d / "scenario.json").string() + ": no such file"));
  }
  SECTION("a real etcd run's directory has no scenario.json: its backend stands instead") {
    fs::remove(d / "scenario.json");
    nlohmann::json v = nlohmann::json::parse(read_text(d / "verdict.json"));
    v["backend"] = {{"name", "etcd"}, {"cluster", "local"}, {"key_prefix", "lockstep-run/42-s7/"}};
    v["stats"] = {{"events_run", 0}, {"messages_dropped", 0}, {"messages_sent", 0}, {"simulated_seconds", 2.5}};
    write_text(d / "verdict.json", v.dump());
    REQUIRE(write_report(d, d / "r.html") == "");
    const std::string html = read_text(d / "r.html");
    CHECK(contains(html, "id=\"real-run\""));
    CHECK(contains(html, "lockstep-run/42-s7/"));
    CHECK_FALSE(contains(html, "<summary>scenario.json</summary>"));
    CHECK(contains(html, "real_seconds <b>2.5</b>"));
    CHECK_FALSE(contains(html, "events_run <b>"));  // the simulator's counts say nothing of it
  }
  SECTION("a backend that is not an object names the field") {
    nlohmann::json v = nlohmann::json::parse(read_text(d / "verdict.json"));
    v["backend"] = "etcd";
    write_text(d / "verdict.json", v.dump());
    CHECK(write_report(d, d / "r.html") == (d / "verdict.json").string() + ": backend: expected a JSON object");
  }
  SECTION("a scenario.json that is an array") {
    write_text(d / "scenario.json", "[1, 2]");
    CHECK(write_report(d, d / "r.html") == (d / "scenario.json").string() + ":1: expected a JSON object");
  }
  SECTION("a verdict whose algorithm is not a string") {
    nlohmann::json v = nlohmann::json::parse(read_text(d / "verdict.json"));
    v["algorithm"] = 5;
    write_text(d / "verdict.json", v.dump());
    CHECK(write_report(d, d / "r.html") == (d / "verdict.json").string() + ": algorithm: expected a string");
  }
  SECTION("a witness whose holding ended_by is not a string") {
    nlohmann::json v = nlohmann::json::parse(read_text(d / "verdict.json"));
    REQUIRE(v["checks"][0]["witness"].contains("earlier"));
    v["checks"][0]["witness"]["earlier"]["ended_by"] = 5;
    write_text(d / "verdict.json", v.dump());
    CHECK(write_report(d, d / "r.html") ==
          (d / "verdict.json").string() + ": checks[0].witness.earlier.ended_by: expected a string");
  }
  SECTION("a verdict nested 100,000 deep") {
    write_text(d / "verdict.json", R"({"format": "lockstep-verdict", "checks": [], "x": )" +
                                       std::string(100000, '[') + std::string(100000, ']') + "}");
    CHECK(write_report(d, d / "r.html") ==
          (d / "verdict.json").string() + ": expected a value nested less deeply (at most 256 levels of objects and arrays)");
  }
  SECTION("an output file that cannot be written") {
    write_text(d / "blocker", "a file, not a directory");
    CHECK(contains(write_report(d, d / "blocker" / "r.html"), "cannot write"));
  }
}

// Each field here once aborted `lockstep report` (nlohmann's type_error from a typed getter):
// the history's event that holds it, the field and its wrong value, and what is expected.
TEST_CASE("a history field the report reads with the wrong type names its line and field") {
  TempDir dir("types");
  const fs::path d = dir.path;
  write_valid_run(d);
  REQUIRE(write_report(d, d / "r.html") == "");
  const std::string history = read_text(d / "history.jsonl");
  struct Case {
    const char* type;
    const char* op;
    const char* part;
    const char* field;
    nlohmann::json value;
    const char* expected;
  };
  const Case cases[] = {
      {"invoke", "acquire", "args", "mode", 5, "a string"},
      {"invoke", "acquire", "args", "mode", nullptr, "a string"},
      {"trace", "kv-send", "args", "call", "x", "an integer"},
      {"trace", "kv-send", "args", "member", 5, "a string"},
      {"trace", "kv-send", "args", "request", nlohmann::json::object(), "a string"},
      {"trace", "kv-send", "args", "lease", "x", "an integer"},
      {"trace", "kv-end", "args", "outcome", 5, "a string"},
      {"trace", "kv-end", "args", "error", 5, "a string"},
      {"truth", "resource-write", "args", "accepted", "x", "true or false"},
      {"truth", "resource-write", "args", "client", 5, "a string"},
      {"fault", "pause", "args", "phase", 5, "a string"},
      {"truth", "key-delete", "args", "lease_expired", 5, "true or false"},
      {"info", "release", "result", "error", 5, "a string"},
      {"truth", "key-put", "args", "value", 5, "a string"},
  };
  for (const Case& c : cases) {
    INFO(c.type << " " << c.op << " " << c.part << "." << c.field << " = " << c.value.dump());
    // The first event of that type and op gets the wrong value.
    std::istringstream in(history);
    std::string line, out;
    int line_no = 0, changed = 0;
    while (std::getline(in, line)) {
      ++line_no;
      nlohmann::json j = nlohmann::json::parse(line);
      if (changed == 0 && j.value("type", "") == c.type && j.value("op", "") == c.op) {
        j[c.part][c.field] = c.value;
        changed = line_no;
      }
      out += j.dump() + "\n";
    }
    REQUIRE(changed > 0);
    write_text(d / "history.jsonl", out);
    CHECK(write_report(d, d / "r.html") ==
          (d / "history.jsonl").string() + ":" + std::to_string(changed) + ": " + c.part + "." + c.field +
              ": expected " + c.expected + " (" + c.type + " " + c.op + ")");
  }
}

}  // namespace
}  // namespace lockstep::reports
