// The expansion of a user's request (RunRequest: algorithm, seed, clients, members, fault
// classes) into a RealRunConfig, like expand_run_request() does for the simulator.
//
// Differences, because real processes are not simulated ones:
//   - fault classes the real backend does not support are refused (the message lists them);
//   - the random schedule draws only targets the backend can hit: no `resource` process, and
//     with --endpoints no members (clients only);
//   - clock faults drawn for a member hit a client instead (member clocks are not ours);
//   - the liveness bound defaults to the lock's lease TTL + 10 s (20 s without a TTL) instead
//     of the simulator's 60 s, so that a real run with faults does not idle for a minute.
//
// And of its TLS and login options (etcdctl's names) into the clients' security settings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lockstep/real_run/run_config.h"
#include "lockstep/harness/run_request.h"
#include "lockstep/real_etcd/etcd_client_options.h"

namespace lockstep {

// Fills `out`; returns an error message naming the bad field, or empty.
std::string expand_real_run_request(const RunRequest& request, const RealBackendOptions& backend,
                                    RealRunConfig& out);

// `lockstep run --backend etcd`'s TLS and login options as the user wrote them; empty: not
// given.
struct RealSecurityArgs {
  std::string cacert;  // --cacert FILE: the CA that verifies the members (PEM)
  std::string cert;    // --cert FILE: client certificate (PEM), needs --key
  std::string key;     // --key FILE: its private key (PEM), needs --cert
  std::string user;    // --user NAME or NAME:PASSWORD

  bool any() const { return !cacert.empty() || !cert.empty() || !key.empty() || !user.empty(); }
};

// The variable --user NAME (without ":PASSWORD") takes the password from, so that it is not
// on the command line (shell history, `ps`).
inline constexpr const char* kEtcdPasswordEnv = "LOCKSTEP_ETCD_PASSWORD";

// Checks `args` against the run's --endpoints and fills `out` (TLS on when any of --cacert,
// --cert, --key is given). `password_from_env` is kEtcdPasswordEnv's value, if set. Returns
// one message naming the offending option, or empty. Refused: any of them without
// --endpoints (the local cluster lockstep starts is plain http without users); --cert
// without --key or the reverse; a file that does not exist, cannot be read or holds no PEM
// block; TLS options with an endpoint written http://; an empty user name; --user NAME with
// no password anywhere.
std::string expand_real_security(const RealSecurityArgs& args,
                                 const std::vector<std::string>& endpoints,
                                 const std::optional<std::string>& password_from_env,
                                 real::EtcdClientSecurity& out);

}  // namespace lockstep
