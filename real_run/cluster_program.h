// Timed programs for the cluster-level differential test (a simulated 3-member etcd vs a real
// one): several clients issue requests at set times while time passes, leases are granted,
// kept alive or left to expire, and faults strike (a leader hand-over, a paused member, a
// client cut from its member). The same program runs on both sides; what a client can
// observe is recorded and compared (compare_runs).
//
// Side-neutral naming:
//   - Members are named by role at the program's start: role 0 is the leader, roles 1 and 2
//     the followers in member order. Each side maps roles to its own member indices.
//   - Client c prefers the member of role c and fails over in the simulated client's order.
//   - Lease k is the lease the program's k-th grant step obtained (lease refs as in
//     kv_program.h); only the client that granted a lease uses it.
//   - Revisions are named by the write that made them (RevisionNames): "put c1/a=c1#3" or
//     "delete c2/b", numbered when the same delete recurs. Two sides that commit concurrent
//     writes in different orders still name each revision the same.
//
// What makes two honest runs differ, and how the comparison allows for it:
//   - Concurrency: each client writes and reads only its own keys (c<i>/...), so the order
//     in which concurrent requests of different clients commit changes no answer but the
//     header revision; a header revision is compared only for requests that overlapped no
//     other client's write and no unclaimed write (see compare_runs).
//   - Time: a lease's expiry moves with the lessor's 500 ms check and, after a leader change,
//     with the randomised election timeout. The generator is re-timed until no request of a
//     lease's owner falls within the expiry tolerance of that lease's simulated expiry, and
//     expiry times are compared within that tolerance.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lockstep/real_run/kv_program.h"
#include "lockstep/kv/rng.h"
#include "lockstep/kv/time.h"

namespace lockstep::difftest {

constexpr int kClusterMembers = 3;
constexpr int kClusterClients = 3;

// The deadline of every client call, on both sides (shorter than the server's own 7 s, as in
// production clients, so a call to a paused member ends in the client's timeout).
constexpr Duration kClusterCallDeadline = seconds(2);

struct ClusterStep {
  enum class Kind { request, move_leader, pause_member, cut_client };
  Kind kind = Kind::request;
  Duration at{0};  // since the program's start
  int client = 0;  // request, cut_client
  Op request;      // request: keys already under the client's own prefix
  int role = 0;    // move_leader: the successor; pause_member: the member
  Duration duration{0};  // pause_member, cut_client
  int grant_index = -1;  // request: a lease grant, the program's grant_index-th
};

struct ClusterProgram {
  std::uint64_t seed = 0;
  std::vector<ClusterStep> steps;  // by `at`
  int grants = 0;
  Duration end{0};  // the last step's time plus the time given to settle
};

// A random program: `concurrent` lets clients' requests overlap in time, else each request
// starts after the previous one's expected end.
ClusterProgram generate_cluster_program(std::uint64_t seed, bool concurrent, bool with_faults);

// Delays every step at or after index `from` by `by` (re-timing around a lease's expiry).
void delay_steps(ClusterProgram& program, std::size_t from, Duration by);

// A write the run saw committed (from the watch of the program's prefix).
struct CommittedWrite {
  Revision revision = 0;
  Duration seen_at{0};                // the earliest arrival on any member's watch
  std::vector<std::string> events;    // "put <key>=<value>" / "delete <key>", key order
};

// What one side observed of one program.
struct ClusterRun {
  struct Request {
    Duration issued{-1};
    Duration completed{-1};
    std::optional<nlohmann::json> outcome;  // normalise(...) with absolute revisions
  };
  std::vector<Request> requests;        // by step index (empty for faults)
  std::vector<LeaseId> granted;         // by grant index (0: the grant failed)
  std::vector<CommittedWrite> writes;   // by revision
  nlohmann::json final_range;           // the program's keys after it settled
  Revision final_revision = 0;          // its header revision: later writes are not compared
  Duration final_at{0};                 // when the final range was sent
  Revision base = 0;                    // the store revision when the program started
  std::vector<std::string> fault_log;   // what each fault did ("move-leader 2->0 ok")
};

struct ClusterDifference {
  std::string kind;  // the step's op, "expiry", "final-range", "writes"
  std::size_t step = 0;
  nlohmann::json sim;
  nlohmann::json real;
};

// A lease expiry may differ by this much between the sides (see the header comment): the
// lessor's 500 ms check interval plus scheduling slack, and one more election timeout range
// (1 s) once a leader was paused or handed over before it.
Duration expiry_tolerance(const ClusterProgram& program, Duration at);

// Writes the simulated run saw that no request claims (lease expiries, or a timed-out write
// that committed anyway), with their step-independent names and times.
struct UnclaimedWrite {
  std::string name;
  Duration seen_at{0};
  Revision revision = 0;
};
std::vector<UnclaimedWrite> unclaimed_writes(const ClusterProgram& program, const ClusterRun& run);

// The first step that races a lease's expiry in the simulated run, and by how much to delay
// it and every later step: a request of the lease-owning client whose [issued, completed]
// window comes within expiry_tolerance of an unclaimed write or a lease's expected expiry, or
// a hand-over or pause that starts that close to one. nullopt when none does.
struct RetimeAt {
  std::size_t step;
  Duration delay;
};
std::optional<RetimeAt> request_near_expiry(const ClusterProgram& program, const ClusterRun& sim);

// The simulated run had a lease revoked just after the leader's pause ended (the deposed
// leader's revoke of etcd 3.4.23, issue 15247). Whether a real member wins that race (its
// lessor's expiry check against stepping down) depends on goroutine scheduling, so such a
// program is counted, not compared (docs/fidelity.md).
bool deposed_leader_revoked(const ClusterProgram& program, const ClusterRun& sim);

// A write sent while its bytes were held (its client cut from its member, or that member
// paused), which timed out on both sides or succeeded on one only. Two races of real etcd
// decide its fate: when it timed out while held, its cancellation reaches the member together
// with it, and whether the member still runs it is gRPC's race (etcd.held_cancel_race_
// probability; 8 of 60 on real etcd); when a leader deposed during its pause reads it, whether
// it proposes it in its old term (lost, the client times out) or first takes in the new
// leader's messages and forwards it (it commits) is a race of etcd's goroutines, of which the
// simulator always takes the second. A program with such a call whose runs differ is counted,
// not compared.
bool held_request_race_possible(const ClusterProgram& program, const ClusterRun& sim, const ClusterRun& real);

std::vector<ClusterDifference> compare_runs(const ClusterProgram& program, const ClusterRun& sim,
                                            const ClusterRun& real);

nlohmann::json describe_step(const ClusterStep& step);

}  // namespace lockstep::difftest
