// Faults on a real run: which classes of the fault catalogue (sim/faults.h) the real
// backend can inject, and the injector that applies a FaultSpec to real processes.
//
// Supported, with a local cluster (lockstep started it, so it owns the processes):
//   partition      LinkProxy blocks the links (client->member, member<->member; one-way too)
//   pause          member: SIGSTOP/SIGCONT; client: its thread stops (a GC pause)
//   crash          member: SIGKILL, relaunched at the end with the same data dir;
//                  client: its tasks and lock are destroyed, a fresh workload at the end
//   clock          clients only (through their NodeContext): jumps and drift
//   leader-change  etcd's MoveLeader to another member
//   compaction     a Compact call at the current (or the given) revision
//   lease-drop     the client's keep-alives are dropped (KeepAliveDropper)
// With --endpoints (someone else's cluster): pause, crash, clock and lease-drop on clients.
// External clients (processes, docs/external-clients.md): pause is SIGSTOP of the process
// group, crash SIGKILL and a fresh process; no clock or lease-drop.
// Not supported: delay, loss, duplicate, reorder, slow-revoke (and any fault on `resource`,
// or a clock fault on a member): a whole class is refused up front; a spec that names a
// target the backend cannot touch is recorded with "skipped" and the reason, as the
// simulator records a leader-change it cannot make.
//
// Contract: begin()/end() apply one edge of a spec and record the `fault` event with the same
// args as the simulator's injector ({"phase": "start"|"end", ...fault_to_json}). Overlapping
// faults of one kind on one target nest (only the first start and the last end act).
// Called from one thread (the runner's).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "lockstep/real_run/client.h"
#include "lockstep/real_run/history_log.h"
#include "lockstep/sim/faults.h"

namespace lockstep {

namespace real {
class LocalCluster;
class LinkProxy;
}  // namespace real

// The classes the real backend supports, in catalogue order (with external client processes:
// not clock or lease-drop).
std::vector<std::string> real_fault_classes(bool local_cluster, bool external_clients = false);
// Empty, or a message naming the classes it does not support and listing those it does.
std::string check_real_fault_classes(const std::set<std::string>& classes, bool local_cluster,
                                     bool external_clients = false);

struct RealFaultTargets {
  real::LocalCluster* cluster = nullptr;  // null: an existing cluster (no member faults)
  real::LinkProxy* proxy = nullptr;       // null: no partitions
  std::map<std::string, RealClientControl*> clients;
  std::vector<std::string> endpoints;     // direct, for compaction
  std::string key_prefix;
  Duration call_deadline = seconds(2);
  real::EtcdClientSecurity security;
  // The scenario's clients by role: in the order they first held the lock in the simulated
  // run, then those that never did. Empty: a fault hits the client it names. Otherwise a
  // fault naming the k-th of them hits the real client that was k-th to first hold the lock
  // (see client_role_mapping), because which client wins an acquire race is timing, not the
  // scenario's point.
  std::vector<std::string> client_roles;
  // For each role, when the simulated run's client of that role first held the lock (relative
  // to the clients' start; Duration::max() when it never did). A fault that started after the
  // k-th first hold in the simulated run waits for the k-th real one (see ready()).
  std::vector<Duration> role_held_at;
};

// The real client each scenario client stands for when a fault starts: the k-th of `roles`
// maps to the k-th of `real_first_holders` (those known so far); the scenario clients whose
// real counterpart is not known yet keep their own name if no other took it, else the first
// real client left (by name). A one-to-one map over `all_clients`.
std::map<std::string, std::string> client_role_mapping(const std::vector<std::string>& roles,
                                                       const std::vector<std::string>& real_first_holders,
                                                       const std::vector<std::string>& all_clients);

class RealFaultInjector {
 public:
  RealFaultInjector(RealHistoryLog& log, RealFaultTargets targets);

  // Whether `fault` can start now: each client role it names whose first hold came before the
  // fault in the simulated run has its real counterpart (always true without roles).
  bool ready(const sim::FaultSpec& fault) const;
  // `waited`: how long the start waited for ready() (recorded with the fault).
  void begin(const sim::FaultSpec& fault, Duration waited = Duration(0));
  void end(const sim::FaultSpec& fault);

  const std::map<std::string, int>& started() const { return started_; }
  // Undoes every fault still in force (a run that is interrupted or failed), so the
  // cluster can be stopped cleanly.
  void heal_all();

 private:
  int member_index(const std::string& name) const;  // -1 when not a member
  RealClientControl* client(const std::string& name) const;
  // Applies the process fault edge to each target; returns the reasons targets were skipped.
  std::vector<std::string> apply_process(const sim::FaultSpec& f, bool start);
  // partition, delay and loss: on the link proxies between clients and members and between
  // members; returns the links skipped (no proxy carries them) with why.
  std::vector<std::string> apply_link_fault(const sim::FaultSpec& f, bool start);
  // The fault as applied: its clients mapped by role (client_roles), fixed when it starts so
  // that its end undoes the same targets. The fault itself when there are no roles.
  const sim::FaultSpec& as_applied(const sim::FaultSpec& f, bool start);
  bool first_start(const std::string& key) { return ++active_[key] == 1; }
  bool last_end(const std::string& key) { return --active_[key] == 0; }

  RealHistoryLog& log_;
  RealFaultTargets t_;
  std::map<std::string, int> started_;
  std::map<std::string, int> active_;
  // What heal_all() must undo: pauses and crashes in force, blocked links, dropping clients.
  std::multiset<std::pair<std::string, std::string>> blocked_links_;
  // The proxy's slowdowns in force for each delay or loss fault (by the fault it applies).
  std::map<const sim::FaultSpec*, std::vector<std::uint64_t>> slowdowns_;
  // Each started fault's role-mapped copy (by the scheduled fault), until it ends.
  std::map<const sim::FaultSpec*, sim::FaultSpec> mapped_;
};

}  // namespace lockstep
