// RealTruthWatcher: the store's truth for a real run, from a watch on the run's key prefix.
//
// The simulator reports every key change the moment a member applies it ("key-put" /
// "key-delete" truth events, process "etcd"). A real cluster cannot tell us that, but a watch
// sees the same changes in revision order, so this records them with the same args (key
// without the run's prefix, revision, create_revision, lease, value) when the watch delivers
// them: the order and revisions are exact, the true time is late by the watch's latency.
// Lease expiries are not visible (a revoke shows as key-delete without "lease_expired").
//
// Contract: start(first_revision) opens the watch on its own thread and EventLoop (reopening
// it on another endpoint after a member fails, from the next revision it needs). finish()
// writes a sentinel key under the prefix and waits until the watch delivered it, so every
// change before it is recorded; it gives up after `max_wait` and says so. Not recorded: the
// sentinel itself.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "lockstep/real_run/history_log.h"
#include "lockstep/kv/result.h"
#include "lockstep/kv/time.h"
#include "lockstep/real_etcd/etcd_client_options.h"

namespace lockstep {

class RealTruthWatcher {
 public:
  RealTruthWatcher(std::vector<std::string> endpoints, std::string key_prefix,
                   Duration call_deadline, real::EtcdClientSecurity security,
                   RealHistoryLog& log);
  ~RealTruthWatcher();

  // The revision the store is at now (a read through the prefix), for start().
  static Result<std::int64_t> current_revision(const std::vector<std::string>& endpoints,
                                               Duration call_deadline,
                                               const real::EtcdClientSecurity& security);

  void start(std::int64_t first_revision);
  // True when every change up to the sentinel was recorded.
  bool finish(Duration max_wait);
  std::int64_t events_recorded() const { return recorded_.load(); }

  static constexpr const char* kSentinelKey = "__lockstep_run_end";

 private:
  void thread_main(std::int64_t first_revision);

  std::vector<std::string> endpoints_;
  std::string prefix_;
  Duration call_deadline_;
  real::EtcdClientSecurity security_;
  RealHistoryLog& log_;
  std::thread thread_;
  std::atomic<bool> finish_requested_{false};
  std::atomic<bool> abandon_{false};
  std::atomic<bool> caught_up_{false};
  std::atomic<std::int64_t> recorded_{0};
};

}  // namespace lockstep
