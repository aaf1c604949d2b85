#include "lockstep/cli/bench_etcd.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "lockstep/cli/commands.h"
#ifdef LOCKSTEP_HAVE_REAL_ETCD
#include "lockstep/real_run/lock_bench.h"
#endif

namespace lockstep::cli {

#ifndef LOCKSTEP_HAVE_REAL_ETCD
int bench_etcd_main(const EtcdBenchArgs&) {
  std::cerr << "lockstep bench: this lockstep was built without the real etcd backend\n";
  return kExitBadInput;
}
#else
namespace {

// build/clients/go-mutex, where scripts/setup.sh builds it, beside build/<type>/lockstep.
std::string default_go_client() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return (self.parent_path().parent_path() / "clients" / "go-mutex").string();
}

}  // namespace

int bench_etcd_main(const EtcdBenchArgs& args) {
  const std::string go = args.go_client.empty() ? default_go_client() : args.go_client;
  const bool have_go = ::access(go.c_str(), X_OK) == 0;
  if (!args.go_client.empty() && !have_go) {
    std::cerr << "lockstep bench: --go-client " << go << " is not an executable (bash clients/build.sh DIR builds it)\n";
    return kExitBadInput;
  }
  if (!have_go)
    std::cerr << "lockstep bench: no go-mutex adapter at " << go
              << " (bash clients/build.sh build/clients builds it): lockstep's figures only\n";
  struct Row {
    std::string name;
    int clients;
    bool is_go;
    LockBenchResult r;
  };
  std::vector<Row> rows;
  for (int clients : {1, 3}) {
    LockBenchCase c;
    c.clients = clients;
    c.length = Duration(static_cast<std::int64_t>(std::llround(args.seconds * 1e9)));
    c.etcd_binary = args.etcd_bin;
    if (have_go) {
      c.algorithm = "etcd-mutex-3.4";  // what 3.4.23's Mutex is
      c.client_cmd = go;
      rows.push_back({"etcd Go Mutex 3.4.23", clients, true, run_lock_bench(c)});
      c.client_cmd.clear();
    }
    for (const char* algorithm : {"etcd-mutex", "etcd-mutex-synced-watch"}) {
      c.algorithm = algorithm;
      rows.push_back({std::string("lockstep ") + algorithm, clients, false, run_lock_bench(c)});
    }
  }
  for (const auto& row : rows)
    if (!row.r.error.empty()) {
      std::cerr << "lockstep bench: " << row.name << " with " << row.clients << " client(s): " << row.r.error << "\n";
      return kExitBadInput;
    }
  // Each lockstep row against the Go Mutex's row of the same number of clients.
  auto go_row = [&](int clients) -> const Row* {
    for (const auto& row : rows)
      if (row.is_go && row.clients == clients) return &row;
    return nullptr;
  };
  auto ratio_to_go = [&](const Row& row) -> double {
    const Row* go_same = go_row(row.clients);
    return go_same == nullptr ? 0 : row.r.cycles_per_second / std::max(go_same->r.cycles_per_second, 1e-9);
  };
  if (args.json) {
    nlohmann::json j = {{"format", "lockstep-bench-etcd"}, {"version", 1}, {"seconds", args.seconds}};
    for (const auto& row : rows) {
      nlohmann::json one = {{"lock", row.name},
                            {"clients", row.clients},
                            {"cycles", row.r.cycles},
                            {"cycles_per_second", row.r.cycles_per_second},
                            {"p50_ms", row.r.p50_ms},
                            {"p99_ms", row.r.p99_ms},
                            {"mutex_ok", row.r.mutex_ok}};
      if (!row.is_go && have_go) one["cycles_per_second_vs_go"] = ratio_to_go(row);
      j["cases"].push_back(std::move(one));
    }
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "lock+unlock cycles on a local 1-member etcd, " << args.seconds << " s per case\n"
            << std::left << std::setw(34) << "lock" << std::right << std::setw(8) << "clients"
            << std::setw(12) << "cycles/s" << std::setw(10) << "p50 ms" << std::setw(10) << "p99 ms"
            << "  mutex" << (have_go ? "  cycles/s vs Go" : "") << "\n";
  for (const auto& row : rows) {
    std::cout << std::left << std::setw(34) << row.name << std::right << std::setw(8) << row.clients
              << std::fixed << std::setprecision(1) << std::setw(12) << row.r.cycles_per_second
              << std::setprecision(2) << std::setw(10) << row.r.p50_ms << std::setw(10) << row.r.p99_ms
              << "  " << std::left << std::setw(5) << (row.r.mutex_ok ? "ok" : "VIOLATED") << std::right;
    if (have_go && !row.is_go) std::cout << "  " << std::setprecision(2) << ratio_to_go(row) << "x";
    std::cout << "\n";
  }
  return kExitOk;
}
#endif

}  // namespace lockstep::cli
