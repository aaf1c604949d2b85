#include "lockstep/real_run/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace lockstep::real {

namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

bool set_non_blocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  return flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

}  // namespace

ChildProcess::~ChildProcess() {
  kill();
  close_fd(stdin_fd_);
  close_fd(stdout_fd_);
  close_fd(stderr_fd_);
}

Result<void> ChildProcess::start(const std::string& command,
                                 const std::vector<std::pair<std::string, std::string>>& extra_env) {
  kill();
  close_fd(stdin_fd_);
  close_fd(stdout_fd_);
  close_fd(stderr_fd_);
  exited_ = false;
  exit_words_.clear();

  // Everything the child needs is prepared before fork(): after fork in a multi-threaded
  // process only async-signal-safe calls are allowed.
  std::string shell = "/bin/sh", dash_c = "-c", cmd = command;
  std::vector<char*> argv = {shell.data(), dash_c.data(), cmd.data(), nullptr};
  std::vector<std::string> env_storage;
  for (char** e = environ; e && *e; ++e) {
    bool replaced = false;
    for (const auto& [name, value] : extra_env)
      replaced = replaced || (std::strncmp(*e, name.c_str(), name.size()) == 0 && (*e)[name.size()] == '=');
    if (!replaced) env_storage.emplace_back(*e);
  }
  for (const auto& [name, value] : extra_env) env_storage.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  // stdin is a socket so that lockstep's writes use MSG_NOSIGNAL (no SIGPIPE from a child that
  // has gone); stdout and stderr are pipes.
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  auto close_all = [&] {
    for (int* p : {in, out, err})
      for (int i = 0; i < 2; ++i) close_fd(p[i]);
  };
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
      ::pipe2(err, O_CLOEXEC) != 0) {
    const std::string why = std::strerror(errno);
    close_all();
    return Error(ErrorCode::unavailable, "cannot make pipes for the client: " + why);
  }
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    const std::string why = std::strerror(errno);
    close_all();
    return Error(ErrorCode::unavailable, "fork(): " + why);
  }
  if (child == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(126);  // the parent died before prctl
    ::dup2(in[1], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(child, child);  // also here: whichever runs first, the group exists before a signal
  close_fd(in[1]);
  close_fd(out[1]);
  close_fd(err[1]);
  pid_ = child;
  stdin_fd_ = in[0];
  stdout_fd_ = out[0];
  stderr_fd_ = err[0];
  if (!set_non_blocking(stdout_fd_) || !set_non_blocking(stderr_fd_))
    return Error(ErrorCode::unavailable, std::string("fcntl(): ") + std::strerror(errno));
  return Result<void>::success();
}

void ChildProcess::close_stdout() { close_fd(stdout_fd_); }
void ChildProcess::close_stderr() { close_fd(stderr_fd_); }

bool ChildProcess::write_stdin(const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    if (stdin_fd_ < 0) return false;
    const ssize_t n = ::send(stdin_fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

void ChildProcess::close_stdin() {
  if (stdin_fd_ >= 0) ::shutdown(stdin_fd_, SHUT_WR);
}

bool ChildProcess::stop() { return signal_and_wait(SIGSTOP, WUNTRACED); }
bool ChildProcess::resume() { return signal_and_wait(SIGCONT, WCONTINUED); }

// Signals are asynchronous: wait until the kernel reports the child stopped (or continued), so
// that the fault is in force when this returns.
bool ChildProcess::signal_and_wait(int signal, int waitpid_flag) {
  if (!running()) return false;
  ::kill(-pid_, signal);
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, waitpid_flag);
    if (r < 0 && errno == EINTR) continue;
    if (r == pid_ && (WIFSTOPPED(status) || WIFCONTINUED(status))) return true;
    if (r == pid_) record_status(status);  // it exited instead
    return false;
  }
}

void ChildProcess::kill() {
  if (pid_ > 0 && !exited_) {
    ::kill(-pid_, SIGKILL);  // the group: the shell's children too
    for (;;) {
      int status = 0;
      const pid_t r = ::waitpid(pid_, &status, 0);
      if (r < 0 && errno == EINTR) continue;
      if (r == pid_) record_status(status);
      break;
    }
    exited_ = true;
  }
  close_fd(stdin_fd_);
}

bool ChildProcess::poll_exit() {
  if (pid_ <= 0 || exited_) return true;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_ && (WIFEXITED(status) || WIFSIGNALED(status))) {
    record_status(status);
    return true;
  }
  return false;
}

void ChildProcess::record_status(int status) {
  exited_ = true;
  // What the command started may outlive it in its group: end it too, now, while the group's
  // id cannot yet belong to anyone else.
  ::kill(-pid_, SIGKILL);
  if (WIFEXITED(status)) {
    exit_words_ = "exited with status " + std::to_string(WEXITSTATUS(status));
  } else if (WIFSIGNALED(status)) {
    exit_words_ = "killed by signal " + std::to_string(WTERMSIG(status));
  }
}

}  // namespace lockstep::real
