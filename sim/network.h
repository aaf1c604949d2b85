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
#include <functional>
#include <map>
#include <set>
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

  void send(ProcessId from, ProcessId to, std::function<void()> deliver);

  // Adds a rule; returns its id for remove_rule().
  std::uint64_t add_rule(LinkRule rule);
  void remove_rule(std::uint64_t id);
  bool blocked(ProcessId from, ProcessId to) const;

  std::uint64_t messages_sent() const { return sent_; }
  std::uint64_t messages_dropped() const { return dropped_; }

 private:
  static bool matches(const LinkRule& r, ProcessId from, ProcessId to);

  World& world_;
  Rng rng_;
  LatencyConfig latency_;
  std::vector<LinkRule> rules_;
  std::uint64_t next_rule_id_ = 1;
  std::map<std::pair<ProcessId, ProcessId>, std::int64_t> last_delivery_ns_;
  std::uint64_t sent_ = 0;
  std::uint64_t dropped_ = 0;
};

}  // namespace lockstep::sim
