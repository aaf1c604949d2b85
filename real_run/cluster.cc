#include "lockstep/real_run/cluster.h"

#include "lockstep/real_etcd/endpoints.h"

namespace lockstep {

Result<std::unique_ptr<RealCluster>> RealCluster::open(const RealBackendOptions& options,
                                                       int members, int clients,
                                                       bool with_link_proxy,
                                                       const std::atomic<bool>* interrupt) {
  std::unique_ptr<RealCluster> c(new RealCluster());
  if (!options.endpoints.empty()) {
    if (auto ok = real::check_endpoints_allowed(options.endpoints, options.allow_remote); !ok)
      return ok.error();
    c->direct_ = options.endpoints;
    for (int i = 0; i < clients; ++i) c->per_client_.push_back(options.endpoints);
    return c;
  }
  if (with_link_proxy) {
    auto proxy = real::LinkProxy::create();
    if (!proxy) return proxy.error();
    c->proxy_ = std::move(proxy.value());
  }
  real::LocalClusterOptions lo;
  lo.members = members;
  lo.etcd_binary = options.etcd_binary;
  lo.work_dir = options.work_dir;
  lo.start_timeout = options.start_timeout;
  if (interrupt) lo.should_abort = [interrupt] { return interrupt->load(); };
  if (c->proxy_) {
    real::LinkProxy* proxy = c->proxy_.get();
    lo.advertise_peer_url = [proxy](int member, int peer_port) -> Result<std::string> {
      auto port = proxy->add_member_listener("member-" + std::to_string(member), peer_port);
      if (!port) return port.error();
      return "http://127.0.0.1:" + std::to_string(port.value());
    };
    lo.on_launched = [proxy](int member, pid_t pid) {
      proxy->set_pid("member-" + std::to_string(member), pid);
    };
  }
  auto started = real::LocalCluster::start(lo);
  if (!started) return started.error();
  c->cluster_ = std::move(started.value());
  c->direct_ = c->cluster_->client_endpoints();
  for (int i = 0; i < clients; ++i) {
    std::vector<std::string> mine;
    for (int m = 0; m < c->cluster_->size(); ++m) {
      if (!c->proxy_) {
        mine.push_back(c->direct_[static_cast<std::size_t>(m)]);
        continue;
      }
      const std::string& direct = c->direct_[static_cast<std::size_t>(m)];
      const int port = std::stoi(direct.substr(direct.rfind(':') + 1));
      auto listener = c->proxy_->add_fixed_listener("client-" + std::to_string(i),
                                                    "member-" + std::to_string(m), port);
      if (!listener) return listener.error();
      mine.push_back("127.0.0.1:" + std::to_string(listener.value()));
    }
    c->per_client_.push_back(std::move(mine));
  }
  return c;
}

RealCluster::~RealCluster() {
  cluster_.reset();
  proxy_.reset();
}

std::vector<std::string> RealCluster::client_endpoints(int client) const {
  const auto& all = per_client_.at(static_cast<std::size_t>(client));
  std::vector<std::string> out;
  for (std::size_t k = 0; k < all.size(); ++k)
    out.push_back(all[(static_cast<std::size_t>(client) + k) % all.size()]);
  return out;
}

std::vector<std::string> RealCluster::client_endpoint_names(int client) const {
  if (!cluster_) return client_endpoints(client);
  const std::size_t n = per_client_.at(static_cast<std::size_t>(client)).size();
  std::vector<std::string> out;
  for (std::size_t k = 0; k < n; ++k)
    out.push_back("member-" + std::to_string((static_cast<std::size_t>(client) + k) % n));
  return out;
}

}  // namespace lockstep
