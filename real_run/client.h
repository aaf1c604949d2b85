// RealClient: one client process of a real run. It has its own thread, EventLoop, gRPC
// client (behind the run's key prefix and a keep-alive dropper), node context, lock and
// workload, so that a fault on it stops exactly this client, as it would a real process:
//   - pause(): the thread stops turning its loop until resume(): its tasks, timers and
//     keep-alives all stand still and gRPC completions queue up, as in a GC pause;
//   - crash()/restart(): its lock, resource stub and every task are destroyed (its open
//     operation is closed as `info` "crashed"); restart starts a fresh lock and workload;
//   - clock faults through its RealNodeContext; lease-drop through its KeepAliveDropper.
//
// Contract: commands are thread-safe; each runs on the client's thread between turns of its
// loop and returns once it ran (within ~5 ms), or returns false at once if the thread has
// ended. A bug in the client (an exception from a task) ends the thread; failure() returns
// it. The destructor stops the thread and destroys everything on it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lockstep/algorithms/registry.h"
#include "lockstep/real_run/client_control.h"
#include "lockstep/real_run/history_log.h"
#include "lockstep/real_run/resource.h"
#include "lockstep/harness/run_config.h"
#include "lockstep/kv/result.h"
#include "lockstep/real_etcd/etcd_client_options.h"

namespace lockstep {

struct RealClientSetup {
  std::string name;                    // "client-0"
  std::vector<std::string> endpoints;  // in the order this client tries them
  // What each endpoint is, for the history's call records: "member-1" on a cluster lockstep
  // started, else the endpoint itself. Empty: the endpoints.
  std::vector<std::string> endpoint_names;
  std::string key_prefix;
  Duration call_deadline = seconds(2);
  real::EtcdClientSecurity security;
  const AlgorithmInfo* algorithm = nullptr;
  LockSetup lock_setup;
  WorkloadConfig workload;
  std::uint64_t rng_seed = 0;
  RealHistoryLog* log = nullptr;
  // The in-process resource; unused when the algorithm keeps its data in etcd (guarded).
  RealResourceService* resource = nullptr;
  std::string guarded_data_key;
};

class RealClient final : public RealClientControl {
 public:
  explicit RealClient(RealClientSetup setup);
  ~RealClient();
  RealClient(const RealClient&) = delete;
  RealClient& operator=(const RealClient&) = delete;

  const std::string& name() const override { return setup_.name; }

  // Starts the thread and its gRPC client (not yet the workload). Fails when the client
  // cannot be created (bad endpoint).
  Result<void> start();
  bool start_workload() override;

  bool pause() override;
  bool resume() override;
  bool crash() override;
  bool restart() override;
  bool jump_clock(Duration delta, bool monotonic, bool wall) override;
  // rate: local seconds per real second (1.0 = nominal).
  bool set_clock_rate(double rate, bool monotonic, bool wall) override;
  bool set_lease_drop(bool dropping) override;
  bool request_stop() override;
  // True when the workload task has ended (or the thread has).
  bool workload_done() override;

  std::exception_ptr failure() override;

 private:
  struct State;  // lives on the client's thread
  using Command = std::function<void(State&)>;

  // Queues `command` and waits until it ran; false if the thread has ended.
  bool run_on_thread(Command command);
  void thread_main(std::promise<Result<void>>* started);

  RealClientSetup setup_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<Command, std::shared_ptr<std::promise<void>>>> commands_;
  bool quit_ = false;
  bool ended_ = false;
  std::exception_ptr failure_;
};

}  // namespace lockstep
