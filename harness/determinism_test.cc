// Determinism across runs and build types: the histories of 200 seeds of
//   lockstep run --algorithm etcd-mutex --seed S --clients 5 --faults all
// (20 simulated seconds each) must match a golden file produced by any build type.
// On a mismatch the test names the first event that differs. To regenerate after an
// intended change of behaviour: LOCKSTEP_UPDATE_GOLDEN=1 ./harness_tests "[determinism]".
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "harness/run_request.h"
#include "harness/sim_runner.h"

namespace lockstep {
namespace {

const char* kGolden = LOCKSTEP_SOURCE_DIR "/harness/testdata/determinism.golden";
// Every build type checks all 200 (about 15 CPU-seconds under AddressSanitizer).
constexpr int kSeeds = 200;

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

// One line per seed: seed, history hash, event count, then 4 hex digits per event (the low
// 16 bits of each event line's hash), enough to name the first event that differs.
std::string fingerprint(std::uint64_t seed, const History& h) {
  std::ostringstream s;
  s << seed << ' ' << hash_hex(history_hash(h)) << ' ' << h.events.size() << ' ';
  for (const auto& e : h.events) {
    History one;
    one.events = {e};
    char buf[5];
    std::snprintf(buf, sizeof buf, "%04x", static_cast<unsigned>(history_hash(one) & 0xffff));
    s << buf;
  }
  return s.str();
}

TEST_CASE("200 seeds with every fault give the golden histories on every build type",
          "[determinism]") {
  std::vector<std::string> lines;
  std::vector<History> histories;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    auto r = run_seed(static_cast<std::uint64_t>(seed));
    lines.push_back(fingerprint(static_cast<std::uint64_t>(seed), r.history));
    histories.push_back(std::move(r.history));
  }
  if (std::getenv("LOCKSTEP_UPDATE_GOLDEN")) {
    std::ofstream out(kGolden);
    for (const auto& l : lines) out << l << '\n';
    WARN("rewrote " << kGolden);
    return;
  }
  std::ifstream in(kGolden);
  REQUIRE(in.good());
  std::string expected;
  for (int i = 0; i < kSeeds; ++i) {
    REQUIRE(std::getline(in, expected));
    if (expected == lines[static_cast<std::size_t>(i)]) continue;
    // Name the first differing event.
    std::istringstream a(expected), b(lines[static_cast<std::size_t>(i)]);
    std::string seed_a, hash_a, count_a, events_a, seed_b, hash_b, count_b, events_b;
    a >> seed_a >> hash_a >> count_a >> events_a;
    b >> seed_b >> hash_b >> count_b >> events_b;
    std::size_t k = 0;
    while (k * 4 < events_a.size() && k * 4 < events_b.size() &&
           events_a.compare(k * 4, 4, events_b, k * 4, 4) == 0)
      ++k;
    const auto& h = histories[static_cast<std::size_t>(i)];
    const std::string event = k < h.events.size() ? history_event_line(h.events[k]) : "(end of history)";
    FAIL("seed " << (i + 1) << ": history differs from the golden one at event " << k
                 << " (golden has " << count_a << " events, this build " << count_b
                 << "); this build's event: " << event);
  }
}

}  // namespace
}  // namespace lockstep
