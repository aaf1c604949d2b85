// ExternalClient: one client of a real run that is someone's own lock code in a process of its
// own, driven through the client protocol (client_protocol.h, docs/external-clients.md).
//
// The workload is the in-process one's (harness/workload.cc), cycle for cycle: acquire (shared
// with the configured probability when the lock has a shared mode) with the acquire timeout;
// once granted, a critical section in which the client reads and writes the protected resource
// through lockstep; the critical section's hold; release; think time. The history records the
// same operations: acquire and release when lockstep asks, read and write when the client
// calls, each completed by its answer.
//
// Faults: pause stops the whole process group (SIGSTOP) and lockstep's driving of it with it,
// so that no request is sent to a stopped client and its hold and timeouts stand still; crash
// kills the group (its open operation ends as `info`), and restart starts a fresh process. A
// clock or lease-drop fault cannot reach another process: those calls return false (the run
// refuses those classes up front).
//
// A client that breaks the protocol (a line that is no protocol line, an answer to no open
// request, a resource call outside a critical section, exiting early, no answer in time) ends
// with failure() set to a BadClientError naming the client and the line; its open operation is
// closed as `info` and its process killed. Contract otherwise as RealClientControl's.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lockstep/algorithms/lock.h"
#include "lockstep/harness/run_config.h"
#include "lockstep/kv/result.h"
#include "lockstep/real_etcd/etcd_client_options.h"
#include "lockstep/real_run/client_control.h"
#include "lockstep/real_run/history_log.h"
#include "lockstep/real_run/resource.h"

namespace lockstep {

// An external client that broke the protocol: the run's verdict is "bad client", not a check's.
class BadClientError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ExternalClientSetup {
  std::string name;     // "client-0"
  std::string command;  // run by /bin/sh -c
  std::vector<std::string> endpoints;
  std::string key_prefix;
  std::string lock_name;  // the whole key, under key_prefix
  std::vector<std::pair<std::string, std::int64_t>> options;
  // TLS files and user for a cluster that asks for them (the run's --cacert, --cert, --key,
  // --user), passed on in the hello and the environment.
  real::EtcdClientSecurity security;
  LockCapabilities capabilities;  // of the algorithm the client implements
  WorkloadConfig workload;
  std::uint64_t rng_seed = 0;
  RealHistoryLog* log = nullptr;
  RealResourceService* resource = nullptr;
};

class ExternalClient final : public RealClientControl {
 public:
  // How long a client may take to answer, beyond what the request allows: an acquire has its
  // timeout plus this; every other request this alone. A paused client's clock stands still.
  static constexpr Duration kAnswerGrace = seconds(10);
  static constexpr Duration kOtherRequestTimeout = seconds(30);
  // After its stdin is closed at the end of the run, how long the client has to exit.
  static constexpr Duration kExitTimeout = seconds(10);

  explicit ExternalClient(ExternalClientSetup setup);
  ~ExternalClient() override;
  ExternalClient(const ExternalClient&) = delete;
  ExternalClient& operator=(const ExternalClient&) = delete;

  // Starts the process and waits until it has answered `hello`. Fails (naming the client) when
  // it cannot be started or breaks the protocol before answering.
  Result<void> start();

  const std::string& name() const override { return setup_.name; }
  bool start_workload() override;
  bool pause() override;
  bool resume() override;
  bool crash() override;
  bool restart() override;
  bool jump_clock(Duration, bool, bool) override { return false; }
  bool set_clock_rate(double, bool, bool) override { return false; }
  bool set_lease_drop(bool) override { return false; }
  bool request_stop() override;
  bool workload_done() override;
  std::exception_ptr failure() override;

  // Everything its processes wrote to stderr (the last MiB), with a line where each started.
  std::string stderr_text();

 private:
  struct Driver;  // lives on the client's thread
  using Command = std::function<void(Driver&)>;

  bool run_on_thread(Command command);
  void thread_main(std::promise<Result<void>>* started);

  ExternalClientSetup setup_;
  std::thread thread_;
  std::mutex mu_;
  std::deque<std::pair<Command, std::shared_ptr<std::promise<void>>>> commands_;
  bool quit_ = false;
  bool ended_ = false;
  bool workload_done_ = false;
  std::exception_ptr failure_;
  std::string stderr_text_;
};

}  // namespace lockstep
