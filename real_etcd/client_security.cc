#include "real_etcd/client_security.h"

#include <mutex>
#include <utility>

namespace lockstep::real {
namespace {

std::mutex& defaults_mutex() {
  static std::mutex mu;
  return mu;
}

EtcdClientSecurity& defaults() {
  static EtcdClientSecurity d;
  return d;
}

}  // namespace

ScopedDefaultSecurity::ScopedDefaultSecurity(EtcdClientSecurity security) {
  std::lock_guard<std::mutex> g(defaults_mutex());
  previous_ = std::exchange(defaults(), std::move(security));
}

ScopedDefaultSecurity::~ScopedDefaultSecurity() {
  std::lock_guard<std::mutex> g(defaults_mutex());
  defaults() = std::move(previous_);
}

void apply_default_security(EtcdClientOptions& options) {
  const EtcdClientSecurity own{options.tls, options.username, options.password};
  if (!own.empty()) return;
  std::lock_guard<std::mutex> g(defaults_mutex());
  options.tls = defaults().tls;
  options.username = defaults().username;
  options.password = defaults().password;
}

}  // namespace lockstep::real
