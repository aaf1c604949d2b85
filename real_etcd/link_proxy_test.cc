// LinkProxy: bytes flow through it, a block holds one direction (and only it) until it is
// lifted, and with a real 3-member cluster behind it, cutting the leader off its peers makes
// the others elect a new leader: the proxy tells the members' connections apart.
#include "lockstep/real_etcd/link_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include <grpcpp/create_channel.h>

#include "etcdpb/rpc.grpc.pb.h"
#include "lockstep/real_etcd/local_cluster.h"

namespace lockstep::real {
namespace {

using SteadyClock = std::chrono::steady_clock;

// A listening socket on a free loopback port.
struct Listener {
  int fd = -1;
  int port = 0;
  Listener() {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
    REQUIRE(::listen(fd, 8) == 0);
    REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    port = ntohs(a.sin_port);
  }
  ~Listener() { ::close(fd); }
};

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
  return fd;
}

// Reads what arrives within `wait_ms` (at most 256 bytes).
std::string read_some(int fd, int wait_ms) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, wait_ms) <= 0) return {};
  char buf[256];
  const ssize_t n = ::read(fd, buf, sizeof(buf));
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

void send_text(int fd, const std::string& s) {
  REQUIRE(::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size()));
}

// A connection from client-0 to member-0 through a fresh proxy: the test writes on `client`
// and reads on `accepted` (the server's end), and the other way round.
struct ProxiedConnection {
  std::unique_ptr<LinkProxy> proxy;
  Listener server;
  int client = -1;
  int accepted = -1;
  ProxiedConnection() {
    auto made = LinkProxy::create();
    REQUIRE(made.ok());
    proxy = std::move(made.value());
    auto port = proxy->add_fixed_listener("client-0", "member-0", server.port);
    REQUIRE(port.ok());
    REQUIRE(port.value() != 2379);
    client = connect_to(port.value());
    accepted = ::accept(server.fd, nullptr, nullptr);
    REQUIRE(accepted >= 0);
  }
  ~ProxiedConnection() {
    ::close(client);
    ::close(accepted);
  }
};

TEST_CASE("link proxy: forwards both ways - and a block holds one direction until lifted") {
  ProxiedConnection c;
  LinkProxy& proxy = *c.proxy;
  const int client = c.client;
  const int accepted = c.accepted;

  send_text(client, "ping");
  REQUIRE(read_some(accepted, 2000) == "ping");
  send_text(accepted, "pong");
  REQUIRE(read_some(client, 2000) == "pong");

  proxy.block("client-0", "member-0");
  send_text(client, "held");
  CHECK(read_some(accepted, 300).empty());   // the blocked direction stays silent
  send_text(accepted, "still flows");
  CHECK(read_some(client, 2000) == "still flows");  // the other direction does not
  proxy.unblock("client-0", "member-0");
  CHECK(read_some(accepted, 2000) == "held");  // held, not lost

  // Blocks nest: two blocks need two unblocks.
  proxy.block("member-0", "client-0");
  proxy.block("member-0", "client-0");
  proxy.unblock("member-0", "client-0");
  send_text(accepted, "nested");
  CHECK(read_some(client, 300).empty());
  proxy.unblock("member-0", "client-0");
  CHECK(read_some(client, 2000) == "nested");
  CHECK(proxy.stats().connections_accepted == 1);
}

TEST_CASE("link proxy: a slowed direction delivers every chunk late and in order - the other is untouched") {
  ProxiedConnection c;
  LinkProxy& proxy = *c.proxy;
  const int client = c.client;
  const int accepted = c.accepted;

  const auto handle = proxy.slow("client-0", "member-0", std::chrono::milliseconds(300), 0, 1);
  const auto sent = SteadyClock::now();
  send_text(client, "slow");
  CHECK(read_some(accepted, 150).empty());  // not before its delay
  send_text(accepted, "fast");
  CHECK(read_some(client, 100) == "fast");  // the reply direction is not slowed
  std::string got = read_some(accepted, 2000);
  const auto took = SteadyClock::now() - sent;
  CHECK(got == "slow");
  CHECK(took >= std::chrono::milliseconds(300));
  CHECK(took < std::chrono::milliseconds(1500));

  // Losses: each lost chunk comes TCP's retransmission timeout later, and the chunks after it
  // wait behind it, so the bytes arrive complete and in order.
  proxy.unslow(handle);
  const auto lossy = proxy.slow("client-0", "member-0", std::chrono::milliseconds(0), 0.5, 7);
  std::string expected;
  for (int i = 0; i < 8; ++i) {
    const std::string piece = "<" + std::to_string(i) + ">";
    send_text(client, piece);
    expected += piece;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::string all;
  const auto deadline = SteadyClock::now() + std::chrono::seconds(20);
  while (all.size() < expected.size() && SteadyClock::now() < deadline) all += read_some(accepted, 500);
  CHECK(all == expected);
  const auto stats = proxy.stats();
  CHECK(stats.chunks_slowed >= 2);
  CHECK(stats.chunks_lost >= 1);
  CHECK(stats.chunks_lost < stats.chunks_slowed);
  proxy.unslow(lossy);
  const auto plain = SteadyClock::now();
  send_text(client, "plain");
  CHECK(read_some(accepted, 2000) == "plain");
  CHECK(SteadyClock::now() - plain < std::chrono::milliseconds(150));
}

TEST_CASE("link proxy: held bytes get through at TCP's next retransmission after the heal, not at once") {
  ProxiedConnection c;
  LinkProxy& proxy = *c.proxy;
  const int client = c.client;
  const int accepted = c.accepted;
  proxy.block("client-0", "member-0");
  const auto sent = SteadyClock::now();
  send_text(client, "held");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  proxy.unblock("client-0", "member-0");  // healed at ~300 ms
  send_text(client, "+after");  // written after the heal: behind what was held
  std::string got = read_some(accepted, 3000);
  const auto arrived_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - sent).count();
  while (got.size() < std::string("held+after").size()) {
    const std::string more = read_some(accepted, 1000);
    if (more.empty()) break;
    got += more;
  }
  CHECK(got == "held+after");
  // Retransmissions at 200 and 600 ms after the first byte waited: the first after the heal.
  CHECK(arrived_ms >= 550);
  CHECK(arrived_ms < 1000);
}

TEST_CASE("link proxy: a target that refuses makes the proxy refuse - an unknown member dialer is refused") {
  auto proxy = LinkProxy::create();
  REQUIRE(proxy.ok());
  int dead_port = 0;
  {
    Listener gone;
    dead_port = gone.port;
  }  // closed: connections to it are refused
  auto port = proxy.value()->add_fixed_listener("client-0", "member-0", dead_port);
  REQUIRE(port.ok());
  const int c1 = connect_to(port.value());
  CHECK(read_some(c1, 2000).empty());  // EOF or reset, no data
  ::close(c1);

  Listener server;
  auto member_port = proxy.value()->add_member_listener("member-1", server.port);
  REQUIRE(member_port.ok());
  const int c2 = connect_to(member_port.value());  // this process is no member
  CHECK(read_some(c2, 2000).empty());
  ::close(c2);
  const auto deadline = SteadyClock::now() + std::chrono::seconds(2);
  while (proxy.value()->stats().connections_refused < 2 && SteadyClock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(proxy.value()->stats().connections_refused == 2);
}

// (member id, the leader it sees) by a direct Status probe; (0, 0) when it does not answer.
std::pair<std::uint64_t, std::uint64_t> status_of(const std::string& endpoint) {
  auto channel = grpc::CreateChannel(endpoint, grpc::InsecureChannelCredentials());
  auto stub = etcdserverpb::Maintenance::NewStub(channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
  etcdserverpb::StatusResponse resp;
  if (!stub->Status(&ctx, etcdserverpb::StatusRequest(), &resp).ok()) return {0, 0};
  return {resp.header().member_id(), resp.leader()};
}

// The members' view of the leader, by direct Status probes (LocalCluster::leader needs all
// running members to agree, which an isolated old leader may not).
TEST_CASE("link proxy: cutting the leader off its peers makes the majority elect another") {
  auto made = LinkProxy::create();
  REQUIRE(made.ok());
  LinkProxy& proxy = *made.value();
  LocalClusterOptions options;
  options.members = 3;
  options.kill_on_stop = true;
  options.advertise_peer_url = [&proxy](int member, int peer_port) -> Result<std::string> {
    auto port = proxy.add_member_listener("member-" + std::to_string(member), peer_port);
    if (!port) return port.error();
    return "http://127.0.0.1:" + std::to_string(port.value());
  };
  options.on_launched = [&proxy](int member, pid_t pid) {
    proxy.set_pid("member-" + std::to_string(member), pid);
  };
  auto started = LocalCluster::start(options);
  if (!started) FAIL(started.error().to_string());
  LocalCluster& cluster = *started.value();
  auto old_leader = cluster.leader(std::chrono::seconds(5));
  REQUIRE(old_leader.ok());
  const std::string isolated = "member-" + std::to_string(old_leader.value());
  for (int m = 0; m < 3; ++m) {
    if (m == old_leader.value()) continue;
    proxy.block(isolated, "member-" + std::to_string(m));
    proxy.block("member-" + std::to_string(m), isolated);
  }
  // The other two lose the leader's heartbeats (the proxy holds them) and elect one of
  // themselves; the old leader keeps running.
  const std::uint64_t old_id = status_of(cluster.client_endpoint(old_leader.value())).first;
  REQUIRE(old_id != 0);
  const int a = (old_leader.value() + 1) % 3;
  const int b = (old_leader.value() + 2) % 3;
  bool elected = false;
  const auto deadline = SteadyClock::now() + std::chrono::seconds(10);
  while (!elected && SteadyClock::now() < deadline) {
    const auto sa = status_of(cluster.client_endpoint(a));
    const auto sb = status_of(cluster.client_endpoint(b));
    elected = sa.second != 0 && sa.second != old_id && sa.second == sb.second;
    if (!elected) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(elected);
  for (int m = 0; m < 3; ++m) {
    if (m == old_leader.value()) continue;
    proxy.unblock(isolated, "member-" + std::to_string(m));
    proxy.unblock("member-" + std::to_string(m), isolated);
  }
  // Healed: all three agree again.
  REQUIRE(cluster.wait_healthy(std::chrono::seconds(10)).ok());
  auto agreed = cluster.leader(std::chrono::seconds(10));
  CHECK(agreed.ok());
  CHECK(proxy.stats().bytes_forwarded > 0);
}

}  // namespace
}  // namespace lockstep::real
