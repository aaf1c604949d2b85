#include "lockstep/real_run/faults.h"

#include <algorithm>

#include "lockstep/real_etcd/etcd_kv_client.h"
#include "lockstep/real_etcd/event_loop.h"
#include "lockstep/real_etcd/link_proxy.h"
#include "lockstep/real_etcd/local_cluster.h"

namespace lockstep {

namespace {

const std::set<std::string>& local_classes() {
  static const std::set<std::string> s = {"partition",     "delay",      "loss",      "pause",
                                          "crash",         "clock",      "leader-change",
                                          "compaction",    "lease-drop"};
  return s;
}

const std::set<std::string>& external_classes() {
  static const std::set<std::string> s = {"pause", "crash", "clock", "lease-drop"};
  return s;
}

bool is_member(const std::string& name) { return name.rfind("member-", 0) == 0; }
bool is_client(const std::string& name) { return name.rfind("client-", 0) == 0; }

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : "; ") + s;
  return out;
}

Task<Result<std::int64_t>> compact_at(KvClient* kv, std::int64_t revision) {
  if (revision <= 0) {
    RangeRequest r;
    r.key = "lockstep-revision-probe";
    r.count_only = true;
    Result<RangeResponse> read = co_await kv->range(r);
    if (!read.ok()) co_return read.error();
    revision = read.value().header.revision;
  }
  CompactionRequest c;
  c.revision = revision;
  Result<CompactionResponse> done = co_await kv->compact(c);
  if (!done.ok()) co_return done.error();
  co_return revision;
}

}  // namespace

namespace {

bool supports(const std::string& fault_class, bool local_cluster, bool external_clients) {
  // External client processes: lockstep cannot set another process's clock, nor drop the
  // keep-alives inside its etcd client (docs/external-clients.md).
  if (external_clients && (fault_class == "clock" || fault_class == "lease-drop")) return false;
  return (local_cluster ? local_classes() : external_classes()).count(fault_class) > 0;
}

}  // namespace

std::vector<std::string> real_fault_classes(bool local_cluster, bool external_clients) {
  std::vector<std::string> out;
  for (const auto& c : sim::fault_catalogue())
    if (supports(c.name, local_cluster, external_clients)) out.push_back(c.name);
  return out;
}

std::string check_real_fault_classes(const std::set<std::string>& classes, bool local_cluster,
                                     bool external_clients) {
  std::vector<std::string> refused;
  for (const auto& c : sim::fault_catalogue())
    if (classes.count(c.name) && !supports(c.name, local_cluster, external_clients)) refused.push_back(c.name);
  if (refused.empty()) return {};
  std::string names, ok;
  for (const auto& r : refused) names += (names.empty() ? "" : ", ") + r;
  for (const auto& s : real_fault_classes(local_cluster, external_clients)) ok += (ok.empty() ? "" : ", ") + s;
  return "the real etcd backend" +
         std::string(local_cluster ? "" : " with --endpoints (an existing cluster)") +
         std::string(external_clients ? " with external clients (--client-cmd)" : "") +
         " does not support the fault class" + (refused.size() > 1 ? "es " : " ") + names +
         " (supported: " + ok + "; the simulator supports them all)";
}

std::map<std::string, std::string> client_role_mapping(const std::vector<std::string>& roles,
                                                       const std::vector<std::string>& real_first_holders,
                                                       const std::vector<std::string>& all_clients) {
  std::map<std::string, std::string> to_real;
  std::set<std::string> taken;
  for (std::size_t k = 0; k < roles.size() && k < real_first_holders.size(); ++k) {
    to_real[roles[k]] = real_first_holders[k];
    taken.insert(real_first_holders[k]);
  }
  std::vector<std::string> rest;  // scenario clients not mapped yet, in role order
  for (const auto& c : roles)
    if (!to_real.count(c)) rest.push_back(c);
  for (const auto& c : all_clients)
    if (!to_real.count(c) && std::find(rest.begin(), rest.end(), c) == rest.end()) rest.push_back(c);
  for (const auto& c : rest)  // their own name first
    if (!taken.count(c) && std::find(all_clients.begin(), all_clients.end(), c) != all_clients.end()) {
      to_real[c] = c;
      taken.insert(c);
    }
  for (const auto& c : rest) {
    if (to_real.count(c)) continue;
    for (const auto& r : all_clients)
      if (!taken.count(r)) {
        to_real[c] = r;
        taken.insert(r);
        break;
      }
  }
  return to_real;
}

RealFaultInjector::RealFaultInjector(RealHistoryLog& log, RealFaultTargets targets)
    : log_(log), t_(std::move(targets)) {}

bool RealFaultInjector::ready(const sim::FaultSpec& f) const {
  if (t_.client_roles.empty()) return true;
  const std::size_t known = log_.first_holders().size();
  for (const auto* list : {&f.targets, &f.from, &f.to})
    for (const auto& name : *list) {
      const auto it = std::find(t_.client_roles.begin(), t_.client_roles.end(), name);
      if (it == t_.client_roles.end()) continue;
      const auto k = static_cast<std::size_t>(it - t_.client_roles.begin());
      if (k < t_.role_held_at.size() && t_.role_held_at[k] <= f.start && known <= k) return false;
    }
  return true;
}

const sim::FaultSpec& RealFaultInjector::as_applied(const sim::FaultSpec& f, bool start) {
  if (t_.client_roles.empty()) return f;
  if (!start) {
    auto it = mapped_.find(&f);
    return it == mapped_.end() ? f : it->second;
  }
  std::vector<std::string> all;
  for (const auto& [name, c] : t_.clients) all.push_back(name);
  const auto to_real = client_role_mapping(t_.client_roles, log_.first_holders(), all);
  sim::FaultSpec g = f;
  for (auto* list : {&g.targets, &g.from, &g.to})
    for (auto& name : *list)
      if (auto it = to_real.find(name); it != to_real.end()) name = it->second;
  return mapped_[&f] = std::move(g);
}

int RealFaultInjector::member_index(const std::string& name) const {
  if (!is_member(name) || !t_.cluster) return -1;
  const int i = std::atoi(name.c_str() + 7);
  return i >= 0 && i < t_.cluster->size() ? i : -1;
}

RealClientControl* RealFaultInjector::client(const std::string& name) const {
  auto it = t_.clients.find(name);
  return it == t_.clients.end() ? nullptr : it->second;
}

std::vector<std::string> RealFaultInjector::apply_process(const sim::FaultSpec& f, bool start) {
  std::vector<std::string> skipped;
  for (const auto& target : f.targets) {
    const std::string key = f.kind + "/" + target;
    const int m = member_index(target);
    RealClientControl* c = client(target);
    if (m < 0 && !c) {
      skipped.push_back(target + ": not a process the real backend can " +
                        (f.kind == "lease-drop" ? "drop keep-alives of" : f.kind));
      continue;
    }
    if (f.kind == "clock") {
      if (!c) {
        skipped.push_back(target + ": member clocks cannot be skewed on a real cluster");
        continue;
      }
      const bool mono = f.clock != "wall";
      const bool wall = f.clock != "monotonic";
      if (start) {
        if (f.amount.count() != 0) c->jump_clock(f.amount, mono, wall);
        if (f.rate_ppm > 0) c->set_clock_rate(static_cast<double>(f.rate_ppm) / 1e6, mono, wall);
      } else if (f.rate_ppm > 0) {
        c->set_clock_rate(1.0, mono, wall);  // a drift ends; a jump stays
      }
      continue;
    }
    if (f.kind == "lease-drop") {
      if (!c) {
        skipped.push_back(target + ": lease-drop targets clients only");
        continue;
      }
      if (start ? first_start(key) : last_end(key)) c->set_lease_drop(start);
      continue;
    }
    if (start ? !first_start(key) : !last_end(key)) continue;
    Result<void> r = Result<void>::success();
    if (f.kind == "pause") {
      if (c) {
        start ? c->pause() : c->resume();
      } else {
        r = start ? t_.cluster->pause(m) : t_.cluster->resume(m);
      }
    } else if (f.kind == "crash") {
      if (c) {
        start ? c->crash() : c->restart();
      } else if (start) {
        r = t_.cluster->kill(m);
      } else {
        r = t_.cluster->relaunch(m);  // the cluster tells the proxy the new pid
      }
    }
    if (!r) skipped.push_back(target + ": " + r.error().message);
  }
  return skipped;
}

std::vector<std::string> RealFaultInjector::apply_link_fault(const sim::FaultSpec& f, bool start) {
  std::vector<std::string> skipped;
  std::uint64_t links = 0;
  auto link = [&](const std::string& from, const std::string& to) {
    const bool client_member = (is_client(from) && is_member(to)) || (is_member(from) && is_client(to));
    const bool member_member = is_member(from) && is_member(to);
    if (!client_member && !member_member) {
      skipped.push_back(from + "->" + to + ": not a link the real backend proxies");
      return;
    }
    if (f.kind != "partition") {  // delay or loss: a slow or lossy path
      if (start) {
        const auto delay = f.kind == "delay" ? std::chrono::nanoseconds(f.amount.count()) : std::chrono::nanoseconds(0);
        const double loss = f.kind == "loss" ? f.probability : 0.0;
        const auto seed = static_cast<std::uint64_t>(f.start.count()) * 31 + ++links;
        slowdowns_[&f].push_back(t_.proxy->slow(from, to, delay, loss, seed));
      }
      return;
    }
    if (start) {
      t_.proxy->block(from, to);
      blocked_links_.insert({from, to});
    } else if (auto it = blocked_links_.find({from, to}); it != blocked_links_.end()) {
      t_.proxy->unblock(from, to);
      blocked_links_.erase(it);
    }
  };
  if (!start && f.kind != "partition") {
    if (auto it = slowdowns_.find(&f); it != slowdowns_.end()) {
      for (const auto handle : it->second) t_.proxy->unslow(handle);
      slowdowns_.erase(it);
    }
    return {};
  }
  if (!t_.proxy) return {"no link proxies in this run"};
  for (const auto& a : f.from)
    for (const auto& b : f.to) {
      if (a == b) continue;
      link(a, b);
      if (f.symmetric) link(b, a);
    }
  return skipped;
}

void RealFaultInjector::begin(const sim::FaultSpec& scheduled, Duration waited) {
  const sim::FaultSpec& f = as_applied(scheduled, true);
  ++started_[f.kind];
  nlohmann::json args = sim::fault_event_args(f, "start");
  if (waited.count() > 0) args["waited_for_role_ms"] = waited.count() / 1'000'000;
  if (&f != &scheduled && (f.targets != scheduled.targets || f.from != scheduled.from || f.to != scheduled.to))
    args["scenario_clients"] = sim::fault_to_json(scheduled);  // what the scenario named
  std::vector<std::string> skipped;
  if (f.kind == "partition" || f.kind == "delay" || f.kind == "loss") {
    skipped = apply_link_fault(f, true);
  } else if (f.kind == "pause" || f.kind == "crash" || f.kind == "clock" || f.kind == "lease-drop") {
    skipped = apply_process(f, true);
  } else if (f.kind == "leader-change") {
    if (!t_.cluster || t_.cluster->size() < 2) {
      skipped.push_back("no cluster of several members to change the leader of");
    } else {
      auto leader = t_.cluster->leader(milliseconds(500));
      int successor = -1;
      if (leader) {
        // The next running, unpaused member after the leader (deterministic given the state).
        for (int k = 1; k < t_.cluster->size() && successor < 0; ++k) {
          const int cand = (leader.value() + k) % t_.cluster->size();
          if (t_.cluster->running(cand) && !t_.cluster->paused(cand)) successor = cand;
        }
      }
      if (!leader || successor < 0) {
        skipped.push_back("no reachable leader");
      } else if (auto moved = t_.cluster->transfer_leadership(successor, seconds(2)); !moved) {
        skipped.push_back(moved.error().message);
      } else {
        args["from_member"] = moved.value();
        args["to_member"] = successor;
      }
    }
  } else if (f.kind == "compaction") {
    real::EventLoop loop;
    real::EtcdClientOptions options;
    options.endpoints = t_.endpoints;
    options.call_deadline = t_.call_deadline;
    options.set_security(t_.security);
    auto kv = real::EtcdKvClient::create(loop, options);
    if (!kv) {
      skipped.push_back(kv.error().message);
    } else {
      Result<std::int64_t> at = loop.run(compact_at(kv.value().get(), f.revision));
      if (at.ok()) {
        args["compacted_at"] = at.value();
      } else {
        skipped.push_back("compaction failed: " + at.error().to_string());
      }
      kv.value().reset();
    }
  } else {
    skipped.push_back("fault class not supported by the real backend");
  }
  if (!skipped.empty()) args["skipped"] = join(skipped);
  log_.fault(f.kind, args);
}

void RealFaultInjector::end(const sim::FaultSpec& scheduled) {
  if (scheduled.duration.count() == 0 && sim::is_instant_fault(scheduled.kind)) return;
  const sim::FaultSpec& f = as_applied(scheduled, false);
  nlohmann::json args = sim::fault_event_args(f, "end");
  std::vector<std::string> skipped;
  if (f.kind == "partition" || f.kind == "delay" || f.kind == "loss") {
    skipped = apply_link_fault(f, false);
  } else if (f.kind == "pause" || f.kind == "crash" || f.kind == "clock" || f.kind == "lease-drop") {
    skipped = apply_process(f, false);
  }
  if (!skipped.empty()) args["skipped"] = join(skipped);
  log_.fault(f.kind, args);
  mapped_.erase(&scheduled);  // `f` may be the erased copy: not used after this
}

void RealFaultInjector::heal_all() {
  for (const auto& [from, to] : blocked_links_) t_.proxy->unblock(from, to);
  blocked_links_.clear();
  for (const auto& [fault, handles] : slowdowns_)
    for (const auto handle : handles) t_.proxy->unslow(handle);
  slowdowns_.clear();
  for (auto& [key, count] : active_) {
    if (count <= 0) continue;
    count = 0;
    const auto slash = key.find('/');
    const std::string kind = key.substr(0, slash);
    const std::string target = key.substr(slash + 1);
    const int m = member_index(target);
    RealClientControl* c = client(target);
    if (kind == "pause") {
      if (c) c->resume();
      if (m >= 0) (void)t_.cluster->resume(m);
    } else if (kind == "crash") {
      if (c) c->restart();
      if (m >= 0) {
        (void)t_.cluster->relaunch(m);
      }
    } else if (kind == "lease-drop") {
      if (c) c->set_lease_drop(false);
    }
  }
}

}  // namespace lockstep
