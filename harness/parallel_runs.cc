#include "lockstep/harness/parallel_runs.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace lockstep {

int default_jobs() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

std::vector<RunResult> run_in_parallel(const std::vector<RunConfig>& configs, int jobs) {
  std::vector<RunResult> results(configs.size());
  const int threads = std::max(1, std::min<int>(jobs, static_cast<int>(configs.size())));
  if (threads == 1) {
    for (std::size_t i = 0; i < configs.size(); ++i) results[i] = run_simulation(configs[i]);
    return results;
  }
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < configs.size(); i = next++)
      results[i] = run_simulation(configs[i]);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return results;
}

}  // namespace lockstep
