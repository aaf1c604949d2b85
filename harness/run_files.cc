#include "harness/run_files.h"

#include <fstream>
#include <sstream>

namespace lockstep {

namespace {
std::int64_t ms(Duration d) { return to_ms(d); }
}  // namespace

nlohmann::json run_config_to_json(const RunConfig& c) {
  nlohmann::json j;
  j["format"] = "lockstep-scenario";
  j["version"] = 1;
  j["seed"] = c.seed;
  j["algorithm"] = {{"name", c.algorithm}, {"options", c.algorithm_options}};
  j["lock_name"] = escape_bytes(c.lock_name);
  j["etcd"] = {{"members", c.etcd.members},
               {"heartbeat_interval_ms", ms(c.etcd.heartbeat_interval)},
               {"election_timeout_ms", ms(c.etcd.election_timeout)},
               {"min_lease_ttl_seconds", c.etcd.min_lease_ttl_seconds},
               {"lease_check_interval_ms", ms(c.etcd.lease_check_interval)},
               {"server_request_timeout_ms", ms(c.etcd.server_request_timeout)},
               {"max_txn_ops", c.etcd.max_txn_ops},
               {"lease_revoke_delay_ms", ms(c.etcd.lease_revoke_delay)}};
  j["network"] = {{"one_way_base_us", std::chrono::duration_cast<std::chrono::microseconds>(
                                          c.network.one_way_base).count()},
                  {"one_way_jitter_us", std::chrono::duration_cast<std::chrono::microseconds>(
                                            c.network.one_way_jitter).count()}};
  const auto& w = c.workload;
  j["workload"] = {{"clients", w.clients},
                   {"duration_ms", ms(w.duration)},
                   {"max_cycles_per_client", w.max_cycles_per_client},
                   {"critical_section_ms", ms(w.critical_section)},
                   {"think_time_ms", ms(w.think_time)},
                   {"acquire_timeout_ms", ms(w.acquire_timeout)},
                   {"try_retry_interval_ms", ms(w.try_retry_interval)},
                   {"drain_timeout_ms", ms(w.drain_timeout)},
                   {"request_timeout_ms", ms(w.request_timeout)}};
  j["fault_classes"] = c.fault_classes;
  j["faults"] = nlohmann::json::array();
  for (const auto& f : c.faults) j["faults"].push_back(sim::fault_to_json(f));
  j["checks"] = {"mutex"};
  return j;
}

std::string replay_command(const RunConfig& config) {
  std::ostringstream s;
  s << "lockstep run --algorithm " << config.algorithm << " --seed " << config.seed
    << " --clients " << config.workload.clients << " --duration "
    << to_seconds(config.workload.duration) << " --members " << config.etcd.members;
  if (!config.fault_classes.empty()) {
    std::string classes;
    for (const auto& c : config.fault_classes) classes += (classes.empty() ? "" : ",") + c;
    s << " --faults " << classes;
  }
  return s.str();
}

nlohmann::json verdict_to_json(const RunConfig& config, const RunResult& result) {
  nlohmann::json j;
  j["format"] = "lockstep-verdict";
  j["version"] = 1;
  j["verdict"] = result.all_ok() ? "ok" : "violated";
  j["algorithm"] = config.algorithm;
  j["seed"] = config.seed;
  j["history_hash"] = hash_hex(history_hash(result.history));
  j["events"] = static_cast<std::int64_t>(result.history.events.size());
  j["replay"] = replay_command(config);
  j["checks"] = nlohmann::json::array();
  for (const auto& c : result.checks) j["checks"].push_back(c.to_json());
  j["stats"] = {{"simulated_seconds", result.stats.simulated_seconds},
                {"events_run", result.stats.events_run},
                {"messages_sent", result.stats.messages_sent},
                {"messages_dropped", result.stats.messages_dropped}};
  return j;
}

std::string verdict_text(const RunConfig& config, const RunResult& result) {
  std::ostringstream s;
  s << config.algorithm << " seed " << config.seed << ": "
    << (result.all_ok() ? "OK" : "VIOLATED") << " (" << result.history.events.size()
    << " events, " << result.stats.simulated_seconds << " simulated seconds)\n";
  for (const auto& c : result.checks)
    s << "  " << c.name << ": " << check_status_name(c.status) << " - " << c.summary << "\n";
  s << "  history hash " << hash_hex(history_hash(result.history)) << "\n";
  s << "  replay: " << replay_command(config) << "\n";
  return s.str();
}

std::string write_run_directory(const std::filesystem::path& dir, const RunConfig& config,
                                const RunResult& result, bool overwrite) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot create output directory " + dir.string() + ": " + ec.message();
  const char* names[] = {"history.jsonl", "verdict.json", "scenario.json"};
  if (!overwrite) {
    for (const char* name : names)
      if (std::filesystem::exists(dir / name))
        return (dir / name).string() +
               " already exists; choose another --out directory or pass --force to overwrite";
  }
  auto write = [&](const char* name, const std::string& text) -> std::string {
    const auto path = dir / name;
    const auto tmp = dir / (std::string(name) + ".tmp");
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) return "cannot write " + tmp.string();
      out << text;
      if (!out.flush()) return "cannot write " + tmp.string();
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) return "cannot write " + path.string() + ": " + ec.message();
    return {};
  };
  std::ostringstream history;
  write_history_jsonl(history, result.history);
  if (auto err = write("history.jsonl", history.str()); !err.empty()) return err;
  if (auto err = write("verdict.json", verdict_to_json(config, result).dump(2) + "\n"); !err.empty())
    return err;
  if (auto err = write("scenario.json", run_config_to_json(config).dump(2) + "\n"); !err.empty())
    return err;
  return {};
}

}  // namespace lockstep
