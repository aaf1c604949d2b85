// Network: message passing between simulated processes.
//
// Contract:
//   - send(from, to, deliver) runs `deliver` as an event of `to` after a latency drawn from
//     the network's own random stream (base latency plus jitter, per link).
//   - Links are FIFO, like the TCP connection under gRPC, unless a `reorder` rule applies.
//   - Faults are rules over sets of senders and receivers; every rule that matches a
//     message applies: `blocked` drops it (checked when sent and again when it would be
//     delivered, so messages in flight when a partition starts are lost), `loss_probability`
//     drops it, `duplicate_probability` delivers it twice, `extra_delay` adds latency,
//     `reorder_window` adds a random delay and lifts FIFO order for that message.
#pragma once

#include <cstdint>
#include <set>
#include <type_traits>
#include <utility>
#include <vector>

#include "kv/rng.h"
#include "kv/time.h"
#include "sim/world.h"

namespace lockstep::sim {

struct LatencyConfig {
  Duration one_way_base = microseconds(500);
  Duration one_way_jitter = microseconds(500);  // uniform in [0, jitter]
};

struct LinkRule {
  std::uint64_t id = 0;
  std::set<ProcessId> from;  // empty: any sender
  std::set<ProcessId> to;    // empty: any receiver
  bool blocked = false;
  double loss_probability = 0;
  double duplicate_probability = 0;
  Duration extra_delay{0};
  Duration reorder_window{0};
};

class Network {
 public:
  Network(World& world, Rng rng, LatencyConfig latency = {});

  // `deliver` is any copyable void() callable (copied once when a rule duplicates the message).
  template <typename F>
  void send(ProcessId from, ProcessId to, F&& deliver) {
    const Route route = plan_route(from, to);
    if (route.copies == 0) return;
    // Each copy of a duplicated message is its own value: handlers may consume (move from)
    // what they receive.
    if (route.copies == 2) schedule_delivery(route.at_ns, from, to, std::decay_t<F>(deliver));
    schedule_delivery(route.at_ns + route.copies - 1, from, to, std::forward<F>(deliver));
  }

  // Adds a rule; returns its id for remove_rule().
  std::uint64_t add_rule(LinkRule rule);
  void remove_rule(std::uint64_t id);
  bool blocked(ProcessId from, ProcessId to) const;

  std::uint64_t messages_sent() const { return sent_; }
  std::uint64_t messages_dropped() const { return dropped_; }

 private:
  // When a message arrives and how many copies do (0: dropped), with every random draw made.
  struct Route {
    std::int64_t at_ns = 0;
    int copies = 0;
  };
  Route plan_route(ProcessId from, ProcessId to);
  template <typename Fn>
  void schedule_delivery(std::int64_t at_ns, ProcessId from, ProcessId to, Fn&& deliver) {
    world_.schedule_at(TrueTime(Duration(at_ns)), to,
                       [this, from, to, deliver = std::forward<Fn>(deliver)]() mutable {
                         // A partition that started while the message was in flight loses it.
                         if (!rules_.empty() && blocked(from, to)) {
                           ++dropped_;
                           return;
                         }
                         deliver();
                       });
  }
  // A rule with its sender and receiver sets as flags indexed by process id (ids are small and
  // dense). Why: every message is checked against every rule twice (sent, delivered), and the
  // set lookups showed in the profile of runs with faults.
  struct ActiveRule {
    LinkRule rule;
    std::vector<char> from;  // empty: any sender; else from[pid] is 1 for the rule's senders
    std::vector<char> to;    // the same for receivers
  };
  static bool matches(const ActiveRule& r, ProcessId from, ProcessId to);
  std::int64_t& last_delivery_ns(ProcessId from, ProcessId to) {
    const auto f = static_cast<std::size_t>(from), t = static_cast<std::size_t>(to);
    if (f < last_delivery_ns_.size() && t < last_delivery_ns_[f].size())
      return last_delivery_ns_[f][t];
    return grow_last_delivery_ns(f, t);
  }
  // A link not seen before: makes room for it.
  std::int64_t& grow_last_delivery_ns(std::size_t from, std::size_t to);

  World& world_;
  Rng rng_;
  LatencyConfig latency_;
  std::vector<ActiveRule> rules_;
  std::uint64_t next_rule_id_ = 1;
  // Per link (from, to): the latest delivery time scheduled, for FIFO order. Indexed by
  // process ids, which are small and dense.
  std::vector<std::vector<std::int64_t>> last_delivery_ns_;
  std::uint64_t sent_ = 0;
  std::uint64_t dropped_ = 0;
};

}  // namespace lockstep::sim
