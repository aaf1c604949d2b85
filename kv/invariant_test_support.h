// For tests of LOCKSTEP_INVARIANT sites: runs `body` in a child process (a broken invariant
// aborts) and returns how the child ended and what it wrote on stderr.
#pragma once

#include <csignal>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace lockstep::testing {

struct ChildEnd {
  bool aborted = false;     // killed by SIGABRT
  bool exited_ok = false;   // ran `body` to the end
  std::string stderr_text;
};

template <typename Body>
ChildEnd run_in_child(Body body) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  const pid_t pid = ::fork();
  if (pid < 0) return {};
  if (pid == 0) {
    ::dup2(fds[1], 2);
    ::close(fds[0]);
    body();
    ::_exit(0);
  }
  ::close(fds[1]);
  ChildEnd end;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    end.stderr_text.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  end.aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
  end.exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return end;
}

}  // namespace lockstep::testing
