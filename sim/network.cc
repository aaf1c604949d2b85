#include "lockstep/sim/network.h"

#include <algorithm>

namespace lockstep::sim {

Network::Network(World& world, Rng rng, LatencyConfig latency)
    : world_(world), rng_(rng), latency_(latency) {
  world_.add_crash_listener([this](ProcessId pid) { on_crash(pid); });
}

namespace {
bool in(const std::vector<char>& flags, ProcessId pid) {
  const auto i = static_cast<std::size_t>(pid);
  return flags.empty() || (i < flags.size() && flags[i] != 0);
}

std::int64_t now_of(const World& world) { return world.now().time_since_epoch().count(); }

// A `link-released` / `link-dead` truth event of the receiver: what a cut link did with the
// messages it held since `held_since_ns`.
// A release also says when TCP's retransmission reached the receiver (`arrived_ns`): a paused
// receiver reads the batch, and the event is recorded, only when it resumes.
void record_link(World& world, const char* op, ProcessId from, ProcessId to, std::int64_t held_since_ns,
                 const char* count_field, std::size_t count, std::int64_t arrived_ns = -1) {
  nlohmann::json args = {{"from", world.process(from).name},
                         {"to", world.process(to).name},
                         {"held_since_ns", held_since_ns},
                         {count_field, count}};
  if (arrived_ns >= 0) args["arrived_ns"] = arrived_ns;
  world.record_truth(world.process(to).name, op, std::move(args));
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

bool Network::blocked_at(ProcessId from, ProcessId to, std::int64_t at_ns) const {
  for (const auto& r : rules_)
    if (r.rule.blocked && r.added_ns <= at_ns && matches(r, from, to)) return true;
  return false;
}

std::uint64_t Network::add_rule(LinkRule rule) {
  rule.id = next_rule_id_++;
  std::vector<char> from = flags_of(rule.from), to = flags_of(rule.to);
  rules_.push_back(ActiveRule{std::move(rule), world_.now().time_since_epoch().count(), std::move(from),
                              std::move(to)});
  return rules_.back().rule.id;
}

void Network::remove_rule(std::uint64_t id) {
  rules_.erase(std::remove_if(rules_.begin(), rules_.end(),
                              [id](const ActiveRule& r) { return r.rule.id == id; }),
               rules_.end());
  // A healed cut releases what its links held.
  for (const auto& [from, to] : holding_) {
    Link& l = link(from, to);
    if (!l.release_queued && !l.held.empty() && !blocked(from, to)) queue_release(l, from, to);
  }
  // A connection declared dead during the cut can be made again once it healed: a later cut
  // holds bytes on the new connection, whether or not a message crossed in between.
  std::erase_if(dead_links_, [this](const std::pair<ProcessId, ProcessId>& d) {
    if (blocked(d.first, d.second)) return false;
    link(d.first, d.second).dead = false;
    return true;
  });
}

void Network::set_connection_timeout(ProcessId a, ProcessId b, Duration timeout) {
  link(a, b).timeout_ns = timeout.count();
  link(b, a).timeout_ns = timeout.count();
}

Network::Link& Network::grow_links(std::size_t from, std::size_t to) {
  const std::size_t size = std::max({links_.size(), from + 1, to + 1});
  if (links_.size() < size) links_.resize(size);
  for (auto& row : links_)
    if (row.size() < size) row.resize(size);
  return links_[from][to];
}

Network::Route Network::plan_route_under_rules(ProcessId from, ProcessId to, bool in_stream) {
  Duration delay = one_way_latency();
  bool fifo = true;
  bool duplicate = false;
  for (const auto& active : rules_) {
    if (!matches(active, from, to)) continue;
    const LinkRule& r = active.rule;
    if (r.loss_probability > 0) {
      // Each loss costs a retransmission timeout, twice the last one; a transmission after
      // the fault's end is not lost.
      const std::int64_t sent_ns = world_.now().time_since_epoch().count();
      Duration rto = kTcpMinRto;
      Duration lost_for{0};
      int losses = 0;
      while (sent_ns + lost_for.count() < r.active_until_ns && rng_.chance(r.loss_probability)) {
        Link& l = link(from, to);
        if (++losses > kTcpMaxRetransmissions || lost_for + rto >= Duration(l.timeout_ns)) {
          // The connection is declared dead first (TCP gives up, or the receiver's read
          // timeout passes with nothing arriving): this message is lost, and later ones go on
          // a new connection, not behind it. (What was sent before it still arrives.)
          ++dropped_;
          l.last_delivery_ns = sent_ns;
          if (reset_handler_)
            world_.post(kWorldProcess, [this, from, to] { reset_handler_(from, to); });
          return Route{0, -1, true};
        }
        lost_for += rto;
        rto = std::min(2 * rto, kTcpMaxRto);
      }
      delay += lost_for;
    }
    if (r.duplicate_probability > 0 && rng_.chance(r.duplicate_probability)) duplicate = true;
    delay += r.extra_delay;
    if (r.reorder_window.count() > 0 && !in_stream) {
      fifo = false;
      delay += Duration(static_cast<std::int64_t>(
          rng_.below(static_cast<std::uint64_t>(r.reorder_window.count()) + 1)));
    }
  }
  std::int64_t at_ns = (world_.now() + delay).time_since_epoch().count();
  Link& l = link(from, to);
  if (fifo) at_ns = std::max(at_ns, l.last_delivery_ns);
  // A retry's copy comes right behind the original, before anything the sender sends next: a
  // client retries a call only while it waits for the call's answer.
  const std::int64_t copy_at_ns = duplicate ? at_ns + 1 : -1;
  l.last_delivery_ns = std::max(l.last_delivery_ns, duplicate ? copy_at_ns : at_ns);
  return Route{at_ns, copy_at_ns, false, l.generation};
}

void Network::hold(Link& l, ProcessId from, ProcessId to, EventFn&& message, std::int64_t arrived_ns) {
  if (l.dead) {  // no connection can be made across the cut
    leave_network(1);
    ++dropped_;
    return;
  }
  ++held_;
  if (l.held.empty()) {
    l.held_since_ns = std::min(arrived_ns, world_.now().time_since_epoch().count());
    holding_.emplace_back(from, to);
    // The connection's timeout runs from the first message it could not deliver, and ends it
    // if that message is still held then, healed or not: a release that TCP's backoff puts
    // later, or a second cut before it, does not keep the connection alive.
    const std::uint64_t epoch = ++l.stall_epoch;
    const std::int64_t now_ns = world_.now().time_since_epoch().count();
    world_.schedule_at(TrueTime(Duration(std::max(now_ns, l.held_since_ns + l.timeout_ns))), kWorldProcess,
                       [this, from, to, epoch] {
                         Link& held = link(from, to);
                         // A retransmission that reached the receiver by now got it all through
                         // (a paused receiver reads it when it resumes).
                         const bool through = held.release_queued && held.release_at_ns <= now_of(world_);
                         if (held.stall_epoch == epoch && !held.held.empty() && !through)
                           declare_dead(held, from, to);
                       });
  }
  l.held.push_back(std::move(message));
  // Held behind a cut that has healed already (the release is on its way): it joins it.
  if (!l.release_queued && !blocked(from, to)) queue_release(l, from, to);
}

void Network::queue_release(Link& l, ProcessId from, ProcessId to) {
  l.release_queued = true;
  const std::int64_t now_ns = world_.now().time_since_epoch().count();
  l.release_at_ns = next_tcp_retransmission_ns(l.held_since_ns, now_ns) + one_way_latency().count();
  const std::uint64_t epoch = l.stall_epoch;
  // The receiver's event, so that what reached the link before it (queued for a paused
  // receiver) joins the batch in order; judged as of when the retransmission arrived: a paused
  // receiver's kernel takes the bytes, whatever the link does after.
  world_.schedule_at(TrueTime(Duration(l.release_at_ns)), to,
                     [this, from, to, epoch] { release(from, to, epoch); });
}

void Network::release(ProcessId from, ProcessId to, std::uint64_t epoch) {
  {
    Link& l = link(from, to);
    if (l.stall_epoch != epoch || !l.release_queued) return;  // reset meanwhile
    l.release_queued = false;
    // Cut again before the retransmission arrived: the next heal releases.
    if (!rules_.empty() && blocked_at(from, to, l.release_at_ns)) return;
    l.last_delivery_ns = std::max(l.last_delivery_ns, world_.now().time_since_epoch().count());
    record_link(world_, "link-released", from, to, l.held_since_ns, "messages", l.held.size(), l.release_at_ns);
  }
  // Delivered in order, in this one event: the receiver reads them together. Each delivery
  // may send (and grow links_), so the link is looked up again each time.
  const bool was_held = world_.running_held();
  world_.set_running_held(true);
  for (std::size_t i = 0;; ++i) {
    Link& l = link(from, to);
    if (i >= l.held.size()) break;
    EventFn message = std::move(l.held[i]);
    leave_network(1);
    message();
  }
  world_.set_running_held(was_held);
  Link& l = link(from, to);
  l.held.clear();
  l.held_since_ns = -1;
  ++l.stall_epoch;
  l.dead = false;
  std::erase(holding_, std::make_pair(from, to));
}

void Network::declare_dead(Link& l, ProcessId from, ProcessId to) {
  record_link(world_, "link-dead", from, to, l.held_since_ns, "lost", l.held.size());
  leave_network(l.held.size());
  dropped_ += l.held.size();
  l.held.clear();
  l.held_since_ns = -1;
  l.release_queued = false;
  ++l.stall_epoch;
  ++l.generation;
  ++deaths_;
  l.dead = blocked(from, to);
  if (l.dead && std::find(dead_links_.begin(), dead_links_.end(), std::make_pair(from, to)) == dead_links_.end())
    dead_links_.emplace_back(from, to);
  std::erase(holding_, std::make_pair(from, to));
  if (reset_handler_)
    world_.post(kWorldProcess, [this, from, to] { reset_handler_(from, to); });
}

void Network::on_crash(ProcessId pid) {
  std::vector<std::pair<ProcessId, ProcessId>> reset;
  for (const auto& [from, to] : holding_)
    if (from == pid || to == pid) reset.emplace_back(from, to);
  for (const auto& [from, to] : reset) {
    Link& l = link(from, to);
    leave_network(l.held.size());
    dropped_ += l.held.size();
    l.held.clear();
    l.held_since_ns = -1;
    l.release_queued = false;
    ++l.stall_epoch;
    std::erase(holding_, std::make_pair(from, to));
  }
}

}  // namespace lockstep::sim
