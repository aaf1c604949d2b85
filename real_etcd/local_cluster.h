// LocalCluster: a real etcd cluster of child processes on 127.0.0.1, for tests and local runs.
//
// Contract:
//   - start() launches `members` etcd processes as children of this process, on free
//     loopback ports (never 2379/2380) with fresh data directories under one temporary base
//     directory, and returns once every member answers Maintenance.Status with a leader and a
//     linearizable Range succeeds. A missing binary, a member that exits, or a timeout is a
//     definite error whose message says what to do (and shows the member's log tail).
//   - Faults by member index: pause (SIGSTOP) / resume (SIGCONT), kill (SIGKILL), stop
//     (SIGTERM), restart (same data dir and ports). Each returns once the fault is in force
//     (stopped, continued, or exited and reaped).
//   - The destructor stops every member (followers first, then the leader: SIGTERM to all at
//     once can take 7 s while the leader tries to hand over; or SIGKILL with kill_on_stop),
//     waits for each by PID, and removes the base directory, whatever state it is in.
//   - Children get PR_SET_PDEATHSIG(SIGKILL), so they die with the thread that started them
//     even if this process crashes: start the cluster from a long-lived thread.
//   - With client_tls.cert_file set, members serve clients over TLS only (https client URLs,
//     optionally demanding client certificates); peers still talk plain http. The cluster's
//     own probes connect with client_tls.probe.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lockstep/kv/result.h"
#include "lockstep/kv/time.h"
#include "lockstep/real_etcd/etcd_client_options.h"

namespace grpc {
class ChannelCredentials;
}

namespace lockstep::real {

// Serving clients over TLS: etcd's --cert-file, --key-file, --trusted-ca-file and
// --client-cert-auth. All files are PEM.
struct LocalClusterTls {
  std::string cert_file;  // what members present to clients (must name 127.0.0.1); empty: http
  std::string key_file;
  std::string trusted_ca_file;    // the CA client certificates must chain to
  bool client_cert_auth = false;  // refuse clients without such a certificate
  // How the cluster's own probes (health, leader, MoveLeader) connect: the CA that signed
  // cert_file and, with client_cert_auth, a client certificate and key (TLS is implied).
  EtcdTlsOptions probe;
};

// The etcd binary a local cluster would run: `requested` when it names a path (it must be an
// executable regular file), else the first `requested` (empty: "etcd") in PATH; or an error
// saying it was not found and how to install it. Commands check it before any other work.
Result<std::string> find_etcd_binary(const std::string& requested);

struct LocalClusterOptions {
  int members = 1;
  std::string etcd_binary;  // empty: "etcd" from PATH
  std::string work_dir;     // parent of the temporary base directory; empty: $TMPDIR or /tmp
  Duration start_timeout = seconds(20);
  Duration stop_timeout = seconds(5);  // per member, then SIGKILL
  bool kill_on_stop = false;           // the destructor SIGKILLs instead of SIGTERM (tests)
  int heartbeat_interval_ms = 100;     // etcd's defaults
  int election_timeout_ms = 1000;
  std::vector<std::string> extra_args;  // appended to every member's command line
  // The peer URL member `member` advertises to the others, given the port it listens on for
  // peers (e.g. a LinkProxy listener in front of it, so links between members can be cut).
  // Unset: "http://127.0.0.1:<peer_port>". Called once per member, before any is launched.
  std::function<Result<std::string>(int member, int peer_port)> advertise_peer_url;
  // Called after every launch of a member process (start, restart, relaunch) with its pid,
  // before the member is waited for (e.g. so a LinkProxy can tell its connections apart).
  std::function<void(int member, pid_t pid)> on_launched;
  LocalClusterTls client_tls;  // default: plain http
  // Polled while waiting for health: returning true gives up at once (e.g. on Ctrl-C) with a
  // definite `cancelled`-style unavailable error; everything started is still cleaned up.
  std::function<bool()> should_abort;
};

class LocalCluster {
 public:
  static Result<std::unique_ptr<LocalCluster>> start(LocalClusterOptions options);
  ~LocalCluster();
  LocalCluster(const LocalCluster&) = delete;
  LocalCluster& operator=(const LocalCluster&) = delete;

  int size() const { return static_cast<int>(members_.size()); }
  // "127.0.0.1:port" per member, in member order ("https://127.0.0.1:port" with client TLS).
  std::vector<std::string> client_endpoints() const;
  const std::string& client_endpoint(int member) const;
  pid_t pid(int member) const;  // 0 when the member is not running
  bool running(int member) const { return pid(member) != 0; }
  bool paused(int member) const;
  const std::string& base_dir() const { return base_dir_; }
  const std::string& data_dir(int member) const;
  std::string log_tail(int member, std::size_t max_bytes = 2000) const;

  Result<void> pause(int member);
  Result<void> resume(int member);
  Result<void> kill(int member);
  Result<void> stop(int member);
  // Starts a member that is not running again (same data dir and ports) and waits until the
  // cluster is healthy.
  Result<void> restart(int member);
  // Starts a member that is not running again without waiting for anything (a fault
  // injector must not stall while the member catches up).
  Result<void> relaunch(int member);
  // The port member `member` itself listens on for peers.
  int peer_port(int member) const;

  // The leader hands leadership over to member `to` (etcd's MoveLeader); returns the index
  // of the member that led before. Fails when there is no agreed leader, `to` already
  // leads or is not running, or etcd refuses.
  Result<int> transfer_leadership(int to, Duration max_wait);

  // The index of the member the running, unpaused members agree is the leader.
  Result<int> leader(Duration max_wait);
  // Every running, unpaused member answers with a leader, and a linearizable read through
  // one of them succeeds.
  Result<void> wait_healthy(Duration max_wait);

  // What the destructor does; idempotent.
  void stop_all();

 private:
  struct Member;
  struct Probe;
  explicit LocalCluster(LocalClusterOptions options);

  Result<void> launch(int member);
  // SIGTERM (or SIGKILL), wait up to stop_timeout, then SIGKILL; always reaps.
  void terminate(int member, int signal_number);
  Result<void> check_member_alive(int member);
  // waitpid(WUNTRACED or WCONTINUED) until the member stopped or continued.
  Result<void> wait_for_state(int member, int waitpid_flag);
  Result<void> check_index(int member) const;

  LocalClusterOptions options_;
  std::string binary_;
  std::string base_dir_;
  std::string cluster_token_;
  std::vector<std::unique_ptr<Member>> members_;
  std::shared_ptr<grpc::ChannelCredentials> probe_credentials_;
};

}  // namespace lockstep::real
