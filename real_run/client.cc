#include "lockstep/real_run/client.h"

#include <chrono>

#include "lockstep/harness/recording_kv_client.h"
#include "lockstep/harness/workload.h"
#include "lockstep/real_etcd/etcd_kv_client.h"
#include "lockstep/real_etcd/event_loop.h"
#include "lockstep/real_etcd/keep_alive_dropper.h"
#include "lockstep/real_etcd/prefixed_kv_client.h"
#include "lockstep/real_etcd/real_node_context.h"

namespace lockstep {

namespace {
// How long one turn of the client's loop may run before it looks at its commands: the
// latency of a fault on this client.
constexpr Duration kTurn = milliseconds(5);
}  // namespace

struct RealClient::State {
  real::EventLoop loop;
  std::unique_ptr<real::EtcdKvClient> grpc;
  std::unique_ptr<real::PrefixedKvClient> prefixed;
  std::unique_ptr<real::KeepAliveDropper> dropper;
  std::unique_ptr<RecordingKvClient> recording;  // what the node's calls go through
  std::unique_ptr<real::RealNodeContext> node;
  std::unique_ptr<Lock> lock;
  std::unique_ptr<ProtectedResource> resource;
  std::shared_ptr<ClientStop> stop = std::make_shared<ClientStop>();
  SpawnHandle workload;
  bool paused = false;
  bool started = false;

  // Everything that runs on the loop dies before the loop (and the clients before the node's
  // KvClient references them).
  void kill_tasks() {
    workload = SpawnHandle();
    lock.reset();
    if (node) node->crash();
    resource.reset();
  }
  ~State() {
    kill_tasks();
    node.reset();
    dropper.reset();
    prefixed.reset();
    grpc.reset();
  }
};

RealClient::RealClient(RealClientSetup setup) : setup_(std::move(setup)) {}

RealClient::~RealClient() {
  {
    std::lock_guard<std::mutex> g(mu_);
    quit_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Result<void> RealClient::start() {
  // Shared: the thread may still be inside set_value() when get() returns.
  auto started = std::make_shared<std::promise<Result<void>>>();
  auto future = started->get_future();
  thread_ = std::thread([this, started] { thread_main(started.get()); });
  return future.get();
}

void RealClient::thread_main(std::promise<Result<void>>* started) {
  auto state = std::make_unique<State>();
  {
    real::EtcdClientOptions options;
    options.endpoints = setup_.endpoints;
    options.call_deadline = setup_.call_deadline;
    options.set_security(setup_.security);
    auto grpc = real::EtcdKvClient::create(state->loop, options);
    if (!grpc) {
      {
        std::lock_guard<std::mutex> g(mu_);
        ended_ = true;
      }
      started->set_value(grpc.error());
      return;
    }
    state->grpc = std::move(grpc.value());
  }
  state->prefixed = std::make_unique<real::PrefixedKvClient>(*state->grpc, setup_.key_prefix);
  state->dropper =
      std::make_unique<real::KeepAliveDropper>(state->loop, *state->prefixed, setup_.call_deadline);
  RealHistoryLog* log = setup_.log;
  {
    real::EtcdKvClient* grpc = state->grpc.get();
    std::vector<std::string> names =
        setup_.endpoint_names.empty() ? setup_.endpoints : setup_.endpoint_names;
    const std::string name = setup_.name;
    state->recording = std::make_unique<RecordingKvClient>(
        *state->dropper,
        [grpc, names] {
          const std::size_t i = grpc->current_endpoint();
          return i < names.size() ? names[i] : "endpoint-" + std::to_string(i);
        },
        [log, name](const std::string& op, nlohmann::json args) {
          if (log != nullptr) log->client_event(name, op, std::move(args));
        });
  }
  state->node = std::make_unique<real::RealNodeContext>(
      state->loop, setup_.name, *state->recording, setup_.rng_seed,
      [log](std::string_view node, MonoTime at, std::string_view message) {
        log->trace(std::string(node), at.time_since_epoch(), std::string(message));
      });
  started->set_value(Result<void>::success());

  try {
    for (;;) {
      std::deque<std::pair<Command, std::shared_ptr<std::promise<void>>>> todo;
      {
        std::unique_lock<std::mutex> g(mu_);
        if (state->paused && commands_.empty() && !quit_) {
          cv_.wait(g, [this] { return !commands_.empty() || quit_; });
        }
        if (quit_) break;
        todo.swap(commands_);
      }
      for (auto& [command, done] : todo) {
        command(*state);
        done->set_value();
      }
      if (state->paused) continue;
      const auto t0 = std::chrono::steady_clock::now();
      state->loop.run_for(kTurn);
      if (std::chrono::steady_clock::now() - t0 < kTurn / 2) {
        // Nothing was pending (e.g. the workload ended): wait for a command instead of
        // spinning.
        std::unique_lock<std::mutex> g(mu_);
        cv_.wait_for(g, kTurn, [this] { return !commands_.empty() || quit_; });
      }
    }
  } catch (...) {
    std::lock_guard<std::mutex> g(mu_);
    failure_ = std::current_exception();
  }
  std::deque<std::pair<Command, std::shared_ptr<std::promise<void>>>> abandoned;
  {
    std::lock_guard<std::mutex> g(mu_);
    ended_ = true;
    abandoned.swap(commands_);
  }
  for (auto& [command, done] : abandoned) done->set_value();  // callers see ended_ after
  state.reset();
}

bool RealClient::run_on_thread(Command command) {
  auto done = std::make_shared<std::promise<void>>();
  auto future = done->get_future();
  {
    std::lock_guard<std::mutex> g(mu_);
    if (ended_ || !thread_.joinable()) return false;
    commands_.emplace_back(std::move(command), done);
  }
  cv_.notify_all();
  future.wait();
  std::lock_guard<std::mutex> g(mu_);
  return !ended_;
}

bool RealClient::start_workload() {
  return run_on_thread([this](State& s) {
    if (s.started) return;
    s.started = true;
    s.lock = setup_.algorithm->make(*s.node, setup_.lock_setup);
    if (setup_.algorithm->capabilities.guarded_writes || setup_.resource == nullptr) {
      s.resource = std::make_unique<GuardedEtcdResource>(*s.dropper, setup_.guarded_data_key);
    } else {
      s.resource = std::make_unique<RealResourceClient>(*setup_.resource, setup_.name);
    }
    s.workload = s.node->spawn(run_lock_client(s.node.get(), s.lock.get(), s.resource.get(),
                                               setup_.log, setup_.workload, s.stop),
                               "workload");
  });
}

bool RealClient::pause() {
  return run_on_thread([](State& s) { s.paused = true; });
}

bool RealClient::resume() {
  return run_on_thread([](State& s) { s.paused = false; });
}

bool RealClient::crash() {
  return run_on_thread([this](State& s) {
    s.kill_tasks();
    s.started = false;
    setup_.log->complete_open(setup_.name, "crashed");
  });
}

bool RealClient::restart() {
  // A restarted process starts over: a new lock object and workload (the stop flag stays).
  return start_workload();
}

bool RealClient::jump_clock(Duration delta, bool monotonic, bool wall) {
  return run_on_thread([=](State& s) {
    if (monotonic) s.node->jump_monotonic(delta);
    if (wall) s.node->jump_wall(delta);
  });
}

bool RealClient::set_clock_rate(double rate, bool monotonic, bool wall) {
  return run_on_thread([=](State& s) {
    if (monotonic) s.node->set_monotonic_drift_rate(rate - 1.0);
    if (wall) s.node->set_wall_drift_rate(rate - 1.0);
  });
}

bool RealClient::set_lease_drop(bool dropping) {
  return run_on_thread([=](State& s) { s.dropper->set_dropping(dropping); });
}

bool RealClient::request_stop() {
  return run_on_thread([](State& s) { s.stop->requested = true; });
}

bool RealClient::workload_done() {
  bool done = true;
  if (!run_on_thread([&done](State& s) { done = !s.workload.active() || s.workload.done(); }))
    return true;
  return done;
}

std::exception_ptr RealClient::failure() {
  std::lock_guard<std::mutex> g(mu_);
  return failure_;
}

}  // namespace lockstep
