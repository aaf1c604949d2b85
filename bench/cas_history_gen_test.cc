// The hard benchmark's generator: deterministic, well-formed Jepsen logs with the crashes and
// overlaps asked for, linearizable unless a read was made stale, and stale reads that the
// checker (mostly) refutes.
#include "lockstep/bench/cas_history_gen.h"

#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "lockstep/checker/linearizability_check.h"
#include "lockstep/checker/porcupine_import.h"

namespace lockstep {

namespace {

LinVerdict verdict_of(const GeneratedHistory& g) {
  std::istringstream in(g.log);
  LoadResult loaded = load_history(in, HistoryFormat::porcupine_etcd);
  REQUIRE_FALSE(loaded.error);
  CheckRun run = check_history(*loaded.loaded, ModelKind::cas_register, Budget{});
  REQUIRE(run.result);
  return run.result->verdict;
}

int count_of(const std::string& log, const std::string& what) {
  int n = 0;
  for (std::size_t p = log.find(what); p != std::string::npos; p = log.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("generated histories: the same spec gives the same bytes - another seed does not") {
  CasHistorySpec s;
  s.seed = 7;
  s.operations = 150;
  s.processes = 8;
  CHECK(generate_cas_history(s).log == generate_cas_history(s).log);
  CasHistorySpec t = s;
  t.seed = 8;
  CHECK(generate_cas_history(s).log != generate_cas_history(t).log);
  // The fixed set is fixed: its specs follow from the index alone.
  auto a = hard_benchmark_specs(10), b = hard_benchmark_specs(20);
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].seed == b[i].seed);
    CHECK(a[i].operations == b[i].operations);
    CHECK(a[i].processes == b[i].processes);
  }
  CHECK(hard_benchmark_name(7) == "cas_007.log");
}

TEST_CASE("generated histories: well-formed logs with the operations and crashes asked for") {
  for (const auto& spec : hard_benchmark_specs(12)) {
    INFO("seed " << spec.seed);
    auto g = generate_cas_history(spec);
    CHECK(g.operations == spec.operations);
    CHECK(count_of(g.log, ":invoke") == spec.operations);
    CHECK(count_of(g.log, ":info") == g.crashed);
    // Crashes are drawn per write and cas: within a loose band around the fraction asked.
    CHECK(g.crashed >= spec.crash_fraction * spec.operations * 0.4);
    CHECK(g.crashed <= spec.crash_fraction * spec.operations * 1.8 + 3);
    CHECK(g.log.back() == '\n');
    std::istringstream in(g.log);
    auto imported = import_jepsen_etcd_log(in);
    REQUIRE_FALSE(imported.error);
    // Every line is an event: one per invoke and one per completion.
    CHECK(imported.history->events.size() ==
          static_cast<std::size_t>(count_of(g.log, "\n")));
  }
}

TEST_CASE("generated histories: the verdict the generator promises is the checker's") {
  int refuted = 0, either = 0, either_linearizable = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    CasHistorySpec s;
    s.seed = seed;
    s.processes = 3 + static_cast<int>(seed % 4);
    s.operations = 30 + static_cast<int>(seed % 20);
    s.crash_fraction = 0.1 + 0.02 * static_cast<double>(seed % 10);
    s.values = 8;
    INFO("seed " << seed);
    auto plain = generate_cas_history(s);
    CHECK(plain.expected == GeneratedHistory::Expected::linearizable);
    CHECK(verdict_of(plain) == LinVerdict::linearizable);
    s.stale_read = true;
    auto g = generate_cas_history(s);
    CHECK(g.stale_read == (g.expected != GeneratedHistory::Expected::linearizable));
    if (g.expected == GeneratedHistory::Expected::not_linearizable) {
      CHECK(verdict_of(g) == LinVerdict::not_linearizable);
      ++refuted;
    } else if (g.expected == GeneratedHistory::Expected::either) {
      ++either;
      if (verdict_of(g) == LinVerdict::linearizable) ++either_linearizable;
    }
  }
  // Both kinds of near-miss occur: certain violations, and stale reads that another
  // operation may or may not explain (some of which it does).
  INFO(refuted << " refuted, " << either << " either, " << either_linearizable << " of them linearizable");
  CHECK(refuted >= 10);
  CHECK(either >= 5);
  CHECK(either_linearizable >= 1);
  CHECK(either_linearizable < either);
}

}  // namespace lockstep
