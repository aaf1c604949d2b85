// `lockstep check` over many files: a directory with a linearizable history, a violation, a
// malformed history and a file that is no history at all; the lines, the summary, the JSON
// and the exit code, on one thread and on several.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "lockstep/checker/history_batch.h"
#include "lockstep/cli/check_command.h"

namespace lockstep::cli {

namespace {

namespace fs = std::filesystem;

// A fresh directory per test case (ctest runs cases as parallel processes), removed at the end.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() /
             ("lockstep_check_many_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    fs::create_directories((path / name).parent_path());
    std::ofstream(path / name, std::ios::binary) << text;
    return (path / name).string();
  }
};

std::string jepsen(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += "INFO  jepsen.util - " + l + "\n";
  return s;
}

// 0 writes 1, then 1 reads 1: linearizable. Reading 2 instead: not.
const std::string kGood = jepsen({"0\t:invoke\t:write\t1", "0\t:ok\t:write\t1",
                                  "1\t:invoke\t:read\tnil", "1\t:ok\t:read\t1"});
const std::string kBad = jepsen({"0\t:invoke\t:write\t1", "0\t:ok\t:write\t1",
                                 "1\t:invoke\t:read\tnil", "1\t:ok\t:read\t2"});
// The third line is no operation the importer knows.
const std::string kMalformed =
    jepsen({"0\t:invoke\t:write\t1", "0\t:ok\t:write\t1", "1\t:invoke\t:frobnicate\tnil"});

struct Run {
  int code;
  std::string out, err;
};
Run check(const std::vector<std::string>& files, unsigned jobs, bool json) {
  CheckOptions o;
  o.files = files;
  o.jobs = jobs;
  o.json = json;
  std::ostringstream out, err;
  int code = run_check_command(o, out, err);
  return {code, out.str(), err.str()};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

}  // namespace

TEST_CASE("check DIR: one line per file in path order, a summary, the worst exit code") {
  TempDir dir("lines");
  dir.write("a-good.log", kGood);
  const std::string bad = dir.write("b-bad.log", kBad);
  const std::string malformed = dir.write("c-malformed.log", kMalformed);
  dir.write("notes/README.md", "# not a history\n");
  dir.write(".hidden.log", kMalformed);  // hidden: not even listed
  for (unsigned jobs : {1u, 2u, 4u}) {
    INFO("jobs " << jobs);
    Run r = check({dir.path.string()}, jobs, false);
    CHECK(r.code == 1);  // a violation outranks the malformed file
    auto lines = lines_of(r.out);
    REQUIRE(lines.size() == 5);
    CHECK(lines[0].rfind("linearizable ", 0) == 0);
    CHECK(lines[0].find("a-good.log") != std::string::npos);
    CHECK(lines[1].rfind("not linearizable ", 0) == 0);
    CHECK(lines[1].find("b-bad.log") != std::string::npos);
    CHECK(lines[2].rfind("bad input ", 0) == 0);
    CHECK(lines[2].find(malformed + ":3: ") != std::string::npos);
    CHECK(lines[3].rfind("skipped ", 0) == 0);
    CHECK(lines[3].find("README.md: not a history (cannot tell the format") != std::string::npos);
    CHECK(lines[4].rfind("4 files: 1 linearizable, 1 not linearizable, 0 unknown, 1 bad input, "
                         "1 skipped; ", 0) == 0);
    CHECK(lines[4].find(std::to_string(std::min(jobs, 4u)) + " job") != std::string::npos);
    // The malformed file's error goes to stderr as well, naming the file and the line.
    CHECK(r.err == "lockstep check: " + lines[2].substr(lines[2].find(malformed)) + "\n");
  }
  // Without the violation, the malformed file decides: 2.
  fs::remove(bad);
  CHECK(check({dir.path.string()}, 2, false).code == 2);
  // Without it either: 0.
  fs::remove(malformed);
  Run ok = check({dir.path.string()}, 2, false);
  CHECK(ok.code == 0);
  CHECK(ok.err.empty());
}

TEST_CASE("check --json: one document with every file and the summary") {
  TempDir dir("json");
  dir.write("a-good.log", kGood);
  dir.write("b-bad.log", kBad);
  dir.write("c-malformed.log", kMalformed);
  dir.write("d-notes.txt", "plain words\n");
  Run r = check({dir.path.string()}, 2, true);
  CHECK(r.code == 1);
  auto doc = nlohmann::json::parse(r.out);
  const auto& files = doc.at("files");
  REQUIRE(files.size() == 4);
  CHECK(files[0].at("verdict") == "linearizable");
  CHECK(files[0].at("exit_code") == 0);
  CHECK(files[0].at("format") == "porcupine-etcd");
  CHECK(files[0].at("model") == "cas-register");
  CHECK(files[0].at("operations") == 2);
  CHECK(files[0].at("states_explored").get<int>() >= 2);
  CHECK(files[1].at("verdict") == "not_linearizable");
  CHECK(files[1].at("exit_code") == 1);
  CHECK(files[1].at("witness").at("blocking").get<std::string>().find("read -> 2") !=
        std::string::npos);
  CHECK(files[2].at("verdict") == "bad_input");
  CHECK(files[2].at("exit_code") == 2);
  CHECK(files[2].at("error").at("line") == 3);
  CHECK(files[3].at("verdict") == "skipped");
  CHECK(files[3].at("path").get<std::string>().find("d-notes.txt") != std::string::npos);
  const auto& s = doc.at("summary");
  CHECK(s.at("files") == 4);
  CHECK(s.at("linearizable") == 1);
  CHECK(s.at("not_linearizable") == 1);
  CHECK(s.at("bad_input") == 1);
  CHECK(s.at("skipped") == 1);
  CHECK(s.at("unknown") == 0);
  CHECK(s.at("jobs") == 2);
  CHECK(s.at("exit_code") == 1);
  // One file with --json: the same document with one entry.
  Run one = check({(dir.path / "a-good.log").string()}, 1, true);
  CHECK(one.code == 0);
  CHECK(nlohmann::json::parse(one.out).at("files").size() == 1);
}

TEST_CASE("check FILE...: named files are never skipped - a missing one is bad input") {
  TempDir dir("named");
  const std::string good = dir.write("good.log", kGood);
  const std::string notes = dir.write("notes.md", "# notes\n");
  Run r = check({good, notes, (dir.path / "missing.log").string()}, 2, false);
  CHECK(r.code == 2);
  auto lines = lines_of(r.out);
  REQUIRE(lines.size() == 4);
  CHECK(lines[1].rfind("bad input ", 0) == 0);  // named, so not skipped
  CHECK(lines[1].find("notes.md: cannot tell the format") != std::string::npos);
  CHECK(lines[2].find("missing.log: no such file") != std::string::npos);
  // Input order, not path order, for named files; the same file twice is checked twice.
  Run twice = check({good, good}, 2, false);
  CHECK(twice.code == 0);
  CHECK(lines_of(twice.out).size() == 3);
}

TEST_CASE("check DIR: nothing to check is bad input - an empty directory names itself") {
  TempDir empty("empty");
  Run r = check({empty.path.string()}, 2, false);
  CHECK(r.code == 2);
  CHECK(r.err == "lockstep check: " + empty.path.string() +
                     ": is a directory with no files in it\n");
  TempDir only_notes("notes");
  only_notes.write("README.md", "# notes\n");
  only_notes.write("empty.log", "");
  Run n = check({only_notes.path.string()}, 2, false);
  CHECK(n.code == 2);
  CHECK(n.err.find("no history among the 2 files found") != std::string::npos);
}

TEST_CASE("check_history_files reports in input order whatever the threads finish first") {
  TempDir dir("order");
  std::vector<std::string> paths;
  // Sizes that make the scheduler (largest first) start them out of order.
  for (int i = 0; i < 12; ++i) {
    std::vector<std::string> lines;
    for (int k = 0; k < (i * 7) % 12 + 1; ++k) {
      lines.push_back("0\t:invoke\t:write\t" + std::to_string(k));
      lines.push_back("0\t:ok\t:write\t" + std::to_string(k));
    }
    paths.push_back(dir.write("h" + std::to_string(i) + ".log", jepsen(lines)));
  }
  auto inputs = expand_history_paths(paths);
  std::vector<std::size_t> order;
  check_history_files(inputs, {}, 3, [&](std::size_t i, HistoryFileCheck& c) {
    CHECK(c.path == paths[i]);
    CHECK(c.result);
    order.push_back(i);
  });
  std::vector<std::size_t> expected(paths.size());
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = i;
  CHECK(order == expected);
}

}  // namespace lockstep::cli
