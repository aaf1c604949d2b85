// lockstep bench [--json]: named speed figures of the simulator and the checker (see
// bench/sim_bench.h and bench/checker_bench.h). A benchmark, not a test: it prints figures and
// exits 0 (2 on bad options).
#include <filesystem>
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "lockstep/bench/checker_bench.h"
#include "lockstep/bench/sim_bench.h"
#include "lockstep/cli/bench_etcd.h"
#include "lockstep/cli/commands.h"

namespace lockstep::cli {

namespace {

// The options given of `options`, as "--a, --b" (empty: none).
std::string given(std::initializer_list<const CLI::Option*> options) {
  std::string names;
  for (const CLI::Option* o : options)
    if (o->count() > 0) names += (names.empty() ? "" : ", ") + o->get_name();
  return names;
}

struct BenchArgs {
  bool json = false;
  std::uint64_t seeds = 20;
  double kv_seconds = 60;
  int kv_clients = 16;
  int kv_runs = 5;
  std::string checker_data;
  bool no_checker = false;
  std::string backend = "sim";
  EtcdBenchArgs etcd;
};

int bench_main(const BenchArgs& args) {
  if (args.backend == "etcd") {
    EtcdBenchArgs etcd = args.etcd;
    etcd.json = args.json;
    return bench_etcd_main(etcd);
  }
  SimBenchOptions o;
  o.standard_seeds = args.seeds;
  o.kv_simulated_seconds = args.kv_seconds;
  o.kv_clients = args.kv_clients;
  o.kv_runs = args.kv_runs;
  // Checked before the simulator's figures, which take a while: an empty or wrong directory
  // would otherwise give checker figures of 0 files.
  const std::string dir = args.checker_data.empty() ? default_checker_data_dir() : args.checker_data;
  if (!args.no_checker && !std::filesystem::is_regular_file(dir + "/expected.tsv")) {
    std::cerr << "lockstep bench: no checker data in " << dir
              << " (expected the Porcupine histories with their expected.tsv; give "
                 "--checker-data DIR or --no-checker)\n";
    return kExitBadInput;
  }
  if (!args.no_checker)
    if (auto err = checker_data_error(dir); !err.empty()) {
      std::cerr << "lockstep bench: " << err << "\n";
      return kExitBadInput;
    }
  std::vector<BenchFigure> figures = run_sim_bench(o);
  if (!args.no_checker)
    for (auto& f : run_checker_bench(dir, nullptr)) figures.push_back(std::move(f));
  if (args.json) {
    nlohmann::json j = {{"format", "lockstep-bench"}, {"version", 1}};
    j["figures"] = nlohmann::json::object();
    for (const auto& f : figures) j["figures"][f.name] = {{"value", f.value}, {"unit", f.unit}};
    std::cout << j.dump(2) << "\n";
  } else {
    for (const auto& f : figures)
      std::cout << std::left << std::setw(34) << f.name << std::right << std::setw(16)
                << std::setprecision(6) << f.value << " " << f.unit << "\n";
  }
  return kExitOk;
}

}  // namespace

void add_bench_command(CLI::App& app, CommandSet& commands) {
  auto a = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand("bench", "Print speed figures of the simulator and the checker");
  cmd->add_flag("--json", a->json, "Print the figures as JSON");
  auto* seeds = cmd->add_option("--seeds", a->seeds, "Standard-scenario seeds to time")
      ->transform(unsigned_integer())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{100000}))
      ->capture_default_str();
  auto* kv_seconds = cmd->add_option("--kv-seconds", a->kv_seconds, "Simulated seconds of the KV load")
      ->check(finite_between(1, 86400))
      ->capture_default_str();
  auto* kv_clients = cmd->add_option("--kv-clients", a->kv_clients, "Clients of the KV load, each with one request in flight")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  auto* kv_runs = cmd->add_option("--kv-runs", a->kv_runs,
                  "Runs of the KV load, plain and recorded in turn; its figures are their medians")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  auto* checker_data = cmd->add_option("--checker-data", a->checker_data,
                  "Porcupine test data for the checker figures (default: the source tree's)")
      ->check(non_empty());
  auto* no_checker = cmd->add_flag("--no-checker", a->no_checker, "Skip the checker figures");
  no_checker->excludes(checker_data);  // the data would not be read
  cmd->add_option("--backend", a->backend,
                  "sim: the simulator's and checker's figures; etcd: lock+unlock cycles on a local "
                  "real etcd, lockstep's etcd-mutex against etcd's Go Mutex")
      ->check(CLI::IsMember({"sim", "etcd"}))
      ->capture_default_str();
  auto* etcd_seconds = cmd->add_option("--seconds", a->etcd.seconds, "With --backend etcd: seconds of load per case")
      ->check(finite_between(0.5, 3600))
      ->capture_default_str();
  auto* go_client = cmd->add_option("--go-client", a->etcd.go_client,
                  "With --backend etcd: the go-mutex adapter (default: build/clients/go-mutex)")
      ->check(non_empty());
  auto* etcd_bin = cmd->add_option("--etcd-bin", a->etcd.etcd_bin, "With --backend etcd: the etcd binary")
      ->check(non_empty());
  // An option of the other backend would be ignored: refused instead, as `run` does.
  cmd->callback([=, &commands] {
    const std::string sim_only = given({seeds, kv_seconds, kv_clients, kv_runs, checker_data, no_checker});
    const std::string etcd_only = given({etcd_seconds, go_client, etcd_bin});
    std::string refusal;
    if (a->backend == "etcd" && !sim_only.empty())
      refusal = sim_only + " time the simulator and the checker, not --backend etcd";
    else if (a->backend != "etcd" && !etcd_only.empty())
      refusal = etcd_only + (etcd_only.find(',') == std::string::npos ? " needs" : " need") +
                " --backend etcd";
    if (!refusal.empty()) {
      commands.action = [refusal] {
        std::cerr << "lockstep bench: " << refusal << "\n";
        return kExitBadInput;
      };
      return;
    }
    commands.action = [a] { return bench_main(*a); };
  });
}

}  // namespace lockstep::cli
