// LinkProxy: loopback TCP forwarders between the processes of a real run, so that the runner
// can cut links between them (the `partition` fault) without root, iptables or any service.
//
// Model: every forwarded connection has a dialer and a target process ("client-0",
// "member-2"). Bytes from the dialer to the target flow in the direction dialer->target, the
// replies in target->dialer. block(from, to) holds every byte in the direction from->to on
// every connection between the two, existing and new, until unblock(): the proxy stops
// reading from the sending socket, so the data waits in kernel buffers and the sender sees a
// silent peer, as with packets dropped by a firewall (no reset, no refusal). After unblock the
// held bytes flow again when TCP would next retransmit them: 200 ms after the first byte
// waited, then doubling (up to 120 s), as with real packets dropped and resent; what the
// sender wrote after the heal waits behind them. TCP needs both directions, so a one-way block stalls the
// connections carrying it both ways at the transport level; the processes see only that
// their messages to the other side go nowhere.
//
// Listeners:
//   - add_fixed_listener(dialer, target, port): a port only `dialer` connects to (a client's
//     endpoint for one member).
//   - add_member_listener(target, port): a port every member dials (the peer URL a member
//     advertises). The dialer of each connection is found when it is accepted: the member
//     process (by pid, set_pid) that owns the connecting socket, looked up in /proc/net/tcp
//     and /proc/<pid>/fd. A connection from no known process is refused (closed at once).
//   - A target that refuses the upstream connection (a killed member) gets the accepted
//     connection closed, as the dialer would see a refused connection. A paused (SIGSTOPped)
//     target still completes connects (the kernel accepts into the backlog), like a real one.
//
// slow(from, to, delay, loss) makes the direction from->to a slow or lossy path, as netem
// would under TCP: each chunk read is forwarded `delay` later, and with `loss_probability` a
// chunk is lost and resent at TCP's retransmission timeouts (200 ms, then doubling), the bytes
// after it waiting behind it, since TCP delivers in order. Slowdowns on a link add up; a chunk
// keeps the time it was given when read. Bytes waiting in a slowdown count as sent: a cut that
// starts meanwhile holds them too.
//
// Threading: one internal thread forwards everything; the public methods are thread-safe.
// block()/unblock() return once the forwarding thread has seen the change, so the fault is
// in force on return. The destructor closes every socket and joins the thread.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "lockstep/kv/result.h"

namespace lockstep::real {

class LinkProxy {
 public:
  // Fails (unavailable) when the wake-up pipe cannot be made.
  static Result<std::unique_ptr<LinkProxy>> create();
  ~LinkProxy();
  LinkProxy(const LinkProxy&) = delete;
  LinkProxy& operator=(const LinkProxy&) = delete;

  // Each returns the new listener's port on 127.0.0.1 (a free one, never 2379/2380).
  Result<int> add_fixed_listener(const std::string& dialer, const std::string& target,
                                 int target_port);
  Result<int> add_member_listener(const std::string& target, int target_port);

  // The pid of a process that dials member listeners (0: not running).
  void set_pid(const std::string& process, pid_t pid);

  // Blocks bytes from `from` to `to`; blocks nest (a link is open again after as many
  // unblocks as blocks).
  void block(const std::string& from, const std::string& to);
  void unblock(const std::string& from, const std::string& to);

  // Returns a handle for unslow(). `seed` decides the losses.
  std::uint64_t slow(const std::string& from, const std::string& to, std::chrono::nanoseconds delay,
                     double loss_probability, std::uint64_t seed);
  void unslow(std::uint64_t handle);

  struct Stats {
    std::uint64_t connections_accepted = 0;
    std::uint64_t connections_refused = 0;  // unknown dialer or target down
    std::uint64_t bytes_forwarded = 0;
    std::uint64_t chunks_slowed = 0;   // chunks read while a slowdown was in force
    std::uint64_t chunks_lost = 0;     // of which lost at least once (resent later)
  };
  Stats stats() const;

 private:
  struct Impl;
  explicit LinkProxy(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lockstep::real
