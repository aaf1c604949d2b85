// Determinism across runs and build types: the histories of 200 seeds of
//   lockstep run --algorithm etcd-mutex --seed S --clients 5 --faults all
// (20 simulated seconds each) must match a golden file produced by any build type.
// On a mismatch the test names the first event that differs. To regenerate after an
// intended change of behaviour: LOCKSTEP_UPDATE_GOLDEN=1 ./harness_tests "[determinism]"
// (it rewrites the file from all 200 seeds and then fails, so that a re-pin is never green).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lockstep/harness/run_request.h"
#include "lockstep/harness/scenario.h"
#include "lockstep/harness/sim_runner.h"

namespace lockstep {
namespace {

const char* kGolden = LOCKSTEP_SOURCE_DIR "/harness/testdata/determinism.golden";
const char* kScenarioGolden = LOCKSTEP_SOURCE_DIR "/harness/testdata/scenario_hashes.golden";
constexpr int kSeeds = 200;
// Release checks every seed (about 15 CPU-seconds). The debug and sanitizer builds run 10 to
// 15 times slower and check every 4th seed, spread over the range: 50 seeds still compare
// each build type's histories, fault mix by fault mix, with the same golden lines.
constexpr int kSeedStride = LOCKSTEP_GOLDEN_SEED_STRIDE;

// Re-pinning writes the file and fails, so that a re-pin is never green.
void rewrite_golden_and_fail(const char* path, const std::vector<std::string>& lines) {
  std::ofstream out(path);
  for (const auto& l : lines) out << l << '\n';
  REQUIRE(out.good());
  FAIL("rewrote " << path << "; run again without LOCKSTEP_UPDATE_GOLDEN to check it");
}

std::vector<std::string> read_golden(const char* path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

RunResult run_seed(std::uint64_t seed) {
  RunRequest req;
  req.algorithm = "etcd-mutex";
  req.seed = seed;
  req.clients = 5;
  req.duration = seconds(20);
  req.faults = "all";
  RunConfig config;
  REQUIRE(expand_run_request(req, config).empty());
  return run_simulation(config);
}

// One line per seed: seed, history hash, event count, then 4 hex digits per event, enough to
// name the first event that differs. An event's digits are the low 16 bits of history_hash of
// a history holding only that event under a default header. Each event line is written once
// and fed to both digests (the history's, and the event's from the default header's).
std::string fingerprint(std::uint64_t seed, const History& h) {
  const auto extend = [](std::uint64_t hash, const std::string& line) {
    return fnv1a_64(fnv1a_64(hash, line), "\n");
  };
  const std::uint64_t default_header_hash =
      extend(kFnv1a64Start, history_header_line(HistoryHeader{}));
  std::uint64_t history_digest = extend(kFnv1a64Start, history_header_line(h.header));
  std::string event_digits;
  for (const auto& e : h.events) {
    const std::string line = history_event_line(e);
    history_digest = extend(history_digest, line);
    char buf[5];
    std::snprintf(buf, sizeof buf, "%04x",
                  static_cast<unsigned>(extend(default_header_hash, line) & 0xffff));
    event_digits += buf;
  }
  std::ostringstream s;
  s << seed << ' ' << hash_hex(history_digest) << ' ' << h.events.size() << ' ' << event_digits;
  return s.str();
}

TEST_CASE("seeds with every fault give the golden histories on every build type (200 in "
          "release, 50 in debug and sanitize)",
          "[determinism]") {
  if (std::getenv("LOCKSTEP_UPDATE_GOLDEN")) {
    std::vector<std::string> lines;
    for (int seed = 1; seed <= kSeeds; ++seed) {
      const auto s = static_cast<std::uint64_t>(seed);
      lines.push_back(fingerprint(s, run_seed(s).history));
    }
    rewrite_golden_and_fail(kGolden, lines);
  }
  const std::vector<std::string> golden = read_golden(kGolden);
  REQUIRE(golden.size() == kSeeds);
  int checked = 0;
  for (int seed = 1; seed <= kSeeds; seed += kSeedStride) {
    const RunResult r = run_seed(static_cast<std::uint64_t>(seed));
    const std::string actual = fingerprint(static_cast<std::uint64_t>(seed), r.history);
    const std::string& expected = golden[static_cast<std::size_t>(seed - 1)];
    ++checked;
    if (expected == actual) continue;
    // Name the first differing event.
    std::istringstream a(expected), b(actual);
    std::string seed_a, hash_a, count_a, events_a, seed_b, hash_b, count_b, events_b;
    a >> seed_a >> hash_a >> count_a >> events_a;
    b >> seed_b >> hash_b >> count_b >> events_b;
    std::size_t k = 0;
    while (k * 4 < events_a.size() && k * 4 < events_b.size() &&
           events_a.compare(k * 4, 4, events_b, k * 4, 4) == 0)
      ++k;
    const auto& h = r.history;
    const std::string event = k < h.events.size() ? history_event_line(h.events[k]) : "(end of history)";
    FAIL("seed " << seed << ": history differs from the golden one at event " << k
                 << " (golden has " << count_a << " events, this build " << count_b
                 << "); this build's event: " << event);
  }
  CHECK(checked == (kSeeds + kSeedStride - 1) / kSeedStride);
}

// The scenario files (scenarios/, regressions included) pin no history hash of their own, so
// that they survive intended changes of the simulator (scenario.h). Their hashes are pinned
// here instead, one line each: every algorithm of the catalogue, not only etcd-mutex above,
// must give the same histories on every build type. Re-pinned with the seeds above.
TEST_CASE("every scenario file gives its golden history hash on every build type",
          "[determinism]") {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(LOCKSTEP_SOURCE_DIR) / "scenarios";
  std::vector<std::string> files;  // relative to root, sorted
  for (const auto& entry : fs::recursive_directory_iterator(root))
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      files.push_back(fs::relative(entry.path(), root).generic_string());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 20);
  std::vector<std::string> lines;
  for (const auto& file : files) {
    Scenario s;
    REQUIRE(load_scenario_file(root / file, s) == "");
    lines.push_back(file + " " + hash_hex(history_hash(run_simulation(s.config).history)));
  }
  if (std::getenv("LOCKSTEP_UPDATE_GOLDEN")) rewrite_golden_and_fail(kScenarioGolden, lines);
  const std::vector<std::string> golden = read_golden(kScenarioGolden);
  for (const auto& line : lines) {
    const std::string file = line.substr(0, line.find(' '));
    const auto pinned = std::find_if(golden.begin(), golden.end(), [&](const std::string& g) {
      return g.compare(0, file.size() + 1, file + " ") == 0;
    });
    INFO("to pin a new or changed scenario: LOCKSTEP_UPDATE_GOLDEN=1 ./harness_tests \"[determinism]\"");
    if (pinned == golden.end()) FAIL("scenarios/" << file << " has no golden history hash");
    CHECK(*pinned == line);
  }
  CHECK(golden.size() == lines.size());  // no pin of a file that is gone
}

}  // namespace
}  // namespace lockstep
