#include "sim/network.h"

#include <algorithm>

namespace lockstep::sim {

Network::Network(World& world, Rng rng, LatencyConfig latency)
    : world_(world), rng_(rng), latency_(latency) {}

namespace {
bool in(const std::vector<char>& flags, ProcessId pid) {
  const auto i = static_cast<std::size_t>(pid);
  return flags.empty() || (i < flags.size() && flags[i] != 0);
}

std::vector<char> flags_of(const std::set<ProcessId>& pids) {
  std::vector<char> flags;
  if (pids.empty()) return flags;
  flags.resize(static_cast<std::size_t>(*pids.rbegin()) + 1, 0);
  for (const ProcessId pid : pids) flags[static_cast<std::size_t>(pid)] = 1;
  return flags;
}
}  // namespace

bool Network::matches(const ActiveRule& r, ProcessId from, ProcessId to) {
  return in(r.from, from) && in(r.to, to);
}

bool Network::blocked(ProcessId from, ProcessId to) const {
  for (const auto& r : rules_)
    if (r.rule.blocked && matches(r, from, to)) return true;
  return false;
}

std::uint64_t Network::add_rule(LinkRule rule) {
  rule.id = next_rule_id_++;
  std::vector<char> from = flags_of(rule.from), to = flags_of(rule.to);
  rules_.push_back(ActiveRule{std::move(rule), std::move(from), std::move(to)});
  return rules_.back().rule.id;
}

void Network::remove_rule(std::uint64_t id) {
  rules_.erase(std::remove_if(rules_.begin(), rules_.end(),
                              [id](const ActiveRule& r) { return r.rule.id == id; }),
               rules_.end());
}

std::int64_t& Network::grow_last_delivery_ns(std::size_t from, std::size_t to) {
  if (from >= last_delivery_ns_.size()) last_delivery_ns_.resize(from + 1);
  auto& row = last_delivery_ns_[from];
  if (to >= row.size()) row.resize(to + 1, 0);
  return row[to];
}

Network::Route Network::plan_route(ProcessId from, ProcessId to) {
  ++sent_;
  Duration delay = latency_.one_way_base;
  if (latency_.one_way_jitter.count() > 0)
    delay += Duration(static_cast<std::int64_t>(
        rng_.below(static_cast<std::uint64_t>(latency_.one_way_jitter.count()) + 1)));
  bool fifo = true;
  int copies = 1;
  for (const auto& active : rules_) {
    if (!matches(active, from, to)) continue;
    const LinkRule& r = active.rule;
    if (r.blocked || (r.loss_probability > 0 && rng_.chance(r.loss_probability))) {
      ++dropped_;
      return Route{};
    }
    if (r.duplicate_probability > 0 && rng_.chance(r.duplicate_probability)) copies = 2;
    delay += r.extra_delay;
    if (r.reorder_window.count() > 0) {
      fifo = false;
      delay += Duration(static_cast<std::int64_t>(
          rng_.below(static_cast<std::uint64_t>(r.reorder_window.count()) + 1)));
    }
  }
  std::int64_t at_ns = (world_.now() + delay).time_since_epoch().count();
  std::int64_t& last = last_delivery_ns(from, to);
  if (fifo) at_ns = std::max(at_ns, last);
  last = std::max(last, at_ns);
  return Route{at_ns, copies};
}

}  // namespace lockstep::sim
