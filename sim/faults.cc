#include "lockstep/sim/faults.h"

#include <algorithm>

#include "lockstep/sim/json_object.h"

namespace lockstep::sim {

const std::vector<FaultClass>& fault_catalogue() {
  static const std::vector<FaultClass> catalogue = {
      {"partition", "cut links between processes, holding their bytes as TCP does (client from "
                    "cluster, member from member; symmetric, one-way, isolate-one, majority/minority)"},
      {"delay", "add latency to the messages of a link"},
      {"loss", "lose a fraction of a link's transmissions: TCP resends them, later and in order"},
      {"duplicate", "deliver a fraction of a link's messages twice, the copy right behind (a retry)"},
      {"reorder", "add random latency to a link's messages and lift their order (calls, not streams)"},
      {"pause", "stop a process (a GC pause or SIGSTOP): its tasks and timers stop, its "
                "messages wait"},
      {"crash", "crash a process and restart it later (a client loses its memory, a member "
                "keeps its data)"},
      {"clock", "skew a process's clock: drift rate, forward or backward jumps, monotonic or "
                "wall clock"},
      {"leader-change", "make the etcd leader hand over to another member"},
      {"compaction", "compact the etcd store at the current or a chosen revision"},
      {"lease-drop", "drop a client's lease keep-alives, so its lease expires"},
      {"slow-revoke", "delay the leader's revocation of expired leases"},
  };
  return catalogue;
}

bool is_fault_class(const std::string& name) {
  for (const auto& c : fault_catalogue())
    if (name == c.name) return true;
  return false;
}

bool is_instant_fault(const std::string& kind) {
  return kind == "leader-change" || kind == "compaction";
}

namespace {
std::int64_t ms(Duration d) { return to_ms(d); }

// Every field of the fault, with its kind when `kind` and a `phase` when not null, added in
// key order (JsonObject): a fault event is recorded at each start and end, and building its
// args member by member in place was a visible share of a standard seed.
nlohmann::json fault_fields(const FaultSpec& f, bool kind, const char* phase) {
  const bool link = !f.from.empty() || !f.to.empty();
  JsonObject j;
  if (f.amount.count() != 0) j.add("amount_ms", ms(f.amount));
  if (f.kind == "clock") j.add("clock", f.clock);
  j.add("duration_ms", ms(f.duration));
  if (link) j.add("from", f.from);
  if (kind) j.add("kind", f.kind);
  if (phase != nullptr) j.add("phase", phase);
  if (f.kind == "loss" || f.kind == "duplicate") j.add("probability", f.probability);
  if (f.kind == "clock") j.add("rate_ppm", f.rate_ppm);
  if (f.kind == "compaction") j.add("revision", f.revision);
  j.add("start_ms", ms(f.start));
  if (link) j.add("symmetric", f.symmetric);
  if (!f.targets.empty()) j.add("targets", f.targets);
  if (link) j.add("to", f.to);
  return std::move(j).take();
}
}  // namespace

nlohmann::json fault_to_json(const FaultSpec& f) { return fault_fields(f, true, nullptr); }

nlohmann::json fault_event_args(const FaultSpec& f, const char* phase) { return fault_fields(f, false, phase); }

FaultInjector::FaultInjector(World& world, Network& network, EtcdCluster& cluster,
                             TrueTime run_start)
    : world_(world),
      network_(network),
      cluster_(cluster),
      run_start_(run_start),
      rng_(world.rng_for("fault-injector")) {}

void FaultInjector::add_process(const std::string& name, ProcessId pid) { processes_[name] = pid; }

std::optional<std::string> FaultInjector::validate(const FaultSpec& f) const {
  if (!is_fault_class(f.kind)) return "unknown fault class \"" + f.kind + "\"";
  for (const auto* list : {&f.from, &f.to, &f.targets})
    for (const auto& name : *list)
      if (!processes_.count(name)) return f.kind + " fault names unknown process \"" + name + "\"";
  const bool network = f.kind == "partition" || f.kind == "delay" || f.kind == "loss" ||
                       f.kind == "duplicate" || f.kind == "reorder";
  const bool process = f.kind == "pause" || f.kind == "crash" || f.kind == "clock" ||
                       f.kind == "lease-drop";
  if (network && f.from.empty() && f.to.empty())
    return f.kind + " fault needs \"from\" or \"to\" processes";
  if (process && f.targets.empty()) return f.kind + " fault needs \"targets\"";
  if (f.kind == "lease-drop")
    for (const auto& t : f.targets)
      if (t.rfind("client-", 0) != 0) return "lease-drop targets clients only, not \"" + t + "\"";
  return std::nullopt;
}

std::set<ProcessId> FaultInjector::pids(const std::vector<std::string>& names) const {
  std::set<ProcessId> out;
  for (const auto& n : names) out.insert(processes_.at(n));
  return out;
}

void FaultInjector::schedule(const std::vector<FaultSpec>& faults) {
  const std::size_t first = faults_.size();
  faults_.insert(faults_.end(), faults.begin(), faults.end());
  for (std::size_t i = first; i < faults_.size(); ++i) {
    world_.schedule_at(run_start_ + faults_[i].start, kWorldProcess, [this, i] { begin(i); });
    world_.schedule_at(run_start_ + faults_[i].start + faults_[i].duration, kWorldProcess,
                       [this, i] { end(i); });
  }
}

void FaultInjector::begin(std::size_t index) {
  const FaultSpec& f = faults_[index];
  ++started_[f.kind];
  nlohmann::json args = fault_event_args(f, "start");
  const TrueTime now = world_.now();
  if (f.kind == "partition" || f.kind == "delay" || f.kind == "loss" || f.kind == "duplicate" ||
      f.kind == "reorder") {
    LinkRule rule;
    rule.from = pids(f.from);
    rule.to = pids(f.to);
    rule.blocked = f.kind == "partition";
    if (f.kind == "loss") rule.loss_probability = f.probability;
    if (f.kind == "duplicate") rule.duplicate_probability = f.probability;
    if (f.kind == "delay") rule.extra_delay = f.amount;
    if (f.kind == "reorder") rule.reorder_window = f.amount;
    rule.active_until_ns = (run_start_ + f.start + f.duration).time_since_epoch().count();
    rules_[index].push_back(network_.add_rule(rule));
    if (f.symmetric) {
      std::swap(rule.from, rule.to);
      rules_[index].push_back(network_.add_rule(rule));
    }
  } else if (f.kind == "pause") {
    for (const auto& t : f.targets)
      if (first_start("pause/" + t)) world_.pause(processes_.at(t));
  } else if (f.kind == "crash") {
    for (const auto& t : f.targets)
      if (first_start("crash/" + t)) world_.crash(processes_.at(t));
  } else if (f.kind == "clock") {
    for (ProcessId p : pids(f.targets)) {
      Process& proc = world_.process(p);
      // The monotonic clock through the world, which moves the timers set on it.
      if (f.clock != "wall") {
        if (f.amount.count() != 0) world_.jump_monotonic(p, f.amount);
        if (f.rate_ppm > 0) world_.set_monotonic_rate(p, f.rate_ppm);
      }
      if (f.clock != "monotonic") {
        if (f.amount.count() != 0) proc.wall.jump(now, f.amount);
        if (f.rate_ppm > 0) proc.wall.set_rate(now, f.rate_ppm);
      }
    }
  } else if (f.kind == "leader-change") {
    const int leader = cluster_.leader();
    if (leader >= 0 && cluster_.size() > 1 && !world_.process(cluster_.member(leader).pid()).paused) {
      const int successor = static_cast<int>(
          (static_cast<std::uint64_t>(leader) + 1 + rng_.below(static_cast<std::uint64_t>(cluster_.size() - 1))) %
          static_cast<std::uint64_t>(cluster_.size()));
      args["from_member"] = leader;
      args["to_member"] = successor;
      cluster_.member(leader).transfer_leadership(successor);
    } else {
      args["skipped"] = "no reachable leader";
    }
  } else if (f.kind == "compaction") {
    const Revision at = cluster_.propose_compaction(f.revision);
    if (at > 0) {
      args["compacted_at"] = at;
    } else {
      args["skipped"] = "no leader or nothing to compact";
    }
  } else if (f.kind == "lease-drop") {
    for (const auto& t : f.targets)
      if (first_start("lease-drop/" + t)) cluster_.set_drop_keepalives(processes_.at(t), true);
  } else if (f.kind == "slow-revoke") {
    first_start("slow-revoke");
    cluster_.mutable_config().lease_revoke_delay = f.amount;
  }
  world_.record_fault("world", f.kind, std::move(args));
}

void FaultInjector::end(std::size_t index) {
  const FaultSpec& f = faults_[index];
  if (f.duration.count() == 0 && is_instant_fault(f.kind)) return;
  const TrueTime now = world_.now();
  if (auto it = rules_.find(index); it != rules_.end()) {
    for (auto id : it->second) network_.remove_rule(id);
    rules_.erase(it);
  } else if (f.kind == "pause") {
    for (const auto& t : f.targets)
      if (last_end("pause/" + t)) world_.resume(processes_.at(t));
  } else if (f.kind == "crash") {
    for (const auto& t : f.targets)
      if (last_end("crash/" + t)) world_.restart(processes_.at(t));
  } else if (f.kind == "clock") {
    // A drift ends; a jump stays (the clock does not jump back by itself).
    if (f.rate_ppm > 0) {
      for (ProcessId p : pids(f.targets)) {
        Process& proc = world_.process(p);
        if (f.clock != "wall") world_.set_monotonic_rate(p, ProcessClock::kNominalRatePpm);
        if (f.clock != "monotonic") proc.wall.set_rate(now, ProcessClock::kNominalRatePpm);
      }
    }
  } else if (f.kind == "lease-drop") {
    for (const auto& t : f.targets)
      if (last_end("lease-drop/" + t)) cluster_.set_drop_keepalives(processes_.at(t), false);
  } else if (f.kind == "slow-revoke") {
    if (last_end("slow-revoke")) cluster_.mutable_config().lease_revoke_delay = Duration(0);
  }
  world_.record_fault("world", f.kind, fault_event_args(f, "end"));
}

}  // namespace lockstep::sim
