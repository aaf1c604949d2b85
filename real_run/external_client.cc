#include "lockstep/real_run/external_client.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "lockstep/kv/rng.h"
#include "lockstep/kv/types.h"
#include "lockstep/real_run/child_process.h"
#include "lockstep/real_run/client_protocol.h"

namespace lockstep {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxLineBytes = 1 << 20;
constexpr std::size_t kMaxStderrBytes = 1 << 20;
constexpr Duration kTurn = milliseconds(5);  // longest wait for a command between reads

std::string shortened(const std::string& line) { return real::printable_client_line(line, 200); }

}  // namespace

struct ExternalClient::Driver {
  enum class Phase {
    hello,         // waiting for the answer to hello
    ready,         // waiting for start_workload
    idle,          // a cycle starts at wake_at
    acquiring,
    critical,      // the critical_section request is open: resource calls allowed
    holding,       // the hold after the critical section, until wake_at
    releasing,
    closing,       // stdin closed at the end of the run, waiting for the exit
    crashed,       // killed by a fault, until restart
    done,
  };

  ExternalClient& self;
  Rng rng;
  real::ChildProcess proc;
  int incarnation = 0;         // processes started so far
  std::int64_t lines_read = 0;  // of this process's stdout
  std::string out_buffer, err_buffer;
  Phase phase = Phase::hello;
  bool workload_started = false;
  bool stop_requested = false;
  bool paused = false;
  Clock::time_point paused_at;
  std::int64_t next_id = 1;
  std::int64_t open_id = 0;  // the request waiting for its answer, 0: none
  std::string open_request;  // its op, for messages
  Clock::time_point deadline, wake_at;
  bool shared = false;
  std::optional<std::int64_t> last_read;  // in this critical section
  std::int64_t cycles = 0;
  std::string failure;  // set once the client broke the protocol

  explicit Driver(ExternalClient& c) : self(c), rng(c.setup_.rng_seed) {}

  const ExternalClientSetup& setup() const { return self.setup_; }
  Duration local_now() const { return Duration(setup().log->true_now_ns()); }

  Result<void> spawn() {
    ++incarnation;
    lines_read = 0;
    out_buffer.clear();
    err_buffer.clear();
    std::string endpoints;
    for (const auto& e : setup().endpoints) endpoints += (endpoints.empty() ? "" : ",") + e;
    append_stderr("--- lockstep: process " + std::to_string(incarnation) + " of " + setup().name +
                  " started: " + setup().command + "\n");
    const real::EtcdClientSecurity& security = setup().security;
    std::vector<std::pair<std::string, std::string>> env = {
        {"LOCKSTEP_PROTOCOL", std::to_string(real::kClientProtocolVersion)},
        {"LOCKSTEP_CLIENT", setup().name},
        {"LOCKSTEP_ETCD_ENDPOINTS", endpoints},
        {"LOCKSTEP_KEY_PREFIX", setup().key_prefix},
        {"LOCKSTEP_LOCK_NAME", setup().lock_name}};
    if (security.tls.enabled) {
      env.emplace_back("LOCKSTEP_ETCD_TLS", "1");
      if (!security.tls.ca_file.empty()) env.emplace_back("LOCKSTEP_ETCD_CACERT", security.tls.ca_file);
      if (!security.tls.cert_file.empty()) env.emplace_back("LOCKSTEP_ETCD_CERT", security.tls.cert_file);
      if (!security.tls.key_file.empty()) env.emplace_back("LOCKSTEP_ETCD_KEY", security.tls.key_file);
    }
    if (!security.username.empty()) {
      env.emplace_back("LOCKSTEP_ETCD_USER", security.username);
      env.emplace_back("LOCKSTEP_ETCD_PASSWORD", security.password);
    }
    auto started = proc.start(setup().command, env);
    if (!started) return started;
    real::ClientHello hello;
    hello.client = setup().name;
    hello.endpoints = setup().endpoints;
    hello.key_prefix = setup().key_prefix;
    hello.lock_name = setup().lock_name;
    hello.options = setup().options;
    hello.tls = security.tls.enabled;
    hello.ca_file = security.tls.ca_file;
    hello.cert_file = security.tls.cert_file;
    hello.key_file = security.tls.key_file;
    hello.user = security.username;
    hello.password = security.password;
    phase = Phase::hello;
    send("hello", real::hello_line(next_id, hello), kOtherRequestTimeout);
    return Result<void>::success();
  }

  void append_stderr(const std::string& text) {
    std::lock_guard<std::mutex> g(self.mu_);
    self.stderr_text_ += text;
    if (self.stderr_text_.size() > kMaxStderrBytes)
      self.stderr_text_.erase(0, self.stderr_text_.size() - kMaxStderrBytes);
  }

  void send(const std::string& op, const std::string& line, Duration answer_within) {
    open_id = next_id++;
    open_request = op;
    deadline = Clock::now() + answer_within;
    // A client that has gone is noticed when its stdout ends; the write's failure says no more.
    (void)proc.write_stdin(line);
  }

  // The client broke the protocol: its open operation ends as `info`, its process is killed.
  void fail(const std::string& what) {
    if (!failure.empty()) return;
    failure = setup().name + ": " + what + " (its stderr is kept as " + setup().name + ".stderr)";
    setup().log->complete_open(setup().name, "bad client: " + what);
    proc.kill();
    phase = Phase::done;
  }

  std::string line_words(const std::string& line) const {
    return "line " + std::to_string(lines_read) + " of its output, " + shortened(line);
  }

  // --- The workload, one step at a time ------------------------------------------------------

  void start_cycle() {
    if (stop_requested ||
        (setup().workload.max_cycles_per_client > 0 && cycles >= setup().workload.max_cycles_per_client)) {
      proc.close_stdin();
      phase = Phase::closing;
      deadline = Clock::now() + kExitTimeout;
      return;
    }
    const auto& w = setup().workload;
    shared = setup().capabilities.shared_mode &&
             static_cast<std::int64_t>(rng.below(100)) < w.shared_percent;
    setup().log->invoke(setup().name, "acquire", {{"mode", shared ? "shared" : "exclusive"}}, local_now());
    phase = Phase::acquiring;
    send("acquire", real::acquire_line(next_id, shared, w.acquire_timeout), w.acquire_timeout + kAnswerGrace);
  }

  void think() {
    ++cycles;
    phase = Phase::idle;
    wake_at = Clock::now() + setup().workload.think_time;
  }

  void hold() {
    phase = Phase::holding;
    wake_at = Clock::now() + setup().workload.critical_section;
  }

  // Wakes a phase that waits for a time; fails a request whose answer is overdue.
  void on_time() {
    const auto now = Clock::now();
    if (phase == Phase::idle && now >= wake_at) {
      start_cycle();
    } else if (phase == Phase::holding && now >= wake_at) {
      setup().log->invoke(setup().name, "release", nullptr, local_now());
      phase = Phase::releasing;
      send("release", real::release_line(next_id), kOtherRequestTimeout);
    } else if (phase == Phase::closing && now >= deadline) {
      proc.kill();  // it had its chance to exit
      phase = Phase::done;
    } else if (open_id != 0 && now >= deadline) {
      fail("did not answer request " + std::to_string(open_id) + " (" + open_request + ") in time");
    }
  }

  static EventKind kind_of(real::AnswerType t) {
    return t == real::AnswerType::ok ? EventKind::ok
           : t == real::AnswerType::fail ? EventKind::fail
                                          : EventKind::info;
  }

  static nlohmann::json failure_json(const real::ClientAnswer& a) {
    nlohmann::json j = {{"error", a.type == real::AnswerType::fail ? "client_fail" : "client_info"}};
    if (!a.reason.empty()) j["message"] = a.reason;
    return j;
  }

  void on_answer(const real::ClientAnswer& a, const std::string& line) {
    if (a.id != open_id) {
      fail("answers request " + std::to_string(a.id) + ", but " +
           (open_id == 0 ? std::string("no request is open") : "the open request is " + std::to_string(open_id)) +
           ": " + line_words(line));
      return;
    }
    open_id = 0;
    const auto& name = setup().name;
    switch (phase) {
      case Phase::hello:
        if (a.type != real::AnswerType::ok) {
          fail("refused hello (" + a.reason + "): " + line_words(line));
        } else if (a.protocol != real::kClientProtocolVersion) {
          fail("answers hello with protocol " + (a.protocol ? std::to_string(*a.protocol) : std::string("(none)")) +
               ", lockstep speaks protocol " + std::to_string(real::kClientProtocolVersion) + ": " + line_words(line));
        } else {
          phase = workload_started ? Phase::idle : Phase::ready;
          wake_at = Clock::now();
        }
        return;
      case Phase::acquiring: {
        if (a.type != real::AnswerType::ok) {
          setup().log->complete(name, kind_of(a.type), failure_json(a), local_now());
          think();
          return;
        }
        nlohmann::json result = nlohmann::json::object();
        if (a.token) result["token"] = *a.token;
        if (a.key) {
          // Keys are recorded below the run's prefix, as the truth events record them.
          const bool under = a.key->rfind(setup().key_prefix, 0) == 0;
          result["key"] = escape_bytes(under ? a.key->substr(setup().key_prefix.size()) : *a.key);
        }
        if (a.lease) result["lease"] = *a.lease;
        setup().log->complete(name, EventKind::ok, std::move(result), local_now());
        if (setup().resource && setup().workload.use_resource) {
          phase = Phase::critical;
          last_read.reset();
          send("critical_section", real::critical_section_line(next_id, !shared), kOtherRequestTimeout);
        } else {
          hold();
        }
        return;
      }
      case Phase::critical:
        hold();  // whatever it says: the hold and the release follow, as in the workload
        return;
      case Phase::releasing:
        if (a.type == real::AnswerType::ok) {
          setup().log->complete(name, EventKind::ok, nullptr, local_now());
        } else {
          setup().log->complete(name, kind_of(a.type), failure_json(a), local_now());
        }
        think();
        return;
      default:
        fail("answers when no request is open: " + line_words(line));
    }
  }

  void on_call(const real::ResourceCall& c, const std::string& line) {
    if (phase != Phase::critical) {
      fail("calls the resource outside a critical section: " + line_words(line));
      return;
    }
    if (c.write && !last_read) {
      fail("writes the resource before reading it in this critical section: " + line_words(line));
      return;
    }
    if (c.write && shared) {
      fail("writes the resource while holding the lock in shared mode: " + line_words(line));
      return;
    }
    const auto& name = setup().name;
    const std::int64_t token = c.token.value_or(0);  // no token: 0, the lowest
    const std::int64_t base = c.write ? *last_read : 0;
    if (c.write) {
      setup().log->invoke(name, "write", {{"token", token}, {"base", base}, {"value", c.value}}, local_now());
    } else {
      setup().log->invoke(name, "read", {{"token", token}}, local_now());
    }
    const auto reply = setup().resource->serve(name, c.write, base, c.value, token);
    if (!reply.accepted) {
      setup().log->complete(name, EventKind::fail, {{"error", "rejected"}, {"message", reply.reason}}, local_now());
    } else if (c.write) {
      setup().log->complete(name, EventKind::ok, {{"order", reply.order}}, local_now());
    } else {
      last_read = reply.value;
      setup().log->complete(name, EventKind::ok, {{"value", reply.value}}, local_now());
    }
    (void)proc.write_stdin(real::resource_answer_line(c.write, reply.accepted, reply.value, reply.reason));
  }

  void on_line(const std::string& line) {
    ++lines_read;
    auto parsed = real::parse_client_line(line);
    if (!parsed) {
      fail(parsed.error().message + ": " + line_words(line));
      return;
    }
    if (const auto* a = std::get_if<real::ClientAnswer>(&parsed.value())) {
      on_answer(*a, line);
    } else {
      on_call(std::get<real::ResourceCall>(parsed.value()), line);
    }
  }

  // --- Reading -------------------------------------------------------------------------------

  // Reads what is there; false at end of file.
  static bool drain(int fd, std::string& into) {
    char chunk[4096];
    for (;;) {
      const ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n > 0) {
        into.append(chunk, static_cast<std::size_t>(n));
        if (into.size() > 4 * kMaxLineBytes) return true;  // a line this long fails below
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      return !(n == 0);
    }
  }

  // How long to wait for the client's output: until a phase that waits for a time is due (no
  // longer, so that a cycle with no hold or think time does not wait a turn at each step), and
  // at most a turn, so that commands (faults, stop) are seen promptly.
  int wait_ms() const {
    Duration wait = kTurn;
    if (!paused && (phase == Phase::idle || phase == Phase::holding)) {
      const auto due = std::chrono::duration_cast<Duration>(wake_at - Clock::now());
      wait = std::clamp(due, Duration(0), kTurn);
    }
    // Rounded up, so that a wait of 0.3 ms is not a busy loop of zero-millisecond polls.
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(wait).count();
    return static_cast<int>((us + 999) / 1000);
  }

  void drain_stderr() {
    if (proc.stderr_fd() < 0) return;
    const bool open = drain(proc.stderr_fd(), err_buffer);
    append_stderr(err_buffer);
    err_buffer.clear();
    if (!open) proc.close_stderr();
  }

  void read_output() {
    pollfd fds[2] = {{proc.stdout_fd(), POLLIN, 0}, {proc.stderr_fd(), POLLIN, 0}};
    if (::poll(fds, 2, wait_ms()) <= 0) return;
    if (proc.stderr_fd() >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) drain_stderr();
    if (proc.stdout_fd() < 0 || !(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) return;
    const bool open = drain(proc.stdout_fd(), out_buffer);
    std::size_t from = 0;
    for (std::size_t nl; failure.empty() && (nl = out_buffer.find('\n', from)) != std::string::npos; from = nl + 1)
      on_line(out_buffer.substr(from, nl - from));
    out_buffer.erase(0, from);
    if (failure.empty() && out_buffer.size() > kMaxLineBytes)
      fail("wrote a line longer than 1 MiB: " + line_words(out_buffer));
    if (!open) {
      proc.close_stdout();
      on_end_of_output();
    }
  }

  void on_end_of_output() {
    if (phase == Phase::crashed || phase == Phase::done || !failure.empty()) return;
    // Its exit status, if it exits soon (closing stdout usually means exiting).
    for (int i = 0; i < 50 && !proc.poll_exit(); ++i) ::usleep(10'000);
    const std::string how = proc.exit_words().empty() ? "closed its stdout" : proc.exit_words();
    if (phase == Phase::closing) {
      proc.kill();
      phase = Phase::done;
      return;
    }
    fail(how + (open_id != 0 ? " before answering request " + std::to_string(open_id) + " (" + open_request + ")"
                             : std::string(" while lockstep was still using it")));
  }
};

ExternalClient::ExternalClient(ExternalClientSetup setup) : setup_(std::move(setup)) {}

ExternalClient::~ExternalClient() {
  {
    std::lock_guard<std::mutex> g(mu_);
    quit_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

Result<void> ExternalClient::start() {
  std::promise<Result<void>> started;
  auto future = started.get_future();
  thread_ = std::thread([this, &started] { thread_main(&started); });
  return future.get();
}

void ExternalClient::thread_main(std::promise<Result<void>>* started) {
  Driver d(*this);
  bool told = false;
  auto tell = [&](Result<void> r) {
    if (!told) started->set_value(std::move(r));
    told = true;
  };
  if (auto spawned = d.spawn(); !spawned) {
    tell(Error(ErrorCode::unavailable, setup_.name + ": cannot start '" + setup_.command + "': " +
                                           spawned.error().message));
    std::lock_guard<std::mutex> g(mu_);
    ended_ = workload_done_ = true;
    return;
  }
  for (;;) {
    {
      std::unique_lock<std::mutex> g(mu_);
      while (!commands_.empty()) {
        auto [command, done] = std::move(commands_.front());
        commands_.pop_front();
        g.unlock();
        command(d);
        done->set_value();
        g.lock();
      }
      if (quit_) break;
    }
    if (d.proc.stdout_fd() >= 0 || d.proc.stderr_fd() >= 0) {
      d.read_output();
    } else {
      std::this_thread::sleep_for(kTurn);
    }
    if (d.failure.empty() && !d.paused) d.on_time();
    if (!told && d.failure.empty() && d.phase != Driver::Phase::hello) tell(Result<void>::success());
    std::lock_guard<std::mutex> g(mu_);
    if (!d.failure.empty() && !failure_) {
      failure_ = std::make_exception_ptr(BadClientError(d.failure));
      ended_ = true;
    }
    workload_done_ = workload_done_ || d.phase == Driver::Phase::done;
    if (!told && !d.failure.empty()) {
      tell(Error(ErrorCode::unavailable, d.failure));
    }
  }
  d.proc.kill();
  {
    std::lock_guard<std::mutex> g(mu_);
    ended_ = workload_done_ = true;
  }
  if (!d.err_buffer.empty()) d.append_stderr(d.err_buffer);
  tell(Error(ErrorCode::unavailable, setup_.name + ": stopped before it answered hello"));
}

bool ExternalClient::run_on_thread(Command command) {
  auto done = std::make_shared<std::promise<void>>();
  auto future = done->get_future();
  {
    std::lock_guard<std::mutex> g(mu_);
    if (ended_ || !thread_.joinable()) return false;
    commands_.emplace_back(std::move(command), done);
  }
  future.wait();
  return true;
}

bool ExternalClient::start_workload() {
  return run_on_thread([](Driver& d) {
    d.workload_started = true;
    if (d.phase == Driver::Phase::ready) {
      d.phase = Driver::Phase::idle;
      d.wake_at = Clock::now();
    }
  });
}

bool ExternalClient::pause() {
  return run_on_thread([](Driver& d) {
    if (d.paused || !d.proc.running()) return;
    d.paused = d.proc.stop();
    d.paused_at = Clock::now();
  });
}

bool ExternalClient::resume() {
  return run_on_thread([](Driver& d) {
    if (!d.paused) return;
    d.paused = false;
    (void)d.proc.resume();
    // The client's time stood still: so do its deadlines and the hold it was in.
    const auto stood = Clock::now() - d.paused_at;
    d.deadline += stood;
    d.wake_at += stood;
  });
}

bool ExternalClient::crash() {
  return run_on_thread([this](Driver& d) {
    if (d.phase == Driver::Phase::done || d.phase == Driver::Phase::crashed) return;
    d.proc.kill();
    // What the dead process wrote and lockstep has not read dies with it: an answer it sent
    // just before the kill belongs to the driver state the crash ends (its stderr is kept).
    d.drain_stderr();
    d.proc.close_stdout();
    d.proc.close_stderr();
    d.out_buffer.clear();
    d.paused = false;
    d.open_id = 0;
    setup_.log->complete_open(setup_.name, "crashed");
    d.phase = Driver::Phase::crashed;
  });
}

bool ExternalClient::restart() {
  return run_on_thread([this](Driver& d) {
    if (d.phase != Driver::Phase::crashed) return;
    if (d.stop_requested) {
      d.phase = Driver::Phase::done;
      return;
    }
    if (auto spawned = d.spawn(); !spawned) d.fail("cannot be started again: " + spawned.error().message);
  });
}

bool ExternalClient::request_stop() {
  return run_on_thread([](Driver& d) {
    d.stop_requested = true;
    if (d.phase == Driver::Phase::crashed || d.phase == Driver::Phase::ready) {
      d.proc.kill();
      d.phase = Driver::Phase::done;
    }
  });
}

bool ExternalClient::workload_done() {
  std::lock_guard<std::mutex> g(mu_);
  return workload_done_ || ended_;
}

std::exception_ptr ExternalClient::failure() {
  std::lock_guard<std::mutex> g(mu_);
  return failure_;
}

std::string ExternalClient::stderr_text() {
  std::lock_guard<std::mutex> g(mu_);
  return stderr_text_;
}

}  // namespace lockstep
