#include "lockstep/harness/fault_schedule.h"

#include <algorithm>
#include <sstream>

namespace lockstep {

namespace {

std::string client(int i) { return "client-" + std::to_string(i); }
std::string member(int i) { return "member-" + std::to_string(i); }

std::vector<std::string> all_members(int n) {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back(member(i));
  return v;
}

Duration between(Rng& rng, Duration lo, Duration hi) {
  if (hi <= lo) return lo;
  return Duration(rng.between(lo.count(), hi.count()));
}

// A random process that faults may hit: a client or a member (or the resource).
std::string any_process(Rng& rng, const FaultGenOptions& o) {
  const int n = o.clients + o.members + (o.with_resource ? 1 : 0);
  const int pick = static_cast<int>(rng.below(static_cast<std::uint64_t>(n)));
  if (pick < o.clients) return client(pick);
  if (pick < o.clients + o.members) return member(pick - o.clients);
  return "resource";
}

// The two ends of a random link for delay, loss, duplication and reordering.
void random_link(Rng& rng, const FaultGenOptions& o, sim::FaultSpec& f) {
  const std::uint64_t kind = o.members > 1 ? rng.below(3) : rng.below(2);
  if (kind == 0 || kind == 1) {  // a client and the cluster (or the resource)
    f.from = {client(static_cast<int>(rng.below(static_cast<std::uint64_t>(o.clients))))};
    f.to = (kind == 1 && o.with_resource) ? std::vector<std::string>{"resource"} : all_members(o.members);
  } else {  // one member and the other members
    const int m = static_cast<int>(rng.below(static_cast<std::uint64_t>(o.members)));
    f.from = {member(m)};
    for (int i = 0; i < o.members; ++i)
      if (i != m) f.to.push_back(member(i));
  }
  f.symmetric = rng.chance(0.7);
}

void random_partition(Rng& rng, const FaultGenOptions& o, sim::FaultSpec& f) {
  const std::uint64_t mode = rng.below(o.members > 1 ? 5 : 2);
  if (mode == 0) {  // client from cluster
    f.from = {client(static_cast<int>(rng.below(static_cast<std::uint64_t>(o.clients))))};
    f.to = all_members(o.members);
    if (o.with_resource && rng.chance(0.5)) f.to.push_back("resource");
  } else if (mode == 1) {  // one-way: a client hears the cluster, the cluster does not hear it
    f.from = {client(static_cast<int>(rng.below(static_cast<std::uint64_t>(o.clients))))};
    f.to = all_members(o.members);
    f.symmetric = false;
    if (rng.chance(0.5)) std::swap(f.from, f.to);
    return;
  } else if (mode == 2) {  // isolate one member from everyone
    const int m = static_cast<int>(rng.below(static_cast<std::uint64_t>(o.members)));
    f.from = {member(m)};
    for (int i = 0; i < o.members; ++i)
      if (i != m) f.to.push_back(member(i));
    for (int c = 0; c < o.clients; ++c) f.to.push_back(client(c));
  } else if (mode == 3) {  // majority / minority among members
    std::vector<int> order(static_cast<std::size_t>(o.members));
    for (int i = 0; i < o.members; ++i) order[static_cast<std::size_t>(i)] = i;
    for (std::size_t i = order.size(); i > 1; --i)
      std::swap(order[i - 1], order[rng.below(i)]);
    const int minority = o.members / 2;
    for (int i = 0; i < o.members; ++i)
      (i < minority ? f.from : f.to).push_back(member(order[static_cast<std::size_t>(i)]));
  } else {  // member from member
    const int a = static_cast<int>(rng.below(static_cast<std::uint64_t>(o.members)));
    const int b = (a + 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(o.members - 1)))) % o.members;
    f.from = {member(a)};
    f.to = {member(b)};
    f.symmetric = rng.chance(0.6);
    return;
  }
  f.symmetric = true;
}

// Whether this fault class can outlast a lease in a way a lock can notice too late: the
// holder stops (pause), is cut off from the cluster (partition), or its keep-alives are lost
// (lease-drop); a crash past the TTL is how a lease should free a lock.
bool lease_scale_class(const std::string& kind) {
  return kind == "pause" || kind == "crash" || kind == "partition" || kind == "lease-drop";
}

}  // namespace

std::vector<sim::FaultSpec> generate_faults(Rng rng, const FaultGenOptions& o) {
  std::vector<sim::FaultSpec> out;
  std::vector<std::string> enabled;
  for (const auto& c : sim::fault_catalogue())
    if (o.classes.count(c.name)) enabled.push_back(c.name);
  if (enabled.empty() || o.run_length.count() <= 0) return out;
  // Swarm: a random non-empty subset of the enabled classes is on for this seed.
  std::vector<std::string> on;
  Rng pick = rng.fork("swarm");
  for (const auto& c : enabled)
    if (pick.chance(0.6)) on.push_back(c);
  if (on.empty()) on.push_back(enabled[pick.below(enabled.size())]);

  const Duration cap = o.max_fault_duration;
  for (const auto& kind : on) {
    Rng r = rng.fork(kind);
    Rng lease_scale = rng.fork(kind + "/lease-scale");
    const bool lease_scale_possible =
        o.lease_ttl.count() > 0 && lease_scale_class(kind) && o.lease_ttl / 2 < cap;
    const std::int64_t per_ten_seconds = r.between(1, 3);
    const std::int64_t count =
        std::max<std::int64_t>(1, per_ten_seconds * o.run_length.count() / seconds(10).count());
    for (std::int64_t i = 0; i < count; ++i) {
      sim::FaultSpec f;
      f.kind = kind;
      f.start = Duration(static_cast<std::int64_t>(r.below(static_cast<std::uint64_t>(o.run_length.count()))));
      f.start = std::chrono::duration_cast<std::chrono::milliseconds>(f.start);
      if (kind == "partition") {
        random_partition(r, o, f);
        f.duration = between(r, milliseconds(500), std::min(cap, seconds(15)));
      } else if (kind == "delay" || kind == "loss" || kind == "duplicate" || kind == "reorder") {
        random_link(r, o, f);
        f.duration = between(r, seconds(1), std::min(cap, seconds(15)));
        if (kind == "delay") f.amount = between(r, milliseconds(5), milliseconds(800));
        if (kind == "loss") f.probability = static_cast<double>(r.between(5, 50)) / 100.0;
        if (kind == "duplicate") f.probability = static_cast<double>(r.between(5, 30)) / 100.0;
        if (kind == "reorder") f.amount = between(r, milliseconds(1), milliseconds(50));
      } else if (kind == "pause" || kind == "crash") {
        f.targets = {any_process(r, o)};
        f.duration = between(r, milliseconds(200), std::min(cap, seconds(15)));
      } else if (kind == "clock") {
        f.targets = {any_process(r, o)};
        f.clock = r.chance(0.7) ? "monotonic" : (r.chance(0.5) ? "wall" : "both");
        f.duration = between(r, seconds(1), std::min(cap, seconds(20)));
        if (r.chance(0.5)) {
          static constexpr std::int64_t kRates[] = {500'000, 900'000, 1'100'000, 2'000'000};
          f.rate_ppm = kRates[r.below(4)];
        } else {
          f.amount = milliseconds(r.between(-3000, 3000));
        }
      } else if (sim::is_instant_fault(kind)) {
        f.duration = Duration(0);
      } else if (kind == "lease-drop") {
        f.targets = {client(static_cast<int>(r.below(static_cast<std::uint64_t>(o.clients))))};
        f.duration = between(r, seconds(1), std::min(cap, seconds(20)));
      } else if (kind == "slow-revoke") {
        f.duration = between(r, seconds(2), std::min(cap, seconds(20)));
        f.amount = between(r, milliseconds(500), seconds(5));
      }
      if (lease_scale_possible && lease_scale.chance(1.0 / 3.0))
        f.duration = between(lease_scale, o.lease_ttl / 2, std::min(cap, o.lease_ttl * 3 / 2));
      f.duration = std::chrono::duration_cast<std::chrono::milliseconds>(f.duration);
      f.amount = std::chrono::duration_cast<std::chrono::milliseconds>(f.amount);
      out.push_back(std::move(f));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const sim::FaultSpec& a, const sim::FaultSpec& b) {
    return a.start < b.start;
  });
  return out;
}

std::optional<std::string> parse_fault_classes(const std::string& text, std::set<std::string>& out) {
  out.clear();
  // "all" and "none" stand alone: "all,none" or "none,pause" says two things at once.
  if (text == "none") return std::nullopt;
  if (text == "all") {
    for (const auto& c : sim::fault_catalogue()) out.insert(c.name);
    return std::nullopt;
  }
  const std::string quoted = "fault classes \"" + text + "\": ";
  if (text.empty()) return quoted + "expected a comma list of fault classes, all or none";
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) return quoted + "an empty item (two commas, or one at an end)";
    if (item == "all" || item == "none") return quoted + "\"" + item + "\" must stand alone";
    if (!sim::is_fault_class(item)) {
      std::string names;
      for (const auto& c : sim::fault_catalogue()) names += std::string(names.empty() ? "" : ", ") + c.name;
      return "unknown fault class \"" + item + "\" (known: " + names + ", all, none)";
    }
    if (!out.insert(item).second) return quoted + "\"" + item + "\" is given twice";
  }
  if (text.back() == ',') return quoted + "an empty item (two commas, or one at an end)";
  return std::nullopt;
}

}  // namespace lockstep
