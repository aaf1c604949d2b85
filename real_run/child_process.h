// ChildProcess: a command lockstep starts and talks to (an external lock client): `/bin/sh -c
// COMMAND` in a process group of its own, its stdin and stdout connected to lockstep, its
// stderr read by lockstep too.
//
// Contract:
//   - start() forks and execs; the child gets the parent's environment plus `extra_env`, is
//     killed if the starting thread ends (PR_SET_PDEATHSIG: start from a thread that outlives
//     the process), and leads its own process group, so that a signal reaches every process
//     the command starts (the shell's children too) and a Ctrl-C at the terminal reaches only
//     lockstep.
//   - stdin is a socket: writing to a child that has exited gives an error, never SIGPIPE.
//     close_stdin() sends end-of-file.
//   - stop()/resume() send SIGSTOP/SIGCONT to the group and wait until the child has stopped or
//     continued; kill() sends SIGKILL to the group and reaps the child. The destructor kills.
//   - The child is reaped by its pid only (waitpid(-1) would steal the statuses of the etcd
//     members the run also started).
// Not thread-safe: one thread owns a ChildProcess.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lockstep/kv/result.h"

namespace lockstep::real {

class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  Result<void> start(const std::string& command,
                     const std::vector<std::pair<std::string, std::string>>& extra_env);

  bool running() const { return pid_ > 0 && !exited_; }
  pid_t pid() const { return pid_; }
  int stdout_fd() const { return stdout_fd_; }  // non-blocking; -1 once closed
  int stderr_fd() const { return stderr_fd_; }  // non-blocking; -1 once closed
  void close_stdout();
  void close_stderr();

  // Writes all of `bytes` to the child's stdin (blocking). False if the child is gone.
  bool write_stdin(const std::string& bytes);
  void close_stdin();

  bool stop();
  bool resume();
  void kill();

  // Whether the child has exited (checked without waiting); its status, as words ("exited
  // with status 3", "killed by signal 9"), once it has.
  bool poll_exit();
  const std::string& exit_words() const { return exit_words_; }

 private:
  bool signal_and_wait(int signal, int waitpid_flag);
  void record_status(int status);

  pid_t pid_ = -1;
  int stdin_fd_ = -1, stdout_fd_ = -1, stderr_fd_ = -1;
  bool exited_ = false;
  std::string exit_words_;
};

}  // namespace lockstep::real
