#include "lockstep/real_etcd/link_proxy.h"

#include "lockstep/kv/rng.h"
#include "lockstep/kv/tcp_retransmission.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

namespace lockstep::real {
namespace {

constexpr std::size_t kChunkBytes = 64 * 1024;
// A slowed direction stops reading from its sender beyond this, as a full path would.
constexpr std::size_t kMaxDelayedBytes = 4 * 1024 * 1024;

using Clock = std::chrono::steady_clock;

// When TCP next retransmits data first sent at `first` and unacknowledged since: the first
// moment at or after `now` that a cut's held bytes can get through once it healed (the
// schedule the simulator's links use too, kv/tcp_retransmission.h).
Clock::time_point next_retransmission(Clock::time_point first, Clock::time_point now) {
  const auto ns = [](Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  };
  return Clock::time_point(std::chrono::duration_cast<Clock::duration>(
      std::chrono::nanoseconds(next_tcp_retransmission_ns(ns(first), ns(now)))));
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Closes with an RST instead of a FIN: the dialer sees a refused/reset connection.
void close_with_reset(int fd) {
  linger l{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
  ::close(fd);
}

sockaddr_in loopback(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  return a;
}

// "0100007F:1F90": how /proc/net/tcp prints an IPv4 socket address.
std::string proc_net_address(const sockaddr_in& a) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%08X:%04X", static_cast<unsigned>(a.sin_addr.s_addr),
                static_cast<unsigned>(ntohs(a.sin_port)));
  return buf;
}

// The inode of the socket whose local address is `local` and remote address is `remote`.
std::uint64_t socket_inode(const sockaddr_in& local, const sockaddr_in& remote) {
  const std::string want_local = proc_net_address(local);
  const std::string want_remote = proc_net_address(remote);
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string sl, loc, rem, st, queues, timer, retr, uid, timeout;
    std::uint64_t inode = 0;
    if (!(f >> sl >> loc >> rem >> st >> queues >> timer >> retr >> uid >> timeout >> inode)) continue;
    if (loc == want_local && rem == want_remote) return inode;
  }
  return 0;
}

bool process_owns_socket(pid_t pid, std::uint64_t inode) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return false;
  const std::string want = "socket:[" + std::to_string(inode) + "]";
  bool found = false;
  char target[64];
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    const std::string path = dir + "/" + e->d_name;
    const ssize_t n = ::readlink(path.c_str(), target, sizeof(target) - 1);
    if (n <= 0) continue;
    if (want.compare(0, std::string::npos, target, static_cast<std::size_t>(n)) == 0) {
      found = true;
      break;
    }
  }
  ::closedir(d);
  return found;
}

}  // namespace

struct LinkProxy::Impl {
  struct Listener {
    int fd = -1;
    int port = 0;
    std::string dialer;  // empty: identify the member that dials
    std::string target;
    int target_port = 0;
  };
  // One direction of one connection: bytes read from `src` wait in `buf` until written to
  // `dst`.
  struct Flow {
    int src = -1;
    int dst = -1;
    std::string from, to;
    std::vector<char> buf;
    std::size_t off = 0;
    bool src_eof = false;
    bool dst_shut = false;
    // A cut as TCP sees it: when the first byte waited behind it, and, once it healed, the
    // retransmission that lets the held bytes through.
    std::optional<Clock::time_point> held_since;
    std::optional<Clock::time_point> release_at;
    // Chunks read through a slowdown, in order, each with the time it may be written.
    struct Delayed {
      Clock::time_point due;
      std::vector<char> bytes;
    };
    std::deque<Delayed> delayed;
    std::size_t delayed_bytes = 0;
    bool pending() const { return off < buf.size(); }
    bool in_flight() const { return pending() || !delayed.empty(); }
  };
  struct Slowdown {
    std::string from, to;
    std::chrono::nanoseconds delay{0};
    double loss_probability = 0;
    Rng rng;
  };
  struct Conn {
    int dialer_fd = -1;
    int target_fd = -1;
    Flow flows[2];
    bool dead = false;
  };

  std::mutex mu;
  int wake_read = -1;
  int wake_write = -1;
  bool stopping = false;
  std::vector<Listener> listeners;
  std::vector<std::unique_ptr<Conn>> conns;
  std::map<std::pair<std::string, std::string>, int> blocked;
  std::map<std::uint64_t, Slowdown> slowdowns;  // by handle
  std::uint64_t next_slowdown = 1;
  std::map<std::string, pid_t> pids;
  Stats stats;
  std::thread thread;

  ~Impl() {
    {
      std::lock_guard<std::mutex> g(mu);
      stopping = true;
    }
    wake();
    if (thread.joinable()) thread.join();
    for (auto& c : conns) close_conn(*c);
    for (auto& l : listeners) ::close(l.fd);
    if (wake_read >= 0) ::close(wake_read);
    if (wake_write >= 0) ::close(wake_write);
  }

  void wake() {
    const char b = 1;
    [[maybe_unused]] auto n = ::write(wake_write, &b, 1);
  }

  bool is_blocked(const Flow& f) const {
    auto it = blocked.find({f.from, f.to});
    return it != blocked.end() && it->second > 0;
  }

  bool is_slowed(const Flow& f) const {
    for (const auto& [handle, s] : slowdowns)
      if (s.from == f.from && s.to == f.to) return true;
    return false;
  }

  // When a chunk read now may be written: every slowdown's delay, plus TCP's retransmission
  // timeouts for each time a slowdown loses it, and never before the chunk ahead of it.
  Clock::time_point due_time(const Flow& f, Clock::time_point now) {
    std::chrono::nanoseconds wait{0};
    bool lost = false;
    for (auto& [handle, s] : slowdowns) {
      if (s.from != f.from || s.to != f.to) continue;
      wait += s.delay;
      std::int64_t rto_ns = kTcpMinRtoNs;
      while (s.loss_probability > 0 && s.rng.chance(s.loss_probability) && rto_ns <= kTcpMaxRtoNs) {
        wait += std::chrono::nanoseconds(rto_ns);
        rto_ns = 2 * rto_ns;
        lost = true;
      }
    }
    ++stats.chunks_slowed;
    if (lost) ++stats.chunks_lost;
    Clock::time_point due = now + std::chrono::duration_cast<Clock::duration>(wait);
    if (!f.delayed.empty()) due = std::max(due, f.delayed.back().due);
    return due;
  }

  static void close_conn(Conn& c) {
    if (c.dialer_fd >= 0) ::close(c.dialer_fd);
    if (c.target_fd >= 0) ::close(c.target_fd);
    c.dialer_fd = c.target_fd = -1;
    c.dead = true;
  }

  // Which known process owns the other end of `accepted` (a connection to listener `l`).
  std::string identify(int accepted, const Listener& l) {
    sockaddr_in peer{};
    socklen_t len = sizeof(peer);
    if (::getpeername(accepted, reinterpret_cast<sockaddr*>(&peer), &len) != 0) return {};
    // The dialer's socket: local = the peer address we see, remote = our listener.
    const std::uint64_t inode = socket_inode(peer, loopback(l.port));
    if (inode == 0) return {};
    for (const auto& [name, pid] : pids)
      if (pid > 0 && process_owns_socket(pid, inode)) return name;
    return {};
  }

  void accept_on(const Listener& l) {
    const int fd = ::accept4(l.fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    std::string dialer = l.dialer.empty() ? identify(fd, l) : l.dialer;
    if (dialer.empty()) {
      ++stats.connections_refused;
      close_with_reset(fd);
      return;
    }
    const int up = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    // Loopback connects finish at once (or are refused); the timeout only guards against a
    // full backlog of a stopped target.
    timeval tv{1, 0};
    ::setsockopt(up, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    const sockaddr_in to = loopback(l.target_port);
    if (up < 0 || ::connect(up, reinterpret_cast<const sockaddr*>(&to), sizeof(to)) != 0) {
      if (up >= 0) ::close(up);
      ++stats.connections_refused;
      close_with_reset(fd);
      return;
    }
    set_nonblocking(fd);
    set_nonblocking(up);
    // A link passes bytes on as they come: without TCP_NODELAY, Nagle's algorithm holds a small
    // write back until the last one is acknowledged, and with the peer's delayed ACK that is 40
    // ms added to a request here and there (etcd's and Go's gRPC set it on their own sockets).
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    ::setsockopt(up, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    auto c = std::make_unique<Conn>();
    c->dialer_fd = fd;
    c->target_fd = up;
    c->flows[0] = Flow{fd, up, dialer, l.target, {}, 0, false, false, std::nullopt, std::nullopt, {}, 0};
    c->flows[1] = Flow{up, fd, l.target, dialer, {}, 0, false, false, std::nullopt, std::nullopt, {}, 0};
    conns.push_back(std::move(c));
    ++stats.connections_accepted;
  }

  // Returns false when the connection broke.
  bool read_flow(Flow& f) {
    f.buf.resize(kChunkBytes);
    f.off = 0;
    const ssize_t n = ::read(f.src, f.buf.data(), f.buf.size());
    if (n > 0) {
      f.buf.resize(static_cast<std::size_t>(n));
      return true;
    }
    f.buf.clear();
    if (n == 0) {
      f.src_eof = true;
      ::shutdown(f.dst, SHUT_WR);
      f.dst_shut = true;
      return true;
    }
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
  }

  // Reads a chunk into a slowed flow's queue. Returns false when the connection broke.
  bool read_delayed(Flow& f, Clock::time_point now) {
    std::vector<char> bytes(kChunkBytes);
    const ssize_t n = ::read(f.src, bytes.data(), bytes.size());
    if (n > 0) {
      bytes.resize(static_cast<std::size_t>(n));
      f.delayed_bytes += bytes.size();
      f.delayed.push_back({due_time(f, now), std::move(bytes)});
      return true;
    }
    if (n == 0) {
      f.src_eof = true;  // the shutdown follows once the queue has drained
      return true;
    }
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
  }

  bool write_flow(Flow& f) {
    const ssize_t n = ::send(f.dst, f.buf.data() + f.off, f.buf.size() - f.off, MSG_NOSIGNAL);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    f.off += static_cast<std::size_t>(n);
    stats.bytes_forwarded += static_cast<std::uint64_t>(n);
    if (!f.pending()) {
      f.buf.clear();
      f.off = 0;
    }
    return true;
  }

  void run() {
    // probe: a blocked flow's source is watched (not read) for the first byte that waits.
    enum class What { wake, listener, read, read_delayed, write, probe };
    struct Slot {
      What what;
      std::size_t index;  // listener or connection
      int flow;
    };
    std::vector<pollfd> fds;
    std::vector<Slot> slots;
    for (;;) {
      fds.clear();
      slots.clear();
      int timeout_ms = 1000;
      {
        std::lock_guard<std::mutex> g(mu);
        const Clock::time_point now = Clock::now();
        if (stopping) return;
        fds.push_back({wake_read, POLLIN, 0});
        slots.push_back({What::wake, 0, 0});
        for (std::size_t i = 0; i < listeners.size(); ++i) {
          fds.push_back({listeners[i].fd, POLLIN, 0});
          slots.push_back({What::listener, i, 0});
        }
        for (std::size_t i = 0; i < conns.size(); ++i) {
          for (int k = 0; k < 2; ++k) {
            Flow& f = conns[i]->flows[k];
            if (is_blocked(f)) {
              f.release_at.reset();
              if (!f.held_since) {
                if (f.in_flight()) {
                  f.held_since = now;
                } else if (!f.src_eof) {
                  fds.push_back({f.src, POLLIN, 0});
                  slots.push_back({What::probe, i, k});
                }
              }
              continue;
            }
            if (f.held_since) {
              // Healed: what waited goes at TCP's next retransmission, and what came after
              // it waits behind it.
              if (!f.release_at) f.release_at = next_retransmission(*f.held_since, now);
              if (now < *f.release_at) {
                const auto wait = std::chrono::ceil<std::chrono::milliseconds>(*f.release_at - now);
                timeout_ms = std::min<int>(timeout_ms, static_cast<int>(wait.count()));
                continue;
              }
              f.held_since.reset();
              f.release_at.reset();
            }
            // A slowed flow: what was read waits in `delayed` until it is due, and reading
            // goes on meanwhile (the path holds many chunks at once).
            if (!f.pending() && !f.delayed.empty() && f.delayed.front().due <= now) {
              f.buf = std::move(f.delayed.front().bytes);
              f.off = 0;
              f.delayed_bytes -= f.buf.size();
              f.delayed.pop_front();
            }
            if (f.src_eof && !f.dst_shut && !f.in_flight()) {
              ::shutdown(f.dst, SHUT_WR);
              f.dst_shut = true;
            }
            const bool queueing = is_slowed(f) || !f.delayed.empty();
            if (f.pending()) {
              fds.push_back({f.dst, POLLOUT, 0});
              slots.push_back({What::write, i, k});
            } else if (!f.delayed.empty()) {
              const auto wait = std::chrono::ceil<std::chrono::milliseconds>(f.delayed.front().due - now);
              timeout_ms = std::min<int>(timeout_ms, std::max<int>(static_cast<int>(wait.count()), 0));
            }
            if (queueing) {
              if (!f.src_eof && f.delayed_bytes < kMaxDelayedBytes) {
                fds.push_back({f.src, POLLIN, 0});
                slots.push_back({What::read_delayed, i, k});
              }
            } else if (!f.pending() && !f.src_eof) {
              fds.push_back({f.src, POLLIN, 0});
              slots.push_back({What::read, i, k});
            }
          }
        }
      }
      const int n = ::poll(fds.data(), fds.size(), timeout_ms);
      if (n <= 0) continue;
      std::lock_guard<std::mutex> g(mu);
      if (stopping) return;
      const std::size_t listener_count = listeners.size();
      for (std::size_t j = 0; j < fds.size(); ++j) {
        if (fds[j].revents == 0) continue;
        const Slot& s = slots[j];
        if (s.what == What::wake) {
          char buf[64];
          while (::read(wake_read, buf, sizeof(buf)) > 0) {
          }
        } else if (s.what == What::listener) {
          if (s.index < listener_count) accept_on(listeners[s.index]);
        } else {
          Conn& c = *conns[s.index];
          if (c.dead) continue;
          Flow& f = c.flows[s.flow];
          if (s.what == What::probe) {
            if (!f.held_since) f.held_since = Clock::now();
            continue;
          }
          // A block that arrived while polling is in force from here on.
          if (is_blocked(f)) continue;
          // A slowdown that arrived while polling is in force from here on too.
          const bool delayed = s.what == What::read_delayed || (s.what == What::read && is_slowed(f));
          const bool ok = delayed ? read_delayed(f, Clock::now())
                          : s.what == What::read ? read_flow(f)
                                                 : write_flow(f);
          if (!ok || (fds[j].revents & POLLERR)) close_conn(c);
        }
      }
      for (auto& c : conns) {
        if (!c->dead && c->flows[0].src_eof && c->flows[1].src_eof && !c->flows[0].in_flight() &&
            !c->flows[1].in_flight())
          close_conn(*c);
      }
      std::erase_if(conns, [](const std::unique_ptr<Conn>& c) { return c->dead; });
    }
  }

  Result<int> add_listener(Listener l) {
    for (int attempt = 0; attempt < 16; ++attempt) {
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      if (fd < 0) return Error(ErrorCode::unavailable, std::string("socket(): ") + std::strerror(errno));
      const int one = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
      sockaddr_in a = loopback(0);
      socklen_t len = sizeof(a);
      if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || ::listen(fd, 128) != 0 ||
          ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        ::close(fd);
        return Error(ErrorCode::unavailable, std::string("link proxy: bind/listen: ") + std::strerror(errno));
      }
      const int port = ntohs(a.sin_port);
      if (port == 2379 || port == 2380) {  // the system etcd service's ports
        ::close(fd);
        continue;
      }
      l.fd = fd;
      l.port = port;
      {
        std::lock_guard<std::mutex> g(mu);
        listeners.push_back(l);
      }
      wake();
      return port;
    }
    return Error(ErrorCode::unavailable, "link proxy: no free port");
  }
};

Result<std::unique_ptr<LinkProxy>> LinkProxy::create() {
  auto impl = std::make_unique<Impl>();
  int p[2];
  if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
    return Error(ErrorCode::unavailable, std::string("link proxy: pipe: ") + std::strerror(errno));
  impl->wake_read = p[0];
  impl->wake_write = p[1];
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<LinkProxy>(new LinkProxy(std::move(impl)));
}

LinkProxy::LinkProxy(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LinkProxy::~LinkProxy() = default;

Result<int> LinkProxy::add_fixed_listener(const std::string& dialer, const std::string& target,
                                          int target_port) {
  Impl::Listener l;
  l.dialer = dialer;
  l.target = target;
  l.target_port = target_port;
  return impl_->add_listener(l);
}

Result<int> LinkProxy::add_member_listener(const std::string& target, int target_port) {
  Impl::Listener l;
  l.target = target;
  l.target_port = target_port;
  return impl_->add_listener(l);
}

void LinkProxy::set_pid(const std::string& process, pid_t pid) {
  std::lock_guard<std::mutex> g(impl_->mu);
  impl_->pids[process] = pid;
}

void LinkProxy::block(const std::string& from, const std::string& to) {
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    ++impl_->blocked[{from, to}];
  }
  impl_->wake();
}

void LinkProxy::unblock(const std::string& from, const std::string& to) {
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    auto it = impl_->blocked.find({from, to});
    if (it != impl_->blocked.end() && --it->second <= 0) impl_->blocked.erase(it);
  }
  impl_->wake();
}

std::uint64_t LinkProxy::slow(const std::string& from, const std::string& to,
                               std::chrono::nanoseconds delay, double loss_probability,
                               std::uint64_t seed) {
  std::uint64_t handle = 0;
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    handle = impl_->next_slowdown++;
    impl_->slowdowns.emplace(handle, Impl::Slowdown{from, to, delay, loss_probability, Rng(seed)});
  }
  impl_->wake();
  return handle;
}

void LinkProxy::unslow(std::uint64_t handle) {
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    impl_->slowdowns.erase(handle);
  }
  impl_->wake();
}

LinkProxy::Stats LinkProxy::stats() const {
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->stats;
}

}  // namespace lockstep::real
