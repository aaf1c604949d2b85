#include "lockstep/kv/tcp_retransmission.h"

#include <catch2/catch.hpp>

namespace lockstep {
namespace {

constexpr std::int64_t kMs = 1'000'000;

TEST_CASE("a held segment goes out again at the first retransmission at or after a heal") {
  // Sent at 0: retransmissions at 200, 600, 1400, 3000 ms.
  CHECK(next_tcp_retransmission_ns(0, 0) == 200 * kMs);
  CHECK(next_tcp_retransmission_ns(0, 601 * kMs) == 1400 * kMs);
  CHECK(next_tcp_retransmission_ns(0, 1400 * kMs) == 1400 * kMs);
  // The timeout stops doubling at 120 s: after 0.2 + ... + 102.4 s = 204.6 s, every 120 s.
  CHECK(next_tcp_retransmission_ns(0, 204'600 * kMs + 1) == 324'600 * kMs);
  CHECK(next_tcp_retransmission_ns(0, 324'600 * kMs + 1) == 444'600 * kMs);
}

TEST_CASE("the transmission that reached the receiver is read back from the arrival") {
  // Arrived 1 ms after the fourth retransmission (sent + 0.2 + 0.4 + 0.8 + 1.6 s).
  const TcpTransmission t = last_tcp_transmission(10'000 * kMs, 13'001 * kMs);
  CHECK(t.at_ns == 13'000 * kMs);
  CHECK(t.after_rto_ns == 1'600 * kMs);
  // Before the first retransmission: the first sending, after no timeout.
  const TcpTransmission first = last_tcp_transmission(10'000 * kMs, 10'150 * kMs);
  CHECK(first.at_ns == 10'000 * kMs);
  CHECK(first.after_rto_ns == 0);
}

}  // namespace
}  // namespace lockstep
