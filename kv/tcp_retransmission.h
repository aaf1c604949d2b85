// TCP's retransmission schedule, the one fact about TCP that the simulated links, the real
// link proxy and the explanations all need: a segment unacknowledged since `first_ns` is sent
// again 200 ms later, then twice as far apart each time, at most 120 s apart (Linux's
// TCP_RTO_MIN and TCP_RTO_MAX). Bytes a cut link held get through at the first retransmission
// after the cut heals, not at the heal.
#pragma once

#include <algorithm>
#include <cstdint>

namespace lockstep {

constexpr std::int64_t kTcpMinRtoNs = 200'000'000;
constexpr std::int64_t kTcpMaxRtoNs = 120'000'000'000;

// The first retransmission at or after `now_ns` of a segment first sent at `first_ns`.
constexpr std::int64_t next_tcp_retransmission_ns(std::int64_t first_ns, std::int64_t now_ns) {
  std::int64_t rto_ns = kTcpMinRtoNs;
  std::int64_t at_ns = first_ns + rto_ns;
  while (at_ns < now_ns) {
    rto_ns = std::min(2 * rto_ns, kTcpMaxRtoNs);
    at_ns += rto_ns;
  }
  return at_ns;
}

// The last transmission at or before `at_ns` of a segment first sent at `first_ns` (the first
// sending or a retransmission), and the retransmission timeout that led to it (0 for the first
// sending): what got a lossy link's bytes through, read back from their arrival.
struct TcpTransmission {
  std::int64_t at_ns = 0;
  std::int64_t after_rto_ns = 0;
};
constexpr TcpTransmission last_tcp_transmission(std::int64_t first_ns, std::int64_t at_ns) {
  TcpTransmission last{first_ns, 0};
  std::int64_t rto_ns = kTcpMinRtoNs;
  while (last.at_ns + rto_ns <= at_ns) {
    last = {last.at_ns + rto_ns, rto_ns};
    rto_ns = std::min(2 * rto_ns, kTcpMaxRtoNs);
  }
  return last;
}

}  // namespace lockstep
