#include "lockstep/real_run/run_request.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lockstep/harness/fault_schedule.h"
#include "lockstep/real_run/faults.h"
#include "lockstep/real_run/runner.h"

namespace lockstep {

std::string expand_real_run_request(const RunRequest& request, const RealBackendOptions& backend,
                                    RealRunConfig& out) {
  const bool local = backend.endpoints.empty();
  RunRequest sim_request = request;
  // The simulator's expansion validates the algorithm, its options and the fault class
  // names; with an existing cluster the member count only names members in faults.
  if (!local) sim_request.members = 1;
  RealRunConfig config;
  if (auto err = expand_run_request(sim_request, config.run); !err.empty()) return err;
  if (auto err = check_real_fault_classes(config.run.fault_classes, local, !backend.client_cmd.empty());
      !err.empty())
    return err;
  if (local) {
    config.run.etcd.members = request.members;
  } else {
    const auto n = static_cast<int>(backend.endpoints.size());
    config.run.etcd.members = n;
  }
  FaultGenOptions gen;
  gen.classes = config.run.fault_classes;
  gen.run_length = config.run.workload.duration;
  // No lease-scale faults on a real cluster: a 90 s pause is 90 s of wall time.
  gen.max_fault_duration = max_fault_duration(request, Duration(0));
  gen.clients = config.run.workload.clients;
  gen.members = local ? config.run.etcd.members : 0;
  gen.with_resource = false;  // the real resource is in-process, not a process to fault
  config.run.faults = generate_faults(Rng(config.run.seed).fork("faults"), gen);
  // Member clocks cannot be skewed on a real cluster: a clock fault drawn for member-m hits
  // client (m mod clients) instead, so the class is exercised rather than skipped.
  for (auto& f : config.run.faults) {
    if (f.kind != "clock") continue;
    for (auto& t : f.targets)
      if (t.rfind("member-", 0) == 0)
        t = "client-" + std::to_string(std::stoi(t.substr(7)) % config.run.workload.clients);
  }
  const Duration lease_ttl = lease_ttl_of(config.run.algorithm_options);
  config.run.liveness_bound = lease_ttl.count() > 0 ? lease_ttl + seconds(10) : seconds(20);
  config.backend = backend;
  if (auto err = validate_real_run_config(config); !err.empty()) return err;
  out = std::move(config);
  return {};
}

namespace {

// Empty if `path` (given as `option`) names a readable file holding a PEM block.
std::string check_pem_file(const char* option, const std::string& path) {
  namespace fs = std::filesystem;
  const std::string named = std::string(option) + " '" + path + "'";
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) return named + ": no such file";
  if (fs::is_directory(st)) return named + ": is a directory, expected a PEM file";
  std::ifstream in(path, std::ios::binary);
  if (!in) return named + ": cannot be read";
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().find("-----BEGIN ") == std::string::npos)
    return named + ": not a PEM file (no -----BEGIN line)";
  return {};
}

}  // namespace

std::string expand_real_security(const RealSecurityArgs& args,
                                 const std::vector<std::string>& endpoints,
                                 const std::optional<std::string>& password_from_env,
                                 real::EtcdClientSecurity& out) {
  real::EtcdClientSecurity security;
  if (!args.any()) {
    out = security;
    return {};
  }
  const char* first = !args.cacert.empty() ? "--cacert"
                      : !args.cert.empty() ? "--cert"
                      : !args.key.empty()  ? "--key"
                                           : "--user";
  if (endpoints.empty())
    return std::string(first) +
           " needs --endpoints: the local cluster lockstep starts serves plain http "
           "without users";
  if (!args.cert.empty() && args.key.empty())
    return "--cert needs --key (the client certificate's private key)";
  if (!args.key.empty() && args.cert.empty())
    return "--key needs --cert (the client certificate it belongs to)";
  const std::pair<const char*, const std::string*> files[] = {
      {"--cacert", &args.cacert}, {"--cert", &args.cert}, {"--key", &args.key}};
  for (const auto& [option, path] : files) {
    if (path->empty()) continue;
    if (auto err = check_pem_file(option, *path); !err.empty()) return err;
  }
  const bool tls = !args.cacert.empty() || !args.cert.empty();
  if (tls) {
    for (const auto& e : endpoints)
      if (e.rfind("http://", 0) == 0)
        return std::string(first) + " asks for TLS but endpoint '" + e +
               "' is plain http: write it https://" + e.substr(7);
    security.tls.enabled = true;
    security.tls.ca_file = args.cacert;
    security.tls.cert_file = args.cert;
    security.tls.key_file = args.key;
  }
  if (!args.user.empty()) {
    const auto colon = args.user.find(':');
    security.username = args.user.substr(0, colon);
    if (security.username.empty())
      return "--user: the user name is empty (expected NAME or NAME:PASSWORD)";
    if (colon != std::string::npos) {
      security.password = args.user.substr(colon + 1);
    } else if (password_from_env) {
      security.password = *password_from_env;
    } else {
      return "--user " + security.username + ": no password; give --user " +
             security.username + ":PASSWORD or set " + kEtcdPasswordEnv;
    }
  }
  out = std::move(security);
  return {};
}

}  // namespace lockstep
