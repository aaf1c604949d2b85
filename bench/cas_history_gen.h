// Hard CAS-register histories for the linearizability checker's benchmark, written as Jepsen
// etcd logs (the format of testdata/porcupine/jepsen, which `lockstep check` and Porcupine's
// own test parser read), generated from a seed.
//
// How a history is made: a register (initially nil) with values 0..values-1, and `processes`
// client slots that each run one operation at a time (read 40 %, write 30 %, cas 30 %). A
// seeded schedule interleaves four kinds of steps: a slot invokes its next operation; a pending
// operation takes effect on the register (its linearization point, which fixes a read's value
// and whether a cas succeeded); a process that has taken effect returns (:ok, or :fail for a
// cas whose compare failed); a pending write or cas crashes (:info ... :timed-out, after which
// the slot continues as process id + `processes`, as in Jepsen). A crashed operation took
// effect before its crash, takes effect at a later random step (the late writes that make
// histories hard: a read long after the crash may see them), or never. Operations are kept
// pending for long stretches, so many overlap. Every history made so is linearizable: the
// schedule is a linearization.
//
// Near-misses: with `stale_read`, one completed read in the last third of the history is made
// to return the value the register held before the last change whose operation had returned
// before the read was invoked (the classic stale read). Reads whose old value no write or cas
// could bring back in time are chosen when there are any: certainly not linearizable, but only
// after a search of everything before them. Otherwise a concurrent or crashed operation of
// the same value may explain the read, and only a checker can tell whether it does.
//
// Contract: the same spec gives the same bytes on every platform (kv/rng.h); the output is
// always a well-formed log with a newline after every line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lockstep {

struct CasHistorySpec {
  std::uint64_t seed = 1;
  int processes = 5;            // concurrent client slots, >= 1
  int operations = 100;         // operations invoked, >= 1
  double crash_fraction = 0.2;  // of all operations, crashed (:info); at most the writes and cas
  int values = 5;               // register values 0..values-1
  bool stale_read = false;      // make one late read stale (see above)
  double stale_from = 0.67;     // the stale read is the first fit from this fraction of the log
};

struct GeneratedHistory {
  std::string log;    // Jepsen etcd log lines
  int operations = 0;
  int crashed = 0;    // :info operations
  bool stale_read = false;  // a read was made stale (false: linearizable by construction)
  // What a checker must answer, when the generator knows: linearizable without a stale read;
  // not linearizable when no write or cas of the stale value can follow the change that
  // overwrote it and precede the read's return; else either (only a search can tell).
  enum class Expected { linearizable, not_linearizable, either };
  Expected expected = Expected::linearizable;
};

GeneratedHistory generate_cas_history(const CasHistorySpec& spec);

// The benchmark's fixed set: `count` specs from consecutive seeds, 5-10 processes, 100-300
// operations, 10-30 % crashed, 5-10 values, every other one with a stale read from 30-80 % of
// the way on. Named cas_NNN.log.
std::vector<CasHistorySpec> hard_benchmark_specs(int count = 100);
std::string hard_benchmark_name(int index);

}  // namespace lockstep
