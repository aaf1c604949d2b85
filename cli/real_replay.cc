#include "lockstep/cli/real_replay.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "lockstep/checker/mutex_checker.h"
#include "lockstep/cli/commands.h"
#include "lockstep/cli/run_real.h"
#include "lockstep/harness/output_file.h"
#ifdef LOCKSTEP_HAVE_REAL_ETCD
#include "lockstep/real_etcd/local_cluster.h"
#include "lockstep/real_run/faults.h"
#include "lockstep/real_run/interrupt.h"
#include "lockstep/real_run/runner.h"
#endif

namespace lockstep::cli {

int RealConfirmation::reproduced() const {
  int n = 0;
  for (const auto& r : runs) n += r.reproduced ? 1 : 0;
  return n;
}

std::string RealConfirmation::summary() const {
  std::ostringstream o;
  const std::string etcd = etcd_version.empty() ? "etcd" : "etcd " + etcd_version;
  if (!error.empty()) return "not run on " + etcd + ": " + error;
  if (simulated_violations.empty()) {
    o << "the simulated replay violated no check: nothing to reproduce; " << runs.size()
      << " real run" << (runs.size() == 1 ? "" : "s") << " on " << etcd;
  } else {
    o << (reproduced() > 0 ? "reproduced" : "not reproduced") << " on " << etcd << " in "
      << reproduced() << " of " << runs.size() << " run" << (runs.size() == 1 ? "" : "s");
  }
  std::map<std::string, int> violated;
  for (const auto& r : runs)
    for (const auto& c : r.violated) ++violated[c];
  std::string parts;
  for (const auto& [check, n] : violated)
    parts += (parts.empty() ? "" : ", ") + check + " violated in " + std::to_string(n);
  int failed = 0, bad_client = 0;
  for (const auto& r : runs) failed += r.error.empty() ? 0 : 1;
  for (const auto& r : runs) bad_client += r.bad_client.empty() ? 0 : 1;
  if (failed) parts += (parts.empty() ? "" : ", ") + std::to_string(failed) + " could not run";
  if (bad_client) parts += (parts.empty() ? "" : ", ") + std::to_string(bad_client) + " with a bad client";
  if (!parts.empty()) o << " (" << parts << ")";
  if (!skipped_faults.empty())
    o << "; " << skipped_faults.size() << " fault" << (skipped_faults.size() == 1 ? "" : "s")
      << " skipped (not available on the real backend)";
  if (interrupted) o << "; interrupted";
  return o.str();
}

nlohmann::json RealConfirmation::to_json() const {
  nlohmann::json j;
  j["summary"] = summary();
  j["etcd_version"] = etcd_version;
  j["simulated_violations"] = simulated_violations;
  if (!client_roles.empty()) j["client_roles"] = client_roles;
  j["skipped_faults"] = skipped_faults;
  j["reproduced"] = reproduced();
  j["runs"] = nlohmann::json::array();
  for (const auto& r : runs) {
    nlohmann::json run = {{"violated", r.violated}, {"reproduced", r.reproduced}};
    if (r.unknown) run["unknown"] = true;
    if (!r.error.empty()) run["error"] = r.error;
    if (!r.bad_client.empty()) run["bad_client"] = r.bad_client;
    if (!r.dir.empty()) run["dir"] = r.dir;
    j["runs"].push_back(std::move(run));
  }
  if (!error.empty()) j["error"] = error;
  if (interrupted) j["interrupted"] = true;
  return j;
}

void add_confirm_real_options(CLI::App& cmd, int& runs, std::string& etcd_bin, const std::string& what) {
  cmd.add_option("--confirm-real", runs,
                 "Replay " + what + " this many times on a local real etcd and report how many "
                 "reproduced it (see docs/real-etcd.md)")
      ->check(CLI::Range(0, 100));
  cmd.add_option("--etcd-bin", etcd_bin, "With --confirm-real: the etcd binary (default: etcd from PATH)")
      ->check(non_empty());
}

std::string confirm_real_problem(int runs, const std::string& etcd_bin) {
  if (runs == 0)
    return etcd_bin.empty() ? std::string()
                            : "--etcd-bin names the etcd of --confirm-real's runs; without "
                              "--confirm-real N it would be ignored";
  if (auto err = real_etcd_binary_problem(etcd_bin); !err.empty()) return "--confirm-real: " + err;
  return {};
}

std::string add_real_confirmation(const std::filesystem::path& dir, const nlohmann::json& confirmation) {
  const std::filesystem::path file = dir / "verdict.json";
  nlohmann::json verdict;
  {
    std::ifstream in(file);
    verdict = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  }
  if (!verdict.is_object()) return "cannot read " + file.string() + " back";
  verdict["real_confirmation"] = confirmation;
  return write_file_replacing(file, verdict.dump(2) + "\n");
}

#ifndef LOCKSTEP_HAVE_REAL_ETCD
bool real_backend_available() { return false; }

std::string real_etcd_binary_problem(const std::string&) {
  return "this lockstep was built without the real etcd backend (configure with "
         "-DLOCKSTEP_BUILD_REAL_ETCD=ON)";
}

RealConfirmation confirm_on_real(const Scenario&, const RunResult&, const RealConfirmationArgs&,
                                 const std::filesystem::path&, bool, std::ostream&) {
  RealConfirmation c;
  c.error = "this lockstep was built without the real etcd backend (configure with "
            "-DLOCKSTEP_BUILD_REAL_ETCD=ON)";
  return c;
}
#else
namespace {

std::string seconds_text(Duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(d.count()) / 1e9);
  return buf;
}

std::string names(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

// "delay member-0 -> client-1 at 2.000 s for 8.000 s"
std::string describe_skipped(const sim::FaultSpec& f) {
  std::string who = f.targets.empty() ? names(f.from) + (f.symmetric ? " <-> " : " -> ") + names(f.to)
                                      : names(f.targets);
  return f.kind + " " + who + " at " + seconds_text(f.start) + " for " + seconds_text(f.duration);
}

// The version the etcd binary reports ("etcd Version: 3.4.23"), or empty.
std::string etcd_binary_version(const std::string& binary) {
  const std::string command = "'" + (binary.empty() ? std::string("etcd") : binary) + "' --version 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  std::string text;
  char buf[256];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) text += buf;
  ::pclose(pipe);
  const std::string marker = "etcd Version: ";
  const auto at = text.find(marker);
  if (at == std::string::npos) return {};
  const auto end = text.find('\n', at);
  return text.substr(at + marker.size(), end == std::string::npos ? end : end - at - marker.size());
}

// The scenario's clients by role: in the order they first held the lock in the simulated run
// (with when, relative to the clients' start), then the others by number (never).
void client_roles(const RunConfig& config, const History& simulated, std::vector<std::string>& roles,
                  std::vector<Duration>& held_at) {
  std::vector<HoldingInterval> holdings = believed_holding_intervals(simulated);
  std::stable_sort(holdings.begin(), holdings.end(),
                   [](const HoldingInterval& a, const HoldingInterval& b) { return a.start_ns < b.start_ns; });
  const Duration start = clients_start_time(config);
  for (const auto& h : holdings)
    if (std::find(roles.begin(), roles.end(), h.process) == roles.end()) {
      roles.push_back(h.process);
      held_at.push_back(Duration(h.start_ns) - start);
    }
  for (int i = 0; i < config.workload.clients; ++i) {
    const std::string name = "client-" + std::to_string(i);
    if (std::find(roles.begin(), roles.end(), name) != roles.end()) continue;
    roles.push_back(name);
    held_at.push_back(Duration::max());
  }
}

std::string ordinal(std::size_t k) {
  static const char* const words[] = {"first", "second", "third", "fourth", "fifth"};
  return k < 5 ? words[k] : std::to_string(k + 1) + "th";
}

}  // namespace

bool real_backend_available() { return true; }

std::string real_etcd_binary_problem(const std::string& etcd_bin) {
  auto binary = real::find_etcd_binary(etcd_bin);
  return binary ? std::string() : binary.error().message;
}

RealConfirmation confirm_on_real(const Scenario& scenario, const RunResult& simulated,
                                 const RealConfirmationArgs& args,
                                 const std::filesystem::path& out_dir, bool overwrite,
                                 std::ostream& out) {
  RealConfirmation c;
  const bool local = args.endpoints.empty();
  if (local) {
    // A missing binary is bad input (exit 2, as for `run --backend etcd`), not N runs that
    // "could not run" (exit 3).
    if (auto err = real_etcd_binary_problem(args.etcd_bin); !err.empty()) {
      c.error = err;
      return c;
    }
    c.etcd_version = etcd_binary_version(args.etcd_bin);
  } else {
    RealBackendOptions backend;
    backend.endpoints = args.endpoints;
    if (auto version = existing_cluster_version(backend); version.ok()) c.etcd_version = version.value();
  }

  // What the simulator says: the checks to reproduce.
  for (const auto& check : simulated.checks)
    if (check.status == CheckStatus::violated) c.simulated_violations.push_back(check.name);

  RealRunConfig config;
  config.run = scenario.config;
  config.backend.endpoints = args.endpoints;
  config.backend.allow_remote = args.allow_remote;
  config.backend.etcd_binary = args.etcd_bin;
  config.backend.client_cmd = args.client_cmd;
  if (args.members > 0) config.run.etcd.members = args.members;
  // The schedule is explicit: the random classes it was drawn from do not apply.
  config.run.fault_classes.clear();
  const auto supported = real_fault_classes(local, !args.client_cmd.empty());
  std::vector<sim::FaultSpec> kept;
  // A member the cluster does not have (a smaller --members): the fault would hit nothing.
  auto names_missing_member = [&](const sim::FaultSpec& f) {
    for (const auto* list : {&f.targets, &f.from, &f.to})
      for (const auto& name : *list)
        if (name.rfind("member-", 0) == 0 && std::atoi(name.c_str() + 7) >= config.run.etcd.members) return true;
    return false;
  };
  for (const auto& f : scenario.config.faults) {
    if (std::find(supported.begin(), supported.end(), f.kind) == supported.end()) {
      c.skipped_faults.push_back(describe_skipped(f));
    } else if (names_missing_member(f)) {
      c.skipped_faults.push_back(describe_skipped(f) + " (no such member in a " +
                                 std::to_string(config.run.etcd.members) + "-member cluster)");
    } else {
      kept.push_back(f);
    }
  }
  config.run.faults = kept;
  // Which client wins an acquire race is timing: a fault on the simulated first holder is
  // applied to the real first holder, and so on.
  bool client_faults = false;
  for (const auto& f : kept)
    for (const auto* list : {&f.targets, &f.from, &f.to})
      for (const auto& name : *list) client_faults = client_faults || name.rfind("client-", 0) == 0;
  if (!args.faults_by_name && client_faults) {
    client_roles(scenario.config, simulated.history, config.client_roles, config.role_held_at);
    c.client_roles = config.client_roles;
    out << "faults on clients follow their roles in the simulated run:";
    for (std::size_t k = 0; k < config.client_roles.size(); ++k)
      out << (k ? ";" : "") << " " << config.client_roles[k] << " = "
          << (config.role_held_at[k] != Duration::max() ? "the " + ordinal(k) + " to hold the lock"
                                                        : std::string("one that never held it"));
    out << " (--faults-by-name to keep the names)\n";
  }
  if (auto err = validate_real_run_config(config); !err.empty()) {
    c.error = err;
    return c;
  }
  if (!c.skipped_faults.empty()) {
    out << "skipped on the real backend (" << (local ? "a local cluster" : "--endpoints")
        << " cannot apply them):\n";
    for (const auto& s : c.skipped_faults) out << "  " << s << "\n";
  }
  for (int i = 1; i <= args.runs; ++i) {
    RealRunOutcome outcome;
    {
      InterruptGuard guard;  // Ctrl-C stops the run and its cluster
      outcome = run_real(config, &InterruptGuard::flag());
    }
    RealConfirmation::Run run;
    if (!outcome.error.empty()) {
      run.error = outcome.error;
      out << "  real run " << i << ": could not run: " << outcome.error << "\n";
    } else {
      run.bad_client = outcome.bad_client;
      // The protocol broke: the checks judged what ran, but no verdict stands for the lock.
      if (!run.bad_client.empty()) out << "  real run " << i << ": bad client: " << run.bad_client << "\n";
      for (const auto& check : outcome.result.checks) {
        if (check.status == CheckStatus::violated) run.violated.push_back(check.name);
        if (check.status == CheckStatus::unknown) run.unknown = true;
      }
      for (const auto& v : run.violated)
        for (const auto& s : c.simulated_violations)
          run.reproduced = run.reproduced || (v == s && run.bad_client.empty());
      if (!out_dir.empty()) {
        const std::filesystem::path dir = out_dir / ("real-" + std::to_string(i));
        if (auto err = write_real_files(dir, config, outcome, overwrite); !err.empty()) {
          c.error = err;
          c.runs.push_back(run);
          return c;
        }
        run.dir = "real-" + std::to_string(i);
      }
      out << "  real run " << i << ": "
          << (run.violated.empty() ? std::string(run.unknown ? "unknown" : "every check ok")
                                   : names(run.violated) + " violated")
          << (run.reproduced ? " (reproduced)" : "") << ", " << outcome.result.history.events.size()
          << " events\n";
    }
    c.runs.push_back(run);
    if (outcome.interrupted) {
      c.interrupted = true;
      break;
    }
  }
  return c;
}
#endif  // LOCKSTEP_HAVE_REAL_ETCD

}  // namespace lockstep::cli
