#include <catch2/catch.hpp>

// Scripted tests of RaftNode (raft_node.h), in the style of etcd raft's datadriven tests: each
// file in sim/testdata/raft/ is a list of blocks
//
//   command arg key=value ...
//   ----
//   expected output (one or more non-empty lines)
//
// separated by blank lines; lines starting with '#' between blocks are comments. The runner
// (below: a parser, a driver, a printer) runs every file, one DYNAMIC_SECTION each, and checks
// each command's output against its block, naming the file and the command's line on a
// mismatch. An unknown command or a bad argument fails the file at its line.
// To regenerate the expected output after an intended change of behaviour:
//   LOCKSTEP_UPDATE_GOLDEN=1 sim_tests "[raft-script]"
// rewrites the files in place (comments kept) and then FAILS, so that a re-pin is never green:
// read the diff, then run again without the variable.
//
// The driver holds N RaftNodes (RaftConfig{i, N, 1000ms, 100ms}), a local clock per node (all
// start at 0), and the messages in flight, in send order. After every input to a node it takes
// the node's Ready and prints each output as `I: ...` (indented under the delivery that caused
// it): a send is queued, not delivered; a Committed output is applied at once (applied_to)
// unless the node's applying is held. Commands:
//   cluster members=N            new cluster (every node started at time 0); clears messages,
//                                isolation and holds
//   advance ms=M [node=I]        every node's clock (or node I's only) moves on M ms
//   campaign I                   node I's election timer fires
//   heartbeat I [n=K]            node I's heartbeat timer fires (K times, default 1)
//   propose I key=K value=V      node I proposes a Put
//   transfer I to=J              node I hands leadership to J
//   read-index I round=R         node I's member asks for a read index for its round R
//   crash I / restart I          node I crashes (messages to it are dropped while it is down;
//                                a hold-apply ends) / starts again at its clock's time
//   hold-apply I / apply I       node I stops applying what it commits / applies up to its
//                                commit index and applies at once again
//   deliver [from=I] [to=J]      delivers the queued messages (those from I / to J) once, in
//                                order; what the deliveries send is queued for later
//   drop [from=I] [to=J]         removes queued messages without delivering them
//   stabilize                    delivers until no message is queued (at most 100 rounds)
//   isolate I / heal             messages from or to an isolated node are dropped at delivery
//   queue                        lists the queued messages
//   status                       one line per node (a leader adds its match indexes, the peers
//                                it probes and a transfer in progress)
//   log [I]                      node I's (or every node's) log as index@term[:op]
// Output forms: `I: send I->J <message>`, `deliver I->J <message>`, `dropped I->J <message>
// (isolated|down)`, `became-leader term=T`, `became-follower leader=L [(was leader in term T)]`,
// `leader-available`, `reset-election-timer [redraw]`, `committed N`, `read-state round=R
// index=N`, `proposal-dropped <op>`. An entry prints as index@term, then `:put(k=v)` for a Put
// (a leader's no-op, an empty txn, prints nothing more).

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lockstep/sim/raft_node.h"

namespace lockstep::sim {
namespace {

namespace fs = std::filesystem;

// The scripts' folder.
fs::path script_dir() { return fs::path(LOCKSTEP_SOURCE_DIR) / "sim" / "testdata" / "raft"; }

// ---------------------------------------------------------------- parser

// A bad command or argument: fails the file at the command's line.
struct ScriptError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Block {
  std::vector<std::string> preamble;  // comment and blank lines before the command, verbatim
  int line = 0;                       // the command's line (1-based)
  std::string command;
  std::vector<std::string> expected;
  bool blank_after = false;  // the block ended with a blank line (not the end of the file)
};

struct Script {
  std::vector<Block> blocks;
  std::vector<std::string> trailer;  // comment and blank lines after the last block
};

Script parse_script(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw ScriptError("cannot read " + path.string());
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  Script s;
  std::vector<std::string> pending;
  std::size_t i = 0;
  while (i < lines.size()) {
    const std::string& l = lines[i];
    if (l.empty() || l[0] == '#') {
      pending.push_back(l);
      ++i;
      continue;
    }
    Block b;
    b.preamble = std::move(pending);
    pending.clear();
    b.line = static_cast<int>(i + 1);
    b.command = l;
    if (i + 1 >= lines.size() || lines[i + 1] != "----")
      throw ScriptError(path.filename().string() + ":" + std::to_string(b.line) +
                        ": a command must be followed by a line ----");
    i += 2;
    while (i < lines.size() && !lines[i].empty()) b.expected.push_back(lines[i++]);
    if (i < lines.size()) {
      b.blank_after = true;
      ++i;
    }
    s.blocks.push_back(std::move(b));
  }
  s.trailer = std::move(pending);
  return s;
}

void write_script(const fs::path& path, const Script& s,
                  const std::vector<std::vector<std::string>>& outputs) {
  std::ofstream out(path);
  for (std::size_t b = 0; b < s.blocks.size(); ++b) {
    const Block& block = s.blocks[b];
    for (const auto& l : block.preamble) out << l << '\n';
    out << block.command << "\n----\n";
    for (const auto& l : outputs[b]) out << l << '\n';
    if (block.blank_after) out << '\n';
  }
  for (const auto& l : s.trailer) out << l << '\n';
  REQUIRE(out.good());
}

// A command line: a name, positional arguments and key=value arguments. Every argument must
// be used by the command (see done()).
class Command {
 public:
  explicit Command(const std::string& line) {
    std::istringstream words(line);
    words >> name_;
    for (std::string w; words >> w;) {
      const auto eq = w.find('=');
      if (eq == std::string::npos) {
        positional_.push_back(w);
      } else if (!keyed_.emplace(w.substr(0, eq), w.substr(eq + 1)).second) {
        throw ScriptError("argument " + w.substr(0, eq) + " given twice");
      }
    }
  }
  const std::string& name() const { return name_; }

  // The positional argument `k` as a number.
  std::int64_t number(std::size_t k) {
    if (k >= positional_.size()) throw ScriptError(name_ + ": missing argument " + std::to_string(k + 1));
    used_positional_ = std::max(used_positional_, k + 1);
    return parse_number(positional_[k]);
  }
  std::size_t positional_count() const { return positional_.size(); }
  bool has(const std::string& key) const { return keyed_.count(key) != 0; }
  std::string text(const std::string& key) {
    const auto it = keyed_.find(key);
    if (it == keyed_.end()) throw ScriptError(name_ + ": missing argument " + key + "=");
    used_keys_.push_back(key);
    return it->second;
  }
  std::int64_t number(const std::string& key) { return parse_number(text(key)); }
  std::int64_t number_or(const std::string& key, std::int64_t otherwise) {
    return has(key) ? number(key) : otherwise;
  }
  // Fails on an argument the command did not use.
  void done() const {
    if (positional_.size() > used_positional_)
      throw ScriptError(name_ + ": unexpected argument " + positional_[used_positional_]);
    for (const auto& [key, value] : keyed_)
      if (std::find(used_keys_.begin(), used_keys_.end(), key) == used_keys_.end())
        throw ScriptError(name_ + ": unknown argument " + key + "=");
  }

 private:
  std::int64_t parse_number(const std::string& s) const {
    std::size_t end = 0;
    std::int64_t v = 0;
    try {
      v = std::stoll(s, &end);
    } catch (const std::exception&) {
      end = 0;
    }
    if (end == 0 || end != s.size()) throw ScriptError(name_ + ": not a number: " + s);
    return v;
  }

  std::string name_;
  std::vector<std::string> positional_;
  std::map<std::string, std::string> keyed_;
  std::size_t used_positional_ = 0;
  std::vector<std::string> used_keys_;
};

// ---------------------------------------------------------------- printer

std::string describe_op(const LogOp& op) {
  if (const auto* put = std::get_if<PutRequest>(&op)) return "put(" + put->key + "=" + put->value + ")";
  if (const auto* txn = std::get_if<TxnRequest>(&op))
    return txn->compare.empty() && txn->success.empty() && txn->failure.empty() ? "" : "txn";
  if (std::holds_alternative<DeleteRangeRequest>(op)) return "delete";
  if (std::holds_alternative<CompactionRequest>(op)) return "compaction";
  if (std::holds_alternative<LeaseGrantRequest>(op)) return "lease-grant";
  return "lease-revoke";
}

std::string describe_entry(std::uint64_t index, const LogEntry& e) {
  const std::string op = describe_op(e.op);
  return std::to_string(index) + "@" + std::to_string(e.term) + (op.empty() ? "" : ":" + op);
}

std::string who(int node) { return node < 0 ? "none" : std::to_string(node); }

struct MessagePrinter {
  std::ostringstream& o;
  void operator()(const VoteRequest& m) {
    o << "VoteRequest term=" << m.term << " last=" << m.last_log_index << "/" << m.last_log_term
      << (m.forced ? " forced" : "");
  }
  void operator()(const VoteReply& m) {
    o << "VoteReply term=" << m.term << (m.granted ? " granted" : " rejected");
  }
  void operator()(const Append& m) {
    o << "Append term=" << m.term << " prev=" << m.prev_index << "/" << m.prev_term << " entries=[";
    for (std::size_t k = 0; k < m.entries.size(); ++k)
      o << (k ? " " : "") << describe_entry(m.prev_index + k + 1, *m.entries[k]);
    o << "] commit=" << m.leader_commit << " seq=" << m.heartbeat_seq
      << (m.needs_ack ? " needs_ack" : "");
  }
  void operator()(const AppendReply& m) {
    o << "AppendReply term=" << m.term;
    if (m.success)
      o << " ok match=" << m.match_index;
    else
      o << " reject prev=" << m.rejected_prev << " last=" << m.last_index;
    o << " seq=" << m.heartbeat_seq;
  }
  void operator()(const Heartbeat& m) {
    o << "Heartbeat term=" << m.term << " commit=" << m.commit << " seq=" << m.heartbeat_seq;
  }
  void operator()(const HeartbeatReply& m) {
    o << "HeartbeatReply term=" << m.term << " seq=" << m.heartbeat_seq;
  }
  void operator()(const TimeoutNow& m) { o << "TimeoutNow term=" << m.term; }
  void operator()(const ForwardedProposal& m) { o << "ForwardedProposal " << describe_op(m.entry->op); }
  void operator()(const ReadIndexRequest& m) {
    o << "ReadIndexRequest from=" << m.from << " round=" << m.round << (m.passed_on ? " passed-on" : "");
  }
  void operator()(const ReadIndexReply& m) {
    o << "ReadIndexReply round=" << m.round << " index=" << m.index;
  }
};

std::string describe(int from, int to, const RaftMessage& m) {
  std::ostringstream o;
  o << from << "->" << to << " ";
  std::visit(MessagePrinter{o}, m);
  return o.str();
}

// ---------------------------------------------------------------- driver

constexpr Duration kElectionTimeout = milliseconds(1000);
constexpr Duration kHeartbeatInterval = milliseconds(100);
constexpr int kStabilizeRounds = 100;

struct InFlight {
  int from;
  int to;
  RaftMessage message;
};

class Driver {
 public:
  // Runs one command, returning its output lines (never empty, none empty).
  std::vector<std::string> run(const std::string& line) {
    out_.clear();
    Command c(line);
    execute(c);
    c.done();
    if (out_.empty()) out_.push_back("ok");
    return std::move(out_);
  }

 private:
  void execute(Command& c) {
    const std::string& n = c.name();
    if (n == "cluster") return new_cluster(static_cast<int>(c.number("members")));
    if (nodes_.empty()) throw ScriptError(n + ": no cluster yet (cluster members=N)");
    if (n == "advance") {
      const Duration by = milliseconds(c.number("ms"));
      if (by < Duration(0)) throw ScriptError("advance: ms must not be negative");
      if (c.has("node")) {
        now_[node_arg(c.number("node"))] += by;
      } else {
        for (auto& t : now_) t += by;
      }
      std::ostringstream o;
      o << "time";
      for (std::size_t i = 0; i < now_.size(); ++i) o << " " << i << "=" << to_ms(now_[i]) << "ms";
      return say(o.str());
    }
    if (n == "campaign") {
      const int i = live_node_arg(c.number(0));
      nodes_[i].election_timeout(now_[i]);
      return take_ready(i, "");
    }
    if (n == "heartbeat") {
      const int i = live_node_arg(c.number(0));
      const std::int64_t times = c.number_or("n", 1);
      if (times < 1) throw ScriptError("heartbeat: n must be at least 1");
      for (std::int64_t k = 0; k < times; ++k) {
        if (times > 1) say("tick " + std::to_string(k + 1));
        nodes_[i].heartbeat_timeout(now_[i]);
        take_ready(i, times > 1 ? "  " : "");
      }
      return;
    }
    if (n == "propose") {
      const int i = live_node_arg(c.number(0));
      LogEntry e;
      e.op = PutRequest{c.text("key"), c.text("value")};
      e.origin_member = i;
      nodes_[i].propose(std::move(e), now_[i]);
      return take_ready(i, "");
    }
    if (n == "transfer") {
      const int i = live_node_arg(c.number(0));
      const int to = node_arg(c.number("to"));
      nodes_[i].transfer_leadership(to, now_[i]);
      return take_ready(i, "");
    }
    if (n == "read-index") {
      const int i = live_node_arg(c.number(0));
      const std::int64_t round = c.number("round");
      if (round < 0) throw ScriptError("read-index: round must not be negative");
      nodes_[i].read_index(static_cast<std::uint64_t>(round), now_[i]);
      return take_ready(i, "");
    }
    if (n == "crash") {
      const int i = live_node_arg(c.number(0));
      nodes_[i].crash();
      down_[i] = true;
      hold_apply_[i] = false;  // the restarted member applies from its applied index
      return;
    }
    if (n == "restart") {
      const int i = node_arg(c.number(0));
      if (!down_[i]) throw ScriptError("restart: node " + std::to_string(i) + " is not down");
      down_[i] = false;
      nodes_[i].start(now_[i]);
      return take_ready(i, "");
    }
    if (n == "hold-apply") {
      hold_apply_[node_arg(c.number(0))] = true;
      return;
    }
    if (n == "apply") {
      const int i = live_node_arg(c.number(0));
      hold_apply_[i] = false;
      nodes_[i].applied_to(nodes_[i].commit_index());
      return say(std::to_string(i) + ": applied " + std::to_string(nodes_[i].applied_index()));
    }
    if (n == "deliver") return deliver_round(filter(c));
    if (n == "drop") {
      const auto [from, to] = filter(c);
      std::vector<InFlight> kept;
      if (std::none_of(queue_.begin(), queue_.end(),
                       [&](const InFlight& m) { return matches(m, from, to); }))
        say("no messages");
      for (auto& m : queue_) {
        if (matches(m, from, to))
          say("dropped " + describe(m.from, m.to, m.message));
        else
          kept.push_back(std::move(m));
      }
      queue_ = std::move(kept);
      return;
    }
    if (n == "stabilize") {
      for (int round = 0; !queue_.empty(); ++round) {
        if (round == kStabilizeRounds)
          throw ScriptError("stabilize: messages still queued after " +
                            std::to_string(kStabilizeRounds) + " rounds");
        deliver_round({-1, -1});
      }
      return;
    }
    if (n == "isolate") {
      isolated_[node_arg(c.number(0))] = true;
      return;
    }
    if (n == "heal") {
      std::fill(isolated_.begin(), isolated_.end(), false);
      return;
    }
    if (n == "queue") {
      for (const auto& m : queue_) say(describe(m.from, m.to, m.message));
      if (queue_.empty()) say("no messages");
      return;
    }
    if (n == "status") {
      for (int i = 0; i < size(); ++i) say(status(i));
      return;
    }
    if (n == "log") {
      // `log` alone prints every node's.
      if (c.positional_count() == 0) {
        for (int i = 0; i < size(); ++i) say(log_line(i));
      } else {
        say(log_line(node_arg(c.number(0))));
      }
      return;
    }
    throw ScriptError("unknown command: " + n);
  }

  int size() const { return static_cast<int>(nodes_.size()); }

  int node_arg(std::int64_t i) const {
    if (i < 0 || i >= size()) throw ScriptError("no node " + std::to_string(i));
    return static_cast<int>(i);
  }
  int live_node_arg(std::int64_t i) const {
    const int n = node_arg(i);
    if (down_[n]) throw ScriptError("node " + std::to_string(n) + " is down (restart it first)");
    return n;
  }

  void new_cluster(int members) {
    if (members < 1 || members > 9) throw ScriptError("cluster: members must be 1 to 9");
    nodes_.clear();
    for (int i = 0; i < members; ++i)
      nodes_.emplace_back(RaftConfig{i, members, kElectionTimeout, kHeartbeatInterval});
    now_.assign(members, Duration(0));
    down_.assign(members, false);
    isolated_.assign(members, false);
    hold_apply_.assign(members, false);
    queue_.clear();
    for (int i = 0; i < members; ++i) {
      nodes_[i].start(now_[i]);
      take_ready(i, "");
    }
  }

  std::pair<int, int> filter(Command& c) const {
    return {c.has("from") ? node_arg(c.number("from")) : -1, c.has("to") ? node_arg(c.number("to")) : -1};
  }
  static bool matches(const InFlight& m, int from, int to) {
    return (from < 0 || m.from == from) && (to < 0 || m.to == to);
  }

  // Delivers once each queued message that matches; what the deliveries send waits.
  void deliver_round(std::pair<int, int> f) {
    std::vector<InFlight> batch, kept;
    for (auto& m : queue_) (matches(m, f.first, f.second) ? batch : kept).push_back(std::move(m));
    queue_ = std::move(kept);
    if (batch.empty()) return say("no messages");
    for (auto& m : batch) {
      const std::string text = describe(m.from, m.to, m.message);
      if (isolated_[m.from] || isolated_[m.to]) {
        say("dropped " + text + " (isolated)");
      } else if (down_[m.to]) {
        say("dropped " + text + " (down)");
      } else {
        say("deliver " + text);
        nodes_[m.to].step(std::move(m.message), now_[m.to]);
        take_ready(m.to, "  ");
      }
    }
  }

  // Prints node i's outputs and acts on them: sends are queued, commits applied.
  void take_ready(int i, const std::string& indent) {
    std::vector<RaftOutput> ready;
    nodes_[i].take_ready(ready);
    for (auto& output : ready) {
      std::ostringstream o;
      o << indent << i << ": ";
      std::visit(
          [&](auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, SendMessage>) {
              o << "send " << describe(i, x.to, x.message);
              queue_.push_back(InFlight{i, x.to, std::move(x.message)});
            } else if constexpr (std::is_same_v<T, BecameLeader>) {
              o << "became-leader term=" << x.term;
            } else if constexpr (std::is_same_v<T, BecameFollower>) {
              o << "became-follower leader=" << who(x.leader);
              if (x.was_leader) {
                o << " (was leader in term " << x.previous_term << "; " << x.why.message;
                if (x.why.from >= 0) o << " from " << who(x.why.from);
                if (x.why.from >= 0 || x.why.seen_term != 0) o << " term=" << x.why.seen_term;
                if (x.why.forced) o << " forced";
                o << ")";
              }
            } else if constexpr (std::is_same_v<T, LeaderAvailable>) {
              o << "leader-available";
            } else if constexpr (std::is_same_v<T, ResetElectionTimer>) {
              o << "reset-election-timer" << (x.redraw ? " redraw" : "");
            } else if constexpr (std::is_same_v<T, Committed>) {
              o << "committed " << x.index;
              if (!hold_apply_[i]) nodes_[i].applied_to(x.index);
            } else if constexpr (std::is_same_v<T, ReadState>) {
              o << "read-state round=" << x.round << " index=" << x.index;
            } else if constexpr (std::is_same_v<T, ForwardedProposalDropped>) {
              o << "forwarded-proposal-dropped " << describe_op(x.entry.op);
            } else if constexpr (std::is_same_v<T, Campaigned>) {
              o << "campaign term=" << x.term << " last=" << x.last_log_index << "@" << x.last_log_term
                << (x.forced ? " forced" : "");
            } else if constexpr (std::is_same_v<T, VoteRefused>) {
              o << "vote-refused candidate=" << who(x.candidate) << " term=" << x.term << " "
                << vote_refusal_name(x.reason) << (x.adopted_term ? " adopted-term" : "");
              if (x.reason == VoteRefusal::log_behind)
                o << " candidate-last=" << x.candidate_last_log_index << "@" << x.candidate_last_log_term
                  << " own-last=" << x.last_log_index << "@" << x.last_log_term;
            } else {
              static_assert(std::is_same_v<T, ProposalDropped>);
              o << "proposal-dropped " << describe_op(x.entry.op);
            }
          },
          output);
      say(o.str());
    }
  }

  std::string status(int i) const {
    const RaftNode& r = nodes_[i];
    std::ostringstream o;
    o << i << ": ";
    if (down_[i]) {
      o << "down";
    } else {
      o << (r.role() == MemberRole::leader ? "leader"
            : r.role() == MemberRole::candidate ? "candidate"
                                                : "follower");
    }
    o << " term=" << r.term() << " leader=" << who(r.leader()) << " commit=" << r.commit_index()
      << " applied=" << r.applied_index() << " last=" << r.last_log_index()
      << " vote=" << who(r.voted_for());
    if (r.is_leader()) {
      o << " match=[";
      for (int p = 0; p < size(); ++p) o << (p ? " " : "") << r.match_index(p);
      o << "] probing=[";
      bool first = true;
      for (int p = 0; p < size(); ++p)
        if (p != i && r.probing(p)) {
          o << (first ? "" : " ") << p;
          first = false;
        }
      o << "]";
      if (r.lead_transferee() >= 0) o << " transferee=" << r.lead_transferee();
    }
    return o.str();
  }

  std::string log_line(int i) const {
    const RaftNode& r = nodes_[i];
    std::ostringstream o;
    o << i << ":";
    if (r.first_index_in_memory() > 1) o << " (compacted to " << r.first_index_in_memory() - 1 << ")";
    for (std::uint64_t k = r.first_index_in_memory(); k <= r.last_log_index(); ++k)
      o << " " << describe_entry(k, *r.entry(k));
    if (r.last_log_index() == 0) o << " (empty)";
    return o.str();
  }

  void say(std::string line) { out_.push_back(std::move(line)); }

  std::vector<RaftNode> nodes_;
  std::vector<Duration> now_;
  std::vector<bool> down_, isolated_, hold_apply_;
  std::vector<InFlight> queue_;
  std::vector<std::string> out_;
};

// ---------------------------------------------------------------- runner

std::vector<std::string> script_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(script_dir()))
    if (entry.is_regular_file() && entry.path().extension() == ".txt")
      files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string join(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += "    " + l + "\n";
  return s.empty() ? "    (nothing)\n" : s;
}

void run_script_file(const std::string& file) {
  const fs::path path = script_dir() / file;
  Script script;
  try {
    script = parse_script(path);
  } catch (const ScriptError& e) {
    FAIL(e.what());
  }
  const bool update = std::getenv("LOCKSTEP_UPDATE_GOLDEN") != nullptr;
  Driver driver;
  std::vector<std::vector<std::string>> outputs;
  for (const Block& b : script.blocks) {
    std::vector<std::string> actual;
    try {
      actual = driver.run(b.command);
    } catch (const ScriptError& e) {
      FAIL(file << ":" << b.line << ": " << b.command << "\n  " << e.what());
    }
    if (!update && actual != b.expected)
      FAIL_CHECK(file << ":" << b.line << ": " << b.command << "\n  expected:\n"
                      << join(b.expected) << "  actual:\n" << join(actual));
    outputs.push_back(std::move(actual));
  }
  if (update) {
    write_script(path, script, outputs);
    FAIL("rewrote " << path.string() << "; run again without LOCKSTEP_UPDATE_GOLDEN to check it");
  }
}

TEST_CASE("raft scripts in sim/testdata/raft give their expected output", "[raft-script]") {
  INFO("scripts in " << script_dir().string()
                     << "; to re-pin: LOCKSTEP_UPDATE_GOLDEN=1 sim_tests [raft-script]");
  const std::vector<std::string> files = script_files();
  REQUIRE(files.size() >= 6);
  for (const std::string& file : files)
    DYNAMIC_SECTION(file) { run_script_file(file); }
}

}  // namespace
}  // namespace lockstep::sim
