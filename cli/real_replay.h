// A simulated failure tried on a real etcd: `lockstep replay FILE --backend etcd` (and, on
// the same mechanism, explore's and demo's --confirm-real).
//
// Contract: the scenario's workload and explicit fault schedule run in real time on a local
// etcd cluster of the scenario's size (1 or 3 members), or on given endpoints, `runs` times.
// Faults the real backend cannot apply are listed before the first run and skipped; the
// result says so. Each real run is judged by the same checks; a run *reproduces* the failure
// when a check the simulated replay violated is violated again. Fault start times are taken
// relative to the clients' start, as `run --backend etcd` does (docs/real-etcd.md says what
// jitter to expect). With an output directory, each real run keeps its files in
// DIR/real-1/, DIR/real-2/, ... and the summary goes into the scenario's own verdict.json
// (under "real_confirmation") and report.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lockstep/harness/scenario.h"
#include "lockstep/harness/sim_runner.h"

namespace lockstep::cli {

struct RealConfirmationArgs {
  int runs = 1;
  std::vector<std::string> endpoints;  // empty: a local cluster of the scenario's size
  std::string etcd_bin;                // local cluster: empty = etcd from PATH
  bool allow_remote = false;
  int members = 0;                     // a local cluster of this many members; 0: the scenario's
  // Faults on clients hit the client the scenario names, not the one that plays its role (the
  // k-th to first hold the lock, as in the simulated run).
  bool faults_by_name = false;
  // Non-empty: the clients are this command, external lock clients (docs/external-clients.md).
  std::string client_cmd;
};

struct RealConfirmation {
  std::string error;                      // could not run at all (bad input, no etcd)
  std::string etcd_version;               // "3.4.23", or empty when not known
  std::vector<std::string> simulated_violations;  // the checks the simulated replay violated
  std::vector<std::string> skipped_faults;        // described, in schedule order
  // The scenario's clients by role (the order they first held the lock in the simulated
  // replay) when faults on clients followed roles; empty when they hit the named clients.
  std::vector<std::string> client_roles;
  struct Run {
    std::vector<std::string> violated;  // the checks this real run violated
    bool reproduced = false;            // one of them is among simulated_violations
    bool unknown = false;               // a check could not decide
    std::string error;                  // the run could not be made
    std::string bad_client;             // an external client broke the protocol
    std::string dir;                    // where its files are, or empty
  };
  std::vector<Run> runs;
  bool interrupted = false;
  int reproduced() const;
  // "reproduced on etcd 3.4.23 in 3 of 5 runs (mutex violated in 3)"
  std::string summary() const;
  nlohmann::json to_json() const;
};

// Runs `scenario` on a real etcd as above, printing progress to `out`; `simulated` is the
// scenario's simulated run (its violated checks are the ones to reproduce). `out_dir` may be
// empty (nothing written); the caller has checked it may write there.
RealConfirmation confirm_on_real(const Scenario& scenario, const RunResult& simulated,
                                 const RealConfirmationArgs& args,
                                 const std::filesystem::path& out_dir, bool overwrite,
                                 std::ostream& out);

// Adds the confirmation to DIR/verdict.json (as "real_confirmation"); an error message or empty.
std::string add_real_confirmation(const std::filesystem::path& dir, const nlohmann::json& confirmation);

// --confirm-real N and --etcd-bin of a command that confirms its failures on a real etcd
// (`what` names them: "the shrunk failure").
void add_confirm_real_options(CLI::App& cmd, int& runs, std::string& etcd_bin, const std::string& what);

// Whether this lockstep was built with the real etcd backend.
bool real_backend_available();

// Why a local real cluster cannot be started with `etcd_bin` (empty: etcd from PATH): the
// binary is missing, or this lockstep was built without the backend; empty when it can.
// explore and demo --confirm-real check it before exploring (they once explored and shrunk
// for minutes and only then found no etcd).
std::string real_etcd_binary_problem(const std::string& etcd_bin);

// What is wrong with --confirm-real N and --etcd-bin PATH together, before any work: an
// --etcd-bin without --confirm-real (it would be ignored), or a binary that cannot be found
// for N > 0. Empty when nothing is.
std::string confirm_real_problem(int runs, const std::string& etcd_bin);

}  // namespace lockstep::cli
