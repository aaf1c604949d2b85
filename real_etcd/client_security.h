// Process-wide TLS and login defaults for EtcdKvClient, for a program whose clients all talk
// to one secured cluster: `lockstep run --backend etcd --endpoints https://... --cacert ...`
// sets them once, and every client of the run (workload clients, truth watcher, compaction,
// clean-up) picks them up without each having to be handed the files and the password.
//
// Contract:
//   - ScopedDefaultSecurity installs `security` as the defaults for its lifetime and restores
//     the previous ones when destroyed. Install it before the clients are created; clients
//     already created keep what they were created with.
//   - EtcdKvClient::create() calls apply_default_security(): options that name no TLS setting
//     and no user (tls.enabled false, no TLS file, empty username) take the defaults; options
//     that name any of them are used exactly as given.
//   - Thread-safe (clients are created on their own threads).
#pragma once

#include <string>

#include "real_etcd/etcd_client_options.h"

namespace lockstep::real {

// The security half of EtcdClientOptions.
struct EtcdClientSecurity {
  EtcdTlsOptions tls;
  std::string username;  // empty: no authentication
  std::string password;

  // No TLS setting and no user.
  bool empty() const {
    return !tls.enabled && tls.ca_file.empty() && tls.cert_file.empty() &&
           tls.key_file.empty() && username.empty();
  }
};

class ScopedDefaultSecurity {
 public:
  explicit ScopedDefaultSecurity(EtcdClientSecurity security);
  ~ScopedDefaultSecurity();
  ScopedDefaultSecurity(const ScopedDefaultSecurity&) = delete;
  ScopedDefaultSecurity& operator=(const ScopedDefaultSecurity&) = delete;

 private:
  EtcdClientSecurity previous_;
};

// See the contract above.
void apply_default_security(EtcdClientOptions& options);

}  // namespace lockstep::real
