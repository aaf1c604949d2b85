#include "sim/network.h"

#include <algorithm>

namespace lockstep::sim {

Network::Network(World& world, Rng rng, LatencyConfig latency)
    : world_(world), rng_(rng), latency_(latency) {}

bool Network::matches(const LinkRule& r, ProcessId from, ProcessId to) {
  return (r.from.empty() || r.from.count(from)) && (r.to.empty() || r.to.count(to));
}

bool Network::blocked(ProcessId from, ProcessId to) const {
  for (const auto& r : rules_)
    if (r.blocked && matches(r, from, to)) return true;
  return false;
}

std::uint64_t Network::add_rule(LinkRule rule) {
  rule.id = next_rule_id_++;
  rules_.push_back(std::move(rule));
  return rules_.back().id;
}

void Network::remove_rule(std::uint64_t id) {
  rules_.erase(std::remove_if(rules_.begin(), rules_.end(),
                              [id](const LinkRule& r) { return r.id == id; }),
               rules_.end());
}

void Network::send(ProcessId from, ProcessId to, std::function<void()> deliver) {
  ++sent_;
  Duration delay = latency_.one_way_base;
  if (latency_.one_way_jitter.count() > 0)
    delay += Duration(static_cast<std::int64_t>(
        rng_.below(static_cast<std::uint64_t>(latency_.one_way_jitter.count()) + 1)));
  bool fifo = true;
  int copies = 1;
  for (const auto& r : rules_) {
    if (!matches(r, from, to)) continue;
    if (r.blocked || (r.loss_probability > 0 && rng_.chance(r.loss_probability))) {
      ++dropped_;
      return;
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
  auto& last = last_delivery_ns_[{from, to}];
  if (fifo) at_ns = std::max(at_ns, last);
  last = std::max(last, at_ns);
  for (int i = 0; i < copies; ++i) {
    // Each copy of a duplicated message is its own value: handlers may consume (move from)
    // what they receive.
    std::function<void()> copy = i + 1 < copies ? deliver : std::move(deliver);
    world_.schedule_at(TrueTime(Duration(at_ns + i)), to,
                       [this, from, to, copy = std::move(copy)] {
                         // A partition that started while the message was in flight loses it.
                         if (blocked(from, to)) {
                           ++dropped_;
                           return;
                         }
                         copy();
                       });
  }
}

}  // namespace lockstep::sim
