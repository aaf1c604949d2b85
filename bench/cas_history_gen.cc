#include "lockstep/bench/cas_history_gen.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "lockstep/kv/rng.h"

namespace lockstep {

namespace {

using Value = std::optional<std::int64_t>;  // nullopt: nil
enum class Kind { read, write, cas };

struct Pending {
  Kind kind = Kind::read;
  std::int64_t value = 0;     // write: the value; cas: the new value
  std::int64_t expected = 0;  // cas
  bool applied = false;
  bool will_crash = false;
  Value seen;                 // read: the value at its linearization point
  bool cas_ok = false;
  std::size_t invoke_line = 0;
  int id = 0;  // the operation's number, from 0 in invoke order
};

// A change of the register: at which line count it happened, the value before it, and the
// operation that made it.
struct Effect {
  std::size_t line = 0;
  Value before;
  std::int64_t after = 0;
  int op = 0;
};

// A read that returned: where its :ok line is and what it saw.
struct DoneRead {
  std::size_t invoke_line = 0, ok_line = 0;
  Value seen;
  int pid = 0;
};

std::string text(const Value& v) { return v ? std::to_string(*v) : "nil"; }

class Generator {
 public:
  explicit Generator(const CasHistorySpec& spec)
      : spec_(spec), rng_(Rng(spec.seed).fork("cas-history")), slots_(spec.processes) {
    for (int i = 0; i < spec.processes; ++i) pids_.push_back(i);
  }

  GeneratedHistory run() {
    // Writes and cas are 60 % of operations: crash that share of them to crash the fraction
    // asked of all operations.
    crash_chance_ = std::min(1.0, spec_.crash_fraction / 0.6);
    while (invoked_ < spec_.operations || busy()) step();
    GeneratedHistory h;
    h.operations = invoked_;
    h.crashed = crashed_;
    if (spec_.stale_read) h.expected = make_stale_read();
    h.stale_read = h.expected != GeneratedHistory::Expected::linearizable;
    for (const auto& l : lines_) h.log += l + "\n";
    return h;
  }

 private:
  bool busy() const {
    return std::any_of(slots_.begin(), slots_.end(), [](const auto& s) { return s.has_value(); });
  }

  void emit(int pid, const char* type, const char* f, const std::string& value) {
    lines_.push_back("INFO  jepsen.util - " + std::to_string(pid) + "\t:" + type + "\t:" + f +
                     "\t" + value);
  }

  // Applies an operation's effect to the register; returns whether a cas matched.
  bool apply(const Pending& p) {
    if (p.kind == Kind::read) return false;
    const bool matches = p.kind == Kind::write || (reg_ && *reg_ == p.expected);
    if (matches) {
      effects_.push_back({lines_.size(), reg_, p.value, p.id});
      reg_ = p.value;
    }
    return matches;
  }

  // One scheduling step, chosen with weights that keep most slots busy with long-pending
  // operations (many overlaps) and let crashed ones take effect long after their crash.
  void step() {
    struct Choice {
      int action;  // 0 invoke, 1 take effect, 2 return, 3 crash, 4 late effect
      std::size_t index;
      double weight;
    };
    std::vector<Choice> choices;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      const auto& s = slots_[i];
      if (!s) {
        if (invoked_ < spec_.operations) choices.push_back({0, i, 4.0});
      } else if (!s->applied) {
        choices.push_back({1, i, 1.0});
        if (s->will_crash) choices.push_back({3, i, 0.6});
      } else {
        choices.push_back({s->will_crash ? 3 : 2, i, 1.0});
      }
    }
    for (std::size_t i = 0; i < late_.size(); ++i) choices.push_back({4, i, 0.08});
    double total = 0;
    for (const auto& c : choices) total += c.weight;
    double x = rng_.unit() * total;
    const Choice* pick = &choices.back();
    for (const auto& c : choices) {
      if (x < c.weight) {
        pick = &c;
        break;
      }
      x -= c.weight;
    }
    switch (pick->action) {
      case 0: invoke(pick->index); break;
      case 1: take_effect(pick->index); break;
      case 2: complete(pick->index); break;
      case 3: crash(pick->index); break;
      case 4: late_effect(pick->index); break;
    }
  }

  void invoke(std::size_t slot) {
    Pending p;
    const auto roll = rng_.below(10);
    p.kind = roll < 4 ? Kind::read : roll < 7 ? Kind::write : Kind::cas;
    p.value = rng_.between(0, spec_.values - 1);
    // Half the cas expect the value the register holds now (with many values, a random guess
    // would almost never match).
    p.expected = rng_.between(0, spec_.values - 1);
    if (reg_ && rng_.chance(0.5)) p.expected = *reg_;
    p.will_crash = p.kind != Kind::read && rng_.chance(crash_chance_);
    p.invoke_line = lines_.size();
    p.id = invoked_;
    returned_line_.push_back(kNever);
    write_index_.push_back(p.kind == Kind::read ? -1 : static_cast<int>(writes_.size()));
    if (p.kind != Kind::read) writes_.push_back({p.value, p.invoke_line, p.id});
    const int pid = pids_[slot];
    if (p.kind == Kind::read) emit(pid, "invoke", "read", "nil");
    if (p.kind == Kind::write) emit(pid, "invoke", "write", std::to_string(p.value));
    if (p.kind == Kind::cas)
      emit(pid, "invoke", "cas", "[" + std::to_string(p.expected) + " " + std::to_string(p.value) + "]");
    slots_[slot] = p;
    ++invoked_;
  }

  void take_effect(std::size_t slot) {
    Pending& p = *slots_[slot];
    p.applied = true;
    if (p.kind == Kind::read) p.seen = reg_;
    p.cas_ok = apply(p);
  }

  void complete(std::size_t slot) {
    const Pending p = *slots_[slot];
    const int pid = pids_[slot];
    returned_line_[static_cast<std::size_t>(p.id)] = lines_.size();
    if (p.kind == Kind::read) {
      reads_.push_back({p.invoke_line, lines_.size(), p.seen, pid});
      emit(pid, "ok", "read", text(p.seen));
    } else if (p.kind == Kind::write) {
      emit(pid, "ok", "write", std::to_string(p.value));
    } else {
      emit(pid, p.cas_ok ? "ok" : "fail", "cas",
           "[" + std::to_string(p.expected) + " " + std::to_string(p.value) + "]");
    }
    slots_[slot].reset();
  }

  void crash(std::size_t slot) {
    const Pending p = *slots_[slot];
    emit(pids_[slot], "info", p.kind == Kind::write ? "write" : "cas", ":timed-out");
    // Not yet in effect: half take effect later, half never.
    if (!p.applied && rng_.chance(0.5)) late_.push_back(p);
    ++crashed_;
    pids_[slot] += spec_.processes;  // Jepsen: a crashed process comes back under a new id
    slots_[slot].reset();
  }

  void late_effect(std::size_t i) {
    apply(late_[i]);
    late_.erase(late_.begin() + static_cast<std::ptrdiff_t>(i));
  }

  // Rewrites one late read's answer to the value the register held before the last change
  // whose operation returned before the read was called: that change had certainly happened
  // by then, so the old value is stale unless another operation can explain it. Reads whose
  // stale value no write or cas could have brought back are preferred (mostly violations);
  // when there is none, one that can be explained is taken (a linearizable near-miss).
  GeneratedHistory::Expected make_stale_read() {
    std::vector<std::size_t> unexplained, explained;
    const auto late_from = static_cast<std::size_t>(static_cast<double>(lines_.size()) * spec_.stale_from);
    for (std::size_t i = 0; i < reads_.size(); ++i) {
      const DoneRead& r = reads_[i];
      const Effect* e = last_certain_change(r);
      // A change to the same value changes nothing: reading the old value is no mistake.
      if (r.invoke_line < late_from || e == nullptr || e->before == r.seen || e->before == e->after)
        continue;
      (explainable(r, *e) ? explained : unexplained).push_back(i);
    }
    const auto& candidates = unexplained.empty() ? explained : unexplained;
    if (candidates.empty()) return GeneratedHistory::Expected::linearizable;
    // The first candidate from `stale_from` on: how much history comes before the stale read
    // is what makes it hard to refute.
    const DoneRead& r = reads_[candidates.front()];
    lines_[r.ok_line] = "INFO  jepsen.util - " + std::to_string(r.pid) + "\t:ok\t:read\t" +
                        text(last_certain_change(r)->before);
    // Unexplained: after `e` (which precedes the read in every linearization) nothing can
    // write the old value back before the read returns, so no linearization exists.
    return unexplained.empty() ? GeneratedHistory::Expected::either
                               : GeneratedHistory::Expected::not_linearizable;
  }

  const Effect* last_certain_change(const DoneRead& r) const {
    const Effect* last = nullptr;
    for (const auto& e : effects_)
      if (e.line <= r.invoke_line && returned_line_[static_cast<std::size_t>(e.op)] < r.invoke_line)
        last = &e;
    return last;
  }

  // Whether some write or cas of the stale value could take effect after the change `e` and
  // before the read returns in some linearization: invoked before the read returned, and
  // returned (if ever) after `e`'s operation was invoked, so that it may follow it.
  bool explainable(const DoneRead& r, const Effect& e) const {
    if (!e.before) return false;  // nothing writes nil
    const std::size_t e_invoked = writes_[static_cast<std::size_t>(write_index_[static_cast<std::size_t>(e.op)])].invoke_line;
    for (const auto& w : writes_)
      if (w.id != e.op && w.value == *e.before && w.invoke_line < r.ok_line &&
          returned_line_[static_cast<std::size_t>(w.id)] > e_invoked)
        return true;
    return false;
  }

  CasHistorySpec spec_;
  Rng rng_;
  std::vector<std::optional<Pending>> slots_;
  std::vector<int> pids_;
  std::vector<Pending> late_;
  std::vector<Effect> effects_;
  std::vector<DoneRead> reads_;
  struct Written {
    std::int64_t value;
    std::size_t invoke_line;
    int id;
  };
  std::vector<Written> writes_;   // every write and cas, with the value it writes
  std::vector<int> write_index_;  // per operation: its place in writes_, or -1 for a read
  std::vector<std::string> lines_;
  static constexpr std::size_t kNever = ~std::size_t{0};
  std::vector<std::size_t> returned_line_;  // per operation: its :ok/:fail line, or kNever
  Value reg_;
  double crash_chance_ = 0;
  int invoked_ = 0, crashed_ = 0;
};

}  // namespace

GeneratedHistory generate_cas_history(const CasHistorySpec& spec) {
  CasHistorySpec s = spec;
  s.processes = std::max(1, s.processes);
  s.operations = std::max(1, s.operations);
  s.values = std::max(1, s.values);
  s.crash_fraction = std::clamp(s.crash_fraction, 0.0, 1.0);
  return Generator(s).run();
}

std::vector<CasHistorySpec> hard_benchmark_specs(int count) {
  std::vector<CasHistorySpec> specs;
  for (int i = 0; i < count; ++i) {
    CasHistorySpec s;
    s.seed = 1000 + static_cast<std::uint64_t>(i);
    Rng r = Rng(s.seed).fork("spec");
    s.processes = static_cast<int>(r.between(5, 10));
    s.operations = static_cast<int>(r.between(100, 300));
    s.crash_fraction = 0.10 + 0.20 * r.unit();
    s.values = static_cast<int>(r.between(5, 10));
    s.stale_read = i % 2 == 1;
    s.stale_from = 0.3 + 0.5 * r.unit();
    specs.push_back(s);
  }
  return specs;
}

std::string hard_benchmark_name(int index) {
  char name[32];
  std::snprintf(name, sizeof name, "cas_%03d.log", index);
  return name;
}

}  // namespace lockstep
