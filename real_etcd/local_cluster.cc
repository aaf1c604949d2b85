#include "lockstep/real_etcd/local_cluster.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "etcdpb/rpc.grpc.pb.h"
#include "lockstep/real_etcd/channel_credentials.h"

extern char** environ;

namespace lockstep::real {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

}  // namespace

Result<std::string> find_etcd_binary(const std::string& requested) {
  const std::string name = requested.empty() ? "etcd" : requested;
  auto missing = [&](const std::string& where) {
    return Error(ErrorCode::unavailable,
                 "etcd binary '" + name + "' not found " + where +
                     "; install it with `apt-get install etcd-server` or give its path");
  };
  // access(X_OK) also holds for a directory, which exec then refuses with no log to show.
  auto executable_file = [](const std::string& candidate) {
    std::error_code ec;
    return fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    if (executable_file(name)) return name;
    return missing("(not an executable file)");
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + name;
    if (executable_file(candidate)) return candidate;
  }
  return missing("in PATH");
}

namespace {

// Free loopback ports, all held open together so they are distinct, then released for etcd.
// (Another process could grab one in between; etcd would then fail to start and say so.)
Result<std::vector<int>> free_ports(int count) {
  std::vector<int> fds;
  std::vector<int> ports;
  auto close_all = [&] {
    for (int fd : fds) ::close(fd);
  };
  while (static_cast<int>(ports.size()) < count) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      close_all();
      return Error(ErrorCode::unavailable, std::string("socket(): ") + std::strerror(errno));
    }
    fds.push_back(fd);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof(addr);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      close_all();
      return Error(ErrorCode::unavailable, std::string("bind(127.0.0.1:0): ") + std::strerror(errno));
    }
    const int port = ntohs(addr.sin_port);
    if (port == 2379 || port == 2380) continue;  // the system etcd service's ports
    ports.push_back(port);
  }
  close_all();
  return ports;
}

std::string temp_parent(const std::string& work_dir) {
  if (!work_dir.empty()) return work_dir;
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

}  // namespace

struct LocalCluster::Member {
  std::string name;
  int client_port = 0;
  int peer_port = 0;
  std::string address;   // 127.0.0.1:client_port (what probes dial)
  std::string endpoint;  // address, or https://address with client TLS (what clients dial)
  std::string advertised_peer_url;
  std::string data_dir;
  std::string log_file;
  pid_t pid = 0;
  bool paused = false;
};

// Synchronous gRPC probes of one member (health checks run outside any EventLoop).
struct LocalCluster::Probe {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<etcdserverpb::Maintenance::Stub> maintenance;
  std::unique_ptr<etcdserverpb::KV::Stub> kv;

  Probe(const std::string& address, const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 50);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 200);
    channel = grpc::CreateCustomChannel(address, credentials, args);
    maintenance = etcdserverpb::Maintenance::NewStub(channel);
    kv = etcdserverpb::KV::NewStub(channel);
  }

  // member_id and leader id, or nothing if the member does not answer in time.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> status(Duration deadline) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + deadline);
    etcdserverpb::StatusResponse resp;
    const grpc::Status s = maintenance->Status(&ctx, etcdserverpb::StatusRequest(), &resp);
    if (!s.ok()) {
      last_error = s.error_message();
      return {};
    }
    return std::make_pair(resp.header().member_id(), resp.leader());
  }
  std::string last_error;

  std::string move_leader(std::uint64_t target_id, Duration deadline) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + deadline);
    etcdserverpb::MoveLeaderRequest req;
    req.set_targetid(target_id);
    etcdserverpb::MoveLeaderResponse resp;
    const grpc::Status s = maintenance->MoveLeader(&ctx, req, &resp);
    return s.ok() ? std::string() : s.error_message();
  }

  bool linearizable_read(Duration deadline) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + deadline);
    etcdserverpb::RangeRequest req;
    req.set_key("lockstep-health");
    etcdserverpb::RangeResponse resp;
    return kv->Range(&ctx, req, &resp).ok();
  }
};

LocalCluster::LocalCluster(LocalClusterOptions options) : options_(std::move(options)) {}

Result<std::unique_ptr<LocalCluster>> LocalCluster::start(LocalClusterOptions options) {
  if (options.members < 1) {
    return Error(ErrorCode::invalid_argument, "local cluster: members must be >= 1");
  }
  auto binary = find_etcd_binary(options.etcd_binary);
  if (!binary) return binary.error();

  const LocalClusterTls& tls = options.client_tls;
  const bool with_tls = !tls.cert_file.empty();
  if (with_tls && tls.key_file.empty()) {
    return Error(ErrorCode::invalid_argument, "local cluster: client_tls.cert_file needs key_file");
  }
  if (!with_tls && (!tls.key_file.empty() || !tls.trusted_ca_file.empty() || tls.client_cert_auth)) {
    return Error(ErrorCode::invalid_argument,
                 "local cluster: client_tls options need client_tls.cert_file");
  }
  if (tls.client_cert_auth && tls.trusted_ca_file.empty()) {
    return Error(ErrorCode::invalid_argument,
                 "local cluster: client_tls.client_cert_auth needs trusted_ca_file");
  }
  EtcdTlsOptions probe_tls = tls.probe;
  probe_tls.enabled = with_tls;
  auto probe_credentials = make_channel_credentials(probe_tls, with_tls);
  if (!probe_credentials) return probe_credentials.error();

  std::unique_ptr<LocalCluster> cluster(new LocalCluster(std::move(options)));
  cluster->binary_ = binary.value();
  cluster->probe_credentials_ = std::move(probe_credentials.value());

  std::string pattern = temp_parent(cluster->options_.work_dir) + "/lockstep-etcd-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Error(ErrorCode::unavailable, "local cluster: cannot create a directory like '" +
                                             pattern + "': " + std::strerror(errno));
  }
  cluster->base_dir_ = pattern;
  cluster->cluster_token_ =
      "lockstep-" + std::to_string(::getpid()) + "-" + fs::path(pattern).filename().string();

  auto ports = free_ports(2 * cluster->options_.members);
  if (!ports) return ports.error();  // the destructor removes base_dir_
  for (int i = 0; i < cluster->options_.members; ++i) {
    auto m = std::make_unique<Member>();
    m->name = "m" + std::to_string(i);
    m->client_port = ports.value()[2 * i];
    m->peer_port = ports.value()[2 * i + 1];
    m->address = "127.0.0.1:" + std::to_string(m->client_port);
    m->endpoint = (with_tls ? "https://" : "") + m->address;
    m->data_dir = cluster->base_dir_ + "/" + m->name + ".etcd";
    m->log_file = cluster->base_dir_ + "/" + m->name + ".log";
    m->advertised_peer_url = "http://127.0.0.1:" + std::to_string(m->peer_port);
    if (cluster->options_.advertise_peer_url) {
      auto url = cluster->options_.advertise_peer_url(i, m->peer_port);
      if (!url) return url.error();
      m->advertised_peer_url = url.value();
    }
    cluster->members_.push_back(std::move(m));
  }
  for (int i = 0; i < cluster->size(); ++i) {
    auto launched = cluster->launch(i);
    if (!launched) return launched.error();
  }
  auto healthy = cluster->wait_healthy(cluster->options_.start_timeout);
  if (!healthy) return healthy.error();
  return cluster;
}

LocalCluster::~LocalCluster() {
  stop_all();
  if (!base_dir_.empty()) {
    std::error_code ec;
    fs::remove_all(base_dir_, ec);
  }
}

std::vector<std::string> LocalCluster::client_endpoints() const {
  std::vector<std::string> out;
  for (const auto& m : members_) out.push_back(m->endpoint);
  return out;
}

const std::string& LocalCluster::client_endpoint(int member) const {
  return members_.at(static_cast<std::size_t>(member))->endpoint;
}

pid_t LocalCluster::pid(int member) const {
  return members_.at(static_cast<std::size_t>(member))->pid;
}

bool LocalCluster::paused(int member) const {
  return members_.at(static_cast<std::size_t>(member))->paused;
}

const std::string& LocalCluster::data_dir(int member) const {
  return members_.at(static_cast<std::size_t>(member))->data_dir;
}

std::string LocalCluster::log_tail(int member, std::size_t max_bytes) const {
  std::ifstream in(members_.at(static_cast<std::size_t>(member))->log_file, std::ios::binary);
  if (!in) return {};
  std::stringstream s;
  s << in.rdbuf();
  std::string all = s.str();
  return all.size() > max_bytes ? all.substr(all.size() - max_bytes) : all;
}

Result<void> LocalCluster::check_index(int member) const {
  if (member < 0 || member >= size()) {
    return Error(ErrorCode::invalid_argument,
                 "local cluster: no member " + std::to_string(member) + " (size " +
                     std::to_string(size()) + ")");
  }
  return Result<void>::success();
}

Result<void> LocalCluster::launch(int index) {
  Member& m = *members_[static_cast<std::size_t>(index)];
  std::string initial_cluster;
  for (const auto& other : members_) {
    if (!initial_cluster.empty()) initial_cluster += ",";
    initial_cluster += other->name + "=" + other->advertised_peer_url;
  }
  const LocalClusterTls& tls = options_.client_tls;
  const std::string client_url = (tls.cert_file.empty() ? "http://" : "https://") + m.address;
  const std::string peer_url = "http://127.0.0.1:" + std::to_string(m.peer_port);
  std::vector<std::string> args = {
      binary_,
      "--name=" + m.name,
      "--data-dir=" + m.data_dir,
      "--listen-client-urls=" + client_url,
      "--advertise-client-urls=" + client_url,
      "--listen-peer-urls=" + peer_url,
      "--initial-advertise-peer-urls=" + m.advertised_peer_url,
      "--initial-cluster=" + initial_cluster,
      "--initial-cluster-state=new",  // ignored on restart: the data dir knows the cluster
      "--initial-cluster-token=" + cluster_token_,
      "--heartbeat-interval=" + std::to_string(options_.heartbeat_interval_ms),
      "--election-timeout=" + std::to_string(options_.election_timeout_ms),
      "--logger=zap",
      "--log-outputs=stderr",
  };
  if (!tls.cert_file.empty()) {
    args.push_back("--cert-file=" + tls.cert_file);
    args.push_back("--key-file=" + tls.key_file);
    if (!tls.trusted_ca_file.empty()) args.push_back("--trusted-ca-file=" + tls.trusted_ca_file);
    if (tls.client_cert_auth) args.push_back("--client-cert-auth");
  }
  for (const auto& extra : options_.extra_args) args.push_back(extra);

  // Everything the child needs is prepared before fork(): after fork in a multi-threaded
  // process (gRPC has threads) only async-signal-safe calls are allowed.
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // etcd also reads ETCD_* variables and refuses to start when they conflict with flags.
  std::vector<std::string> env_storage;
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "ETCD_", 5) != 0) env_storage.emplace_back(*e);
  }
  std::vector<char*> envp;
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  const int log_fd = ::open(m.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return Error(ErrorCode::unavailable,
                 "local cluster: cannot open log '" + m.log_file + "': " + std::strerror(errno));
  }
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(log_fd);
    if (null_fd >= 0) ::close(null_fd);
    return Error(ErrorCode::unavailable, std::string("fork(): ") + std::strerror(errno));
  }
  if (child == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(126);  // the parent died before prctl
    if (null_fd >= 0) ::dup2(null_fd, 0);
    ::dup2(log_fd, 1);
    ::dup2(log_fd, 2);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(log_fd);
  if (null_fd >= 0) ::close(null_fd);
  m.pid = child;
  m.paused = false;
  if (options_.on_launched) options_.on_launched(index, child);
  return Result<void>::success();
}

Result<void> LocalCluster::check_member_alive(int index) {
  Member& m = *members_[static_cast<std::size_t>(index)];
  if (m.pid == 0) return Result<void>::success();
  int status = 0;
  const pid_t r = ::waitpid(m.pid, &status, WNOHANG);
  if (r == 0) return Result<void>::success();
  m.pid = 0;
  m.paused = false;
  std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                    : WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                          : "ended";
  return Error(ErrorCode::unavailable, "local cluster: etcd member " + m.name + " " + how +
                                           "; log tail:\n" + log_tail(index));
}

Result<void> LocalCluster::wait_healthy(Duration max_wait) {
  const auto deadline = Clock::now() + max_wait;
  std::map<int, std::unique_ptr<Probe>> probes;
  std::string last_problem = "no member answered";
  for (;;) {
    if (options_.should_abort && options_.should_abort()) {
      return Error(ErrorCode::unavailable, "local cluster: interrupted while waiting for health");
    }
    bool all_ok = true;
    int reader = -1;
    for (int i = 0; i < size(); ++i) {
      auto alive = check_member_alive(i);
      if (!alive) return alive.error();
      const Member& m = *members_[static_cast<std::size_t>(i)];
      if (m.pid == 0 || m.paused) continue;
      auto& probe = probes[i];
      if (!probe) probe = std::make_unique<Probe>(m.address, probe_credentials_);
      auto st = probe->status(milliseconds(300));
      if (!st) {
        all_ok = false;
        last_problem = "member " + m.name + " does not answer Status: " + probe->last_error;
        // A fresh channel next time: one that failed to connect (etcd not listening yet)
        // can stay in TRANSIENT_FAILURE for ~10 s despite the backoff settings.
        probe.reset();
      } else if (st->second == 0) {
        all_ok = false;
        last_problem = "member " + m.name + " has no leader";
      } else if (reader < 0) {
        reader = i;
      }
    }
    if (all_ok && reader >= 0) {
      if (probes[reader]->linearizable_read(milliseconds(1000))) return Result<void>::success();
      last_problem = "a linearizable read through " + members_[static_cast<std::size_t>(reader)]->name + " failed";
    }
    if (Clock::now() >= deadline) {
      std::string logs;
      for (int i = 0; i < size(); ++i) logs += "\n--- " + members_[static_cast<std::size_t>(i)]->name + " log tail:\n" + log_tail(i, 800);
      return Error(ErrorCode::unavailable,
                   "local cluster: not healthy after " + std::to_string(to_ms(max_wait)) +
                       " ms (" + last_problem + ")" + logs);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Result<int> LocalCluster::leader(Duration max_wait) {
  const auto deadline = Clock::now() + max_wait;
  for (;;) {
    std::map<std::uint64_t, int> index_of_member_id;
    std::map<std::uint64_t, int> votes;  // leader id -> members that name it
    int answered = 0;
    for (int i = 0; i < size(); ++i) {
      const Member& m = *members_[static_cast<std::size_t>(i)];
      if (m.pid == 0 || m.paused) continue;
      Probe probe(m.address, probe_credentials_);
      auto st = probe.status(milliseconds(300));
      if (!st) continue;
      ++answered;
      index_of_member_id[st->first] = i;
      if (st->second != 0) ++votes[st->second];
    }
    for (const auto& [leader_id, count] : votes) {
      auto it = index_of_member_id.find(leader_id);
      if (count == answered && it != index_of_member_id.end()) return it->second;
    }
    if (Clock::now() >= deadline) {
      return Error(ErrorCode::no_leader, Outcome::definite,
                   "local cluster: the running members do not agree on a leader");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Result<int> LocalCluster::transfer_leadership(int to, Duration max_wait) {
  if (auto ok = check_index(to); !ok) return ok.error();
  const Member& target = *members_[static_cast<std::size_t>(to)];
  if (target.pid == 0 || target.paused)
    return Error(ErrorCode::invalid_argument, "transfer_leadership: member " + target.name + " is not running");
  auto from = leader(max_wait);
  if (!from) return from.error();
  if (from.value() == to)
    return Error(ErrorCode::invalid_argument, "transfer_leadership: member " + target.name + " already leads");
  Probe to_probe(target.address, probe_credentials_);
  auto target_status = to_probe.status(milliseconds(500));
  if (!target_status)
    return Error(ErrorCode::unavailable, "transfer_leadership: member " + target.name +
                                             " does not answer: " + to_probe.last_error);
  Probe leader_probe(members_[static_cast<std::size_t>(from.value())]->address, probe_credentials_);
  const std::string err = leader_probe.move_leader(target_status->first, max_wait);
  if (!err.empty()) return Error(ErrorCode::unavailable, "transfer_leadership: " + err);
  return from.value();
}

Result<void> LocalCluster::pause(int member) {
  if (auto ok = check_index(member); !ok) return ok;
  Member& m = *members_[static_cast<std::size_t>(member)];
  if (m.pid == 0) return Error(ErrorCode::invalid_argument, "pause: member " + m.name + " is not running");
  if (m.paused) return Result<void>::success();
  ::kill(m.pid, SIGSTOP);
  // Signals are asynchronous: wait until the kernel reports the child stopped, so the fault
  // is in force when pause() returns.
  auto changed = wait_for_state(member, WUNTRACED);
  if (!changed) return changed;
  m.paused = true;
  return Result<void>::success();
}

Result<void> LocalCluster::resume(int member) {
  if (auto ok = check_index(member); !ok) return ok;
  Member& m = *members_[static_cast<std::size_t>(member)];
  if (m.pid == 0) return Error(ErrorCode::invalid_argument, "resume: member " + m.name + " is not running");
  if (!m.paused) return Result<void>::success();
  ::kill(m.pid, SIGCONT);
  auto changed = wait_for_state(member, WCONTINUED);
  if (!changed) return changed;
  m.paused = false;
  return Result<void>::success();
}

Result<void> LocalCluster::wait_for_state(int member, int waitpid_flag) {
  Member& m = *members_[static_cast<std::size_t>(member)];
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(m.pid, &status, waitpid_flag);
    if (r < 0 && errno == EINTR) continue;
    if (r == m.pid && (WIFSTOPPED(status) || WIFCONTINUED(status))) {
      return Result<void>::success();
    }
    // It exited (or was already reaped) instead.
    m.pid = 0;
    m.paused = false;
    return Error(ErrorCode::unavailable,
                 "local cluster: etcd member " + m.name + " ended; log tail:\n" + log_tail(member));
  }
}

Result<void> LocalCluster::kill(int member) {
  if (auto ok = check_index(member); !ok) return ok;
  if (pid(member) == 0) return Error(ErrorCode::invalid_argument, "kill: member is not running");
  terminate(member, SIGKILL);
  return Result<void>::success();
}

Result<void> LocalCluster::stop(int member) {
  if (auto ok = check_index(member); !ok) return ok;
  if (pid(member) == 0) return Error(ErrorCode::invalid_argument, "stop: member is not running");
  terminate(member, SIGTERM);
  return Result<void>::success();
}

Result<void> LocalCluster::restart(int member) {
  if (auto ok = check_index(member); !ok) return ok;
  if (pid(member) != 0) return Error(ErrorCode::invalid_argument, "restart: member is still running");
  auto launched = launch(member);
  if (!launched) return launched;
  return wait_healthy(options_.start_timeout);
}

Result<void> LocalCluster::relaunch(int member) {
  if (auto ok = check_index(member); !ok) return ok;
  if (pid(member) != 0) return Error(ErrorCode::invalid_argument, "relaunch: member is still running");
  return launch(member);
}

int LocalCluster::peer_port(int member) const {
  return members_.at(static_cast<std::size_t>(member))->peer_port;
}

void LocalCluster::terminate(int index, int signal_number) {
  Member& m = *members_[static_cast<std::size_t>(index)];
  if (m.pid == 0) return;
  ::kill(m.pid, signal_number);
  if (m.paused) ::kill(m.pid, SIGCONT);  // a stopped process only acts on SIGKILL
  const auto deadline = Clock::now() + options_.stop_timeout;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(m.pid, &status, WNOHANG);
    if (r == m.pid || (r < 0 && errno == ECHILD)) break;
    if (Clock::now() >= deadline) {
      ::kill(m.pid, SIGKILL);
      while (::waitpid(m.pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  m.pid = 0;
  m.paused = false;
}

void LocalCluster::stop_all() {
  if (options_.kill_on_stop) {
    for (int i = 0; i < size(); ++i) {
      if (pid(i) != 0) ::kill(pid(i), SIGKILL);
    }
    for (int i = 0; i < size(); ++i) terminate(i, SIGKILL);
    return;
  }
  // Measured here (3 members, etcd 3.4): a leader that gets SIGTERM while a follower is up
  // hands leadership over and exits in ~100 ms; a leader (or candidate) whose peers are
  // already gone takes over 5 s; followers exit in milliseconds; SIGTERM to all at once can
  // take 7 s. So: repeatedly stop the current leader while it still has a live peer to hand
  // over to, then the rest.
  for (;;) {
    int running_count = 0;
    for (int i = 0; i < size(); ++i) running_count += pid(i) != 0 ? 1 : 0;
    if (running_count <= 1) break;
    auto l = leader(milliseconds(500));
    if (!l) break;
    terminate(l.value(), SIGTERM);
  }
  for (int i = 0; i < size(); ++i) {
    Member& m = *members_[static_cast<std::size_t>(i)];
    if (m.pid == 0) continue;
    ::kill(m.pid, SIGTERM);
    if (m.paused) ::kill(m.pid, SIGCONT);  // a stopped process only acts on SIGKILL
  }
  // terminate() signals again (harmless) and waits, with SIGKILL after stop_timeout.
  for (int i = 0; i < size(); ++i) terminate(i, SIGTERM);
}

}  // namespace lockstep::real
