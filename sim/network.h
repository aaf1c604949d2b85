// Network: message passing between simulated processes, over links that behave as the TCP
// connections under gRPC and etcd's raft transport.
//
// Contract:
//   - send(from, to, deliver) runs `deliver` as an event of `to` after a latency drawn from
//     the network's own random stream (base latency plus jitter, per link). A message to
//     oneself (from == to) is not networked: it runs as the next event of `to`.
//   - Each ordered pair of processes is one connection: FIFO, and it neither loses nor
//     duplicates a message while it lives.
//   - Faults are rules over sets of senders and receivers; every rule that matches applies:
//     * `blocked` (a cut) holds the link's messages, those sent during the cut and those in
//       flight when it began, in order. When it heals they arrive together, at TCP's next
//       retransmission after the heal (the first 200 ms after the first held message, then
//       twice as far each time, at most 120 s apart), plus a latency. A link whose held
//       messages are not through within its connection timeout (set_connection_timeout),
//       counted from the first of them, is declared dead, whether or not the cut has healed
//       meanwhile (TCP gives up on unacknowledged bytes, and a reader's timeout counts time
//       with nothing read): its held messages and those still in flight on it are lost, the
//       reset handler is told, and messages sent while the cut lasts are lost too (no new
//       connection can be made). Each release is recorded as a `link-released` truth event
//       of the receiver, each death by a cut as `link-dead`.
//     * A paused receiver's kernel takes what arrives: a message that reached it before a cut
//       began is not held by that cut, and a retransmission after a heal gets through while
//       it is paused; it reads them when it resumes.
//     * `loss_probability`: a message lost on the wire is retransmitted after TCP's
//       retransmission timeout (200 ms, doubled for each further loss): it arrives late, and
//       later messages on the link wait behind it. Retransmissions after the rule's end
//       (active_until_ns) get through. A message held up longer than the link's connection
//       timeout, or lost 15 times in a row, kills the connection: it and what followed it are
//       lost, the reset handler is told, and later messages go on a new connection.
//     * `duplicate_probability`: a second copy arrives right behind the first, before
//       anything sent after it: a call sent again by a retrying client or proxy (which
//       retries only while it waits for the call's answer) after the first copy had in fact
//       arrived. TCP itself never duplicates.
//     * `extra_delay` adds latency; `reorder_window` adds a random delay and lifts FIFO order
//       for that message: separate gRPC streams on one connection are served concurrently
//       (and raft's transport uses two connections). Messages sent with send_in_stream (the
//       events of one watch stream) keep their order whatever the rules.
//   - A crash of either end resets its connections: messages held on them are lost.
//   - Messages released by a heal run with World::running_held() true: a receiver reads
//     them together, as it does what came while it was paused.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <set>
#include <type_traits>
#include <utility>
#include <vector>

#include "lockstep/kv/invariant.h"
#include "lockstep/kv/rng.h"
#include "lockstep/kv/tcp_retransmission.h"
#include "lockstep/kv/time.h"
#include "lockstep/sim/event_fn.h"
#include "lockstep/sim/world.h"

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
  // When the fault behind the rule ends (true ns): a retransmission after it is not lost.
  std::int64_t active_until_ns = INT64_MAX;
};

// TCP's retransmission timing (Linux: TCP_RTO_MIN, TCP_RTO_MAX, and the time tcp_retries2 = 15
// retransmissions take before a connection with unacknowledged data is given up).
constexpr Duration kTcpMinRto = nanoseconds(kTcpMinRtoNs);
constexpr Duration kTcpMaxRto = nanoseconds(kTcpMaxRtoNs);
constexpr Duration kTcpGiveUp = milliseconds(924'600);
constexpr int kTcpMaxRetransmissions = 15;

class Network {
 public:
  Network(World& world, Rng rng, LatencyConfig latency = {});

  // `deliver` is any copyable void() callable (copied once when a rule duplicates the message).
  template <typename F>
  void send(ProcessId from, ProcessId to, F&& deliver) {
    send_message(from, to, /*in_stream=*/false, std::forward<F>(deliver));
  }
  // The same for a message of an ordered stream (a watch's events): never reordered.
  template <typename F>
  void send_in_stream(ProcessId from, ProcessId to, F&& deliver) {
    send_message(from, to, /*in_stream=*/true, std::forward<F>(deliver));
  }

  // Adds a rule; returns its id for remove_rule().
  std::uint64_t add_rule(LinkRule rule);
  void remove_rule(std::uint64_t id);
  bool blocked(ProcessId from, ProcessId to) const;

  // How long a cut may hold the connections between `a` and `b` (both directions) before they
  // are declared dead. Default kTcpGiveUp; etcd's raft transport reads with a 5 s timeout.
  void set_connection_timeout(ProcessId a, ProcessId b, Duration timeout);
  // Called (as an event of the world) when the connection from `from` to `to` is declared
  // dead by a cut or by repeated loss.
  void set_reset_handler(std::function<void(ProcessId from, ProcessId to)> handler) {
    reset_handler_ = std::move(handler);
  }
  // A process crashed: the messages held on its connections are lost.
  void on_crash(ProcessId pid);

  std::uint64_t messages_sent() const { return sent_; }
  std::uint64_t messages_dropped() const { return dropped_; }
  std::uint64_t messages_held() const { return held_; }
  // Copies of messages on their way or held by a cut.
  std::uint64_t messages_in_network() const { return in_network_; }

 private:
  // When a message arrives and how many copies do (0: lost), with every random draw made.
  struct Route {
    std::int64_t at_ns = 0;
    std::int64_t copy_at_ns = -1;  // a duplicate's arrival (right behind), or -1
    bool lost = false;
    std::uint32_t generation = 0;  // the link's connection the message goes on
  };
  // One direction of a connection.
  struct Link {
    std::int64_t last_delivery_ns = 0;  // the latest arrival scheduled, for FIFO order
    std::uint32_t generation = 0;       // counts the connection's deaths
    bool dead = false;                  // declared dead; stays so while the cut lasts
    bool release_queued = false;        // a heal queued the held messages' arrival
    std::int64_t release_at_ns = -1;    // when that retransmission reaches the receiver
    std::uint64_t stall_epoch = 0;      // counts holds, so a stale death check does nothing
    std::int64_t held_since_ns = -1;    // when the first held message came to the cut
    std::int64_t timeout_ns = kTcpGiveUp.count();
    std::vector<EventFn> held;          // messages held by a cut, in order
  };

  template <typename F>
  void send_message(ProcessId from, ProcessId to, bool in_stream, F&& deliver) {
    if (from == to) {
      // A process's message to itself never crosses the network: etcd's lock service calls
      // its own server in-process (v3client), with no delay, loss or cut between them.
      world_.post(to, std::forward<F>(deliver));
      return;
    }
    const Route route = plan_route(from, to, in_stream);
    if (route.lost) return;
    // Each copy of a duplicated message is its own value: handlers may consume (move from)
    // what they receive.
    if (route.copy_at_ns >= 0)
      schedule_delivery(route.copy_at_ns, from, to, route.generation, std::decay_t<F>(deliver));
    schedule_delivery(route.at_ns, from, to, route.generation, std::forward<F>(deliver));
  }
  // Inline: every message takes this path, and nearly all find no fault rule.
  Route plan_route(ProcessId from, ProcessId to, bool in_stream) {
    ++sent_;
    if (!rules_.empty()) [[unlikely]]
      return plan_route_under_rules(from, to, in_stream);
    const std::int64_t at_ns = (world_.now() + one_way_latency()).time_since_epoch().count();
    Link& l = link(from, to);
    l.last_delivery_ns = std::max(at_ns, l.last_delivery_ns);  // FIFO: behind what the link carries
    return Route{l.last_delivery_ns, -1, false, l.generation};
  }
  // The same with the fault rules that match the link applied (loss, duplicates, delay, reorder).
  Route plan_route_under_rules(ProcessId from, ProcessId to, bool in_stream);
  template <typename Fn>
  void schedule_delivery(std::int64_t at_ns, ProcessId from, ProcessId to,
                         std::uint32_t generation, Fn&& deliver) {
    ++in_network_;
    world_.schedule_at(TrueTime(Duration(at_ns)), to,
                       [this, from, to, generation, at_ns,
                        deliver = std::forward<Fn>(deliver)]() mutable {
                         // No fault, no held message, no connection ever died: nothing to
                         // look up (the common case, on every message).
                         if (rules_.empty() && holding_.empty() && deaths_ == 0) {
                           leave_network(1);
                           deliver();
                           return;
                         }
                         Link& l = link(from, to);
                         if (l.generation != generation) {  // its connection died
                           leave_network(1);
                           ++dropped_;
                           return;
                         }
                         // Checked as of its arrival: a paused receiver runs this late.
                         if (!l.held.empty() || (!rules_.empty() && blocked_at(from, to, at_ns))) {
                           hold(l, from, to, EventFn(std::move(deliver)), at_ns);
                           return;
                         }
                         l.dead = false;
                         leave_network(1);
                         deliver();
                       });
  }
  // Copies of messages that left the network (delivered or lost), `count` of them. Each copy
  // scheduled leaves once: a message arrives at most once, twice only when a fault duplicated
  // it (and scheduled the second copy).
  void leave_network(std::uint64_t count) {
    LOCKSTEP_INVARIANT(in_network_ >= count, "a message leaves the network at most once per copy");
    in_network_ -= count;
  }
  // A message that arrived at `arrived_ns` found a cut link (or one still holding earlier
  // messages): it waits. (A paused receiver's message is looked at only when it resumes.)
  void hold(Link& l, ProcessId from, ProcessId to, EventFn&& message, std::int64_t arrived_ns);
  // The cut of link (from, to) healed: its held messages arrive at TCP's next retransmission.
  void queue_release(Link& l, ProcessId from, ProcessId to);
  // Whether a cut that began at or before `at_ns` still blocks the link.
  bool blocked_at(ProcessId from, ProcessId to, std::int64_t at_ns) const;
  void release(ProcessId from, ProcessId to, std::uint64_t epoch);
  void declare_dead(Link& l, ProcessId from, ProcessId to);
  Duration one_way_latency() {
    Duration delay = latency_.one_way_base;
    if (latency_.one_way_jitter.count() > 0)
      delay += Duration(static_cast<std::int64_t>(
          rng_.below(static_cast<std::uint64_t>(latency_.one_way_jitter.count()) + 1)));
    return delay;
  }
  // A rule with its sender and receiver sets as flags indexed by process id (ids are small and
  // dense). Why: every message is checked against every rule twice (sent, delivered), and the
  // set lookups showed in the profile of runs with faults.
  struct ActiveRule {
    LinkRule rule;
    std::int64_t added_ns = 0;  // when the rule began (true ns)
    std::vector<char> from;  // empty: any sender; else from[pid] is 1 for the rule's senders
    std::vector<char> to;    // the same for receivers
  };
  static bool matches(const ActiveRule& r, ProcessId from, ProcessId to);
  Link& link(ProcessId from, ProcessId to) {
    const auto f = static_cast<std::size_t>(from), t = static_cast<std::size_t>(to);
    if (f < links_.size() && t < links_[f].size()) return links_[f][t];
    return grow_links(f, t);
  }
  // A link not seen before: makes room for it.
  Link& grow_links(std::size_t from, std::size_t to);

  World& world_;
  Rng rng_;
  LatencyConfig latency_;
  std::vector<ActiveRule> rules_;
  std::uint64_t next_rule_id_ = 1;
  // Per link (from, to), indexed by process ids, which are small and dense.
  std::vector<std::vector<Link>> links_;
  // The links holding messages, (from, to), for the heal of a cut.
  std::vector<std::pair<ProcessId, ProcessId>> holding_;
  std::uint64_t deaths_ = 0;  // connections declared dead so far
  // Links declared dead while cut, cleared when their cut heals (a vector: ordered, small).
  std::vector<std::pair<ProcessId, ProcessId>> dead_links_;
  std::function<void(ProcessId, ProcessId)> reset_handler_;
  std::uint64_t sent_ = 0;
  std::uint64_t dropped_ = 0;
  std::uint64_t held_ = 0;
  std::uint64_t in_network_ = 0;  // copies scheduled, not yet delivered or lost (held ones too)
};

}  // namespace lockstep::sim
