// The network's links behave as TCP connections: a cut holds bytes, loss is lateness, and a
// connection dies only when its timeout says so.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "lockstep/sim/box.h"
#include "lockstep/sim/network.h"

namespace lockstep::sim {
namespace {

struct Link2 {
  World w{11};
  ProcessId a = w.add_process("a");
  ProcessId b = w.add_process("b");
  Network net{w, w.rng_for("net"), LatencyConfig{milliseconds(1), milliseconds(1)}};
  std::vector<int> got;
  std::vector<std::int64_t> got_at_ms;
  std::vector<bool> got_held;

  void send(int i) {
    net.send(a, b, [this, i] {
      got.push_back(i);
      got_at_ms.push_back(to_ms(w.now().time_since_epoch()));
      got_held.push_back(w.running_held());
    });
  }
  std::uint64_t cut() {
    LinkRule r;
    r.from = {a};
    r.to = {b};
    r.blocked = true;
    return net.add_rule(r);
  }
  // With a 5 s connection timeout: a cut from 0, `messages` sent 40 ms apart into it, healed at
  // `heal_ms`, then run to 30 s.
  void cut_send_heal(int messages, int heal_ms) {
    net.set_connection_timeout(a, b, seconds(5));
    const auto rule = cut();
    for (int i = 0; i < messages; ++i) {
      w.run_until(TrueTime(milliseconds(i * 40)));
      send(i);
    }
    w.run_until(TrueTime(milliseconds(heal_ms)));
    net.remove_rule(rule);
    w.run_until(TrueTime(seconds(30)));
  }
};

TEST_CASE("a cut holds a link's messages and delivers them in order at TCP's next retransmission") {
  Link2 t;
  t.send(0);
  t.w.run_until(TrueTime(milliseconds(100)));
  REQUIRE(t.got == std::vector<int>{0});
  const auto rule = t.cut();
  for (int i = 1; i <= 5; ++i) {
    t.w.run_until(TrueTime(milliseconds(100 + i * 10)));
    t.send(i);
  }
  t.w.run_until(TrueTime(milliseconds(1000)));
  REQUIRE(t.got.size() == 1);  // held, not delivered
  REQUIRE(t.net.messages_dropped() == 0);
  t.net.remove_rule(rule);  // healed at 1000 ms
  t.w.run_until(TrueTime(seconds(10)));
  REQUIRE(t.got == std::vector<int>{0, 1, 2, 3, 4, 5});
  // The first held message came to the cut at about 111 ms: retransmissions at +200, +600,
  // +1400 ms. The first after the heal is at about 1511 ms; all arrive together then.
  for (std::size_t i = 1; i < t.got.size(); ++i) {
    CHECK(t.got_at_ms[i] >= 1500);
    CHECK(t.got_at_ms[i] <= 1520);
    CHECK(t.got_held[i]);  // read as one batch
  }
  CHECK_FALSE(t.got_held[0]);
}

TEST_CASE("messages in flight when a cut starts are held too, ahead of later ones") {
  Link2 t;
  t.send(0);  // arrives 1 to 2 ms later
  const auto rule = t.cut();
  t.send(1);
  t.w.run_until(TrueTime(milliseconds(50)));
  REQUIRE(t.got.empty());
  t.net.remove_rule(rule);
  t.w.run_until(TrueTime(seconds(2)));
  REQUIRE(t.got == std::vector<int>{0, 1});
}

TEST_CASE("a cut as long as the connection timeout kills the connection and what it held") {
  Link2 t;
  t.net.set_connection_timeout(t.a, t.b, seconds(5));
  std::vector<std::pair<ProcessId, ProcessId>> resets;
  t.net.set_reset_handler([&](ProcessId from, ProcessId to) { resets.emplace_back(from, to); });
  const auto rule = t.cut();
  t.send(1);
  t.w.run_until(TrueTime(seconds(6)));
  REQUIRE(resets == std::vector<std::pair<ProcessId, ProcessId>>{{t.a, t.b}});
  t.send(2);  // no connection can be made across the cut
  t.w.run_until(TrueTime(seconds(7)));
  t.net.remove_rule(rule);
  t.send(3);  // a new connection
  t.w.run_until(TrueTime(seconds(20)));
  REQUIRE(t.got == std::vector<int>{3});
  REQUIRE(t.net.messages_dropped() == 2);
}

TEST_CASE("after a cut killed a connection and healed, the next cut holds again, with no message between") {
  Link2 t;
  t.net.set_connection_timeout(t.a, t.b, seconds(5));
  const auto first = t.cut();
  t.send(1);
  t.w.run_until(TrueTime(seconds(6)));  // declared dead: 1 is lost
  t.net.remove_rule(first);
  t.w.run_until(TrueTime(seconds(8)));  // healed; nothing crosses the link
  const auto second = t.cut();
  t.send(2);  // on a new connection: held, not dropped
  t.w.run_until(TrueTime(seconds(9)));
  t.net.remove_rule(second);
  t.w.run_until(TrueTime(seconds(20)));
  REQUIRE(t.got == std::vector<int>{2});
  REQUIRE(t.net.messages_dropped() == 1);
}

TEST_CASE("a cut whose retransmission comes within the timeout loses nothing, however many messages it held") {
  // Healed at 2.9 s: TCP's retransmissions of the first held message (at about 1 ms) come at
  // +0.2, +0.6, +1.4, +3.0 s, so the one at about 3.0 s gets everything through, within 5 s.
  Link2 t;
  t.cut_send_heal(70, 2900);
  REQUIRE(t.got.size() == 70);
  REQUIRE(std::is_sorted(t.got.begin(), t.got.end()));
  CHECK(t.got_at_ms.front() >= 3000);
  CHECK(t.got_at_ms.front() < 3100);
  CHECK(t.net.messages_dropped() == 0);
}

TEST_CASE("a cut that heals before the timeout still kills the connection when TCP's next retransmission comes after it") {
  // The reader's timeout counts time with nothing read: healed at 4.9 s, the held bytes would
  // come only with the retransmission at about 6.2 s, and the connection is dead at 5 s.
  Link2 t;
  t.cut_send_heal(100, 4900);
  CHECK(t.got.empty());
  CHECK(t.net.messages_dropped() == 100);
  t.send(100);  // a new connection
  t.w.run_until(TrueTime(seconds(31)));
  CHECK(t.got == std::vector<int>{100});
}

TEST_CASE("a paused receiver's kernel takes what arrives: a later cut holds none of it") {
  Link2 t;
  t.send(0);
  t.w.run_until(TrueTime(milliseconds(100)));
  t.w.pause(t.b);
  t.send(1);  // arrives at about 102 ms, while b is paused
  t.w.run_until(TrueTime(milliseconds(500)));
  const auto rule = t.cut();  // the cut begins after it arrived
  t.w.run_until(TrueTime(milliseconds(1000)));
  t.w.resume(t.b);
  t.w.run_until(TrueTime(milliseconds(1001)));
  CHECK(t.got == std::vector<int>{0, 1});  // read at the resume, though the link is cut
  CHECK(t.got_at_ms.back() == 1000);
  t.send(2);  // sent during the cut: held
  t.w.run_until(TrueTime(milliseconds(2000)));
  CHECK(t.got.size() == 2);
  t.net.remove_rule(rule);
  t.w.run_until(TrueTime(seconds(10)));
  CHECK(t.got == std::vector<int>{0, 1, 2});
}

TEST_CASE("a paused receiver reads a released batch before what was sent on the link after it") {
  // m0 held by a cut, the cut heals, b pauses, m1 is sent after the heal: at the resume b reads
  // m0 (the retransmission) before m1, in the link's order.
  Link2 t;
  const auto rule = t.cut();
  t.send(0);
  t.w.run_until(TrueTime(milliseconds(300)));
  t.net.remove_rule(rule);  // retransmission at about 601 ms
  t.w.pause(t.b);
  t.w.run_until(TrueTime(milliseconds(400)));
  t.send(1);
  t.w.run_until(TrueTime(milliseconds(2000)));
  t.w.resume(t.b);
  t.w.run_until(TrueTime(milliseconds(2001)));
  CHECK(t.got == std::vector<int>{0, 1});
  // Sent during the cut, for a receiver that paused after the first was held: the same order.
  Link2 u;
  const auto cut = u.cut();
  u.send(0);
  u.w.run_until(TrueTime(milliseconds(100)));
  u.w.pause(u.b);
  u.send(1);
  u.w.run_until(TrueTime(milliseconds(300)));
  u.net.remove_rule(cut);
  u.w.run_until(TrueTime(milliseconds(2000)));
  u.w.resume(u.b);
  u.w.run_until(TrueTime(seconds(5)));
  CHECK(u.got == std::vector<int>{0, 1});
}

TEST_CASE("a message held for a paused receiver is held from its arrival, not from the resume") {
  // Arrived at about 102 ms into a cut, while b was paused until 3 s: TCP's schedule and the
  // 5 s timeout run from the arrival. Healed at 4 s, the next retransmission (about 6.3 s) comes
  // after the timeout (about 5.1 s): the connection dies with it. Counted from the resume, the
  // retransmission at about 4.4 s would have got it through.
  Link2 t;
  t.net.set_connection_timeout(t.a, t.b, seconds(5));
  const auto rule = t.cut();
  t.w.pause(t.b);
  t.w.run_until(TrueTime(milliseconds(100)));
  t.send(0);
  t.w.run_until(TrueTime(milliseconds(3000)));
  t.w.resume(t.b);
  t.w.run_until(TrueTime(milliseconds(4000)));
  t.net.remove_rule(rule);
  t.w.run_until(TrueTime(seconds(20)));
  CHECK(t.got.empty());
  CHECK(t.net.messages_dropped() == 1);
}

TEST_CASE("a retransmission after a heal reaches a paused receiver: a cut after it holds nothing") {
  Link2 t;
  const auto first = t.cut();
  t.send(0);  // held from about 1 ms
  t.w.run_until(TrueTime(milliseconds(300)));
  t.net.remove_rule(first);  // the next retransmission is at about 601 ms
  t.w.pause(t.b);
  t.w.run_until(TrueTime(milliseconds(1000)));
  const auto second = t.cut();  // after the bytes were taken by b's kernel
  t.w.run_until(TrueTime(milliseconds(2000)));
  CHECK(t.got.empty());  // b is still paused
  t.w.resume(t.b);
  t.w.run_until(TrueTime(milliseconds(2001)));
  CHECK(t.got == std::vector<int>{0});
  CHECK(t.got_held.back());  // read in one batch with what else came held
  t.net.remove_rule(second);
}

TEST_CASE("loss on a link is lateness: every message arrives, in order, some a retransmission late") {
  Link2 t;
  LinkRule lossy;
  lossy.from = {t.a};
  lossy.loss_probability = 0.5;
  t.net.add_rule(lossy);
  for (int i = 0; i < 200; ++i) t.send(i);
  t.w.run_until(TrueTime(seconds(600)));
  REQUIRE(t.got.size() == 200);
  REQUIRE(std::is_sorted(t.got.begin(), t.got.end()));
  // The first message was lost at least once with probability 1 - 2^-200 over the run: the
  // last one waited behind the losses, at least one retransmission timeout.
  REQUIRE(t.got_at_ms.back() >= 200);
  REQUIRE(t.net.messages_dropped() == 0);
}

TEST_CASE("loss ends with its fault: a retransmission after the fault's end gets through") {
  Link2 t;
  LinkRule lossy;
  lossy.from = {t.a};
  lossy.loss_probability = 1;  // every transmission while the fault lasts is lost
  lossy.active_until_ns = milliseconds(1000).count();
  t.net.add_rule(lossy);
  t.send(1);  // sent at 0: lost at 0, 200, 600 ms; the retransmission at 1400 ms arrives
  t.w.run_until(TrueTime(seconds(5)));
  REQUIRE(t.got == std::vector<int>{1});
  CHECK(t.got_at_ms[0] >= 1400);
  CHECK(t.got_at_ms[0] <= 1402);
}

TEST_CASE("a message held up by loss past the connection timeout kills the connection") {
  Link2 t;
  t.net.set_connection_timeout(t.a, t.b, seconds(5));
  int resets = 0;
  t.net.set_reset_handler([&](ProcessId, ProcessId) { ++resets; });
  LinkRule lossy;
  lossy.from = {t.a};
  lossy.loss_probability = 1;
  lossy.active_until_ns = milliseconds(20'000).count();
  const auto rule = t.net.add_rule(lossy);
  t.send(1);  // 5 s of retransmissions would pass before it arrives: the connection dies
  t.w.run_until(TrueTime(seconds(1)));
  t.net.remove_rule(rule);
  t.send(2);  // a new connection, not behind the lost message
  t.w.run_until(TrueTime(seconds(30)));
  REQUIRE(t.got == std::vector<int>{2});
  REQUIRE(t.got_at_ms[0] < 1010);
  REQUIRE(resets == 1);
}

TEST_CASE("a duplicate arrives right behind the original, before what was sent after it") {
  Link2 t;
  LinkRule twice;
  twice.duplicate_probability = 1;
  t.net.add_rule(twice);
  std::vector<std::string> got;
  t.net.send(t.a, t.b, [&got, text = Box<std::string>(std::string(40, 'm'))]() mutable {
    got.push_back(std::move(*text));  // each copy is its own value
  });
  t.net.send(t.a, t.b, [&got] { got.push_back("next"); });
  t.w.run_until(TrueTime(seconds(2)));
  REQUIRE(got == std::vector<std::string>{std::string(40, 'm'), std::string(40, 'm'), "next",
                                          "next"});
}

TEST_CASE("reorder lifts a link's order, but never within a stream") {
  Link2 t;
  LinkRule shuffle;
  shuffle.from = {t.a};
  shuffle.reorder_window = milliseconds(50);
  t.net.add_rule(shuffle);
  std::vector<int> unary, stream;
  for (int i = 0; i < 100; ++i) {
    t.net.send(t.a, t.b, [&unary, i] { unary.push_back(i); });
    t.net.send_in_stream(t.a, t.b, [&stream, i] { stream.push_back(i); });
  }
  t.w.run_until(TrueTime(seconds(2)));
  REQUIRE(unary.size() == 100);
  REQUIRE_FALSE(std::is_sorted(unary.begin(), unary.end()));
  REQUIRE(stream.size() == 100);
  REQUIRE(std::is_sorted(stream.begin(), stream.end()));
}

TEST_CASE("a crash of the receiver loses what a cut held for it") {
  Link2 t;
  const auto rule = t.cut();
  t.send(1);
  t.w.run_until(TrueTime(seconds(1)));
  t.w.crash(t.b);
  t.w.restart(t.b);
  t.net.remove_rule(rule);
  t.send(2);
  t.w.run_until(TrueTime(seconds(5)));
  REQUIRE(t.got == std::vector<int>{2});
}

TEST_CASE("events held by a pause run marked as held, and others not") {
  World w(3);
  const ProcessId p = w.add_process("p");
  std::vector<bool> held;
  w.schedule_at(TrueTime(milliseconds(10)), p, [&] { held.push_back(w.running_held()); });
  w.pause(p);
  w.schedule_at(TrueTime(milliseconds(20)), kWorldProcess, [&] { w.resume(p); });
  w.schedule_at(TrueTime(milliseconds(30)), p, [&] { held.push_back(w.running_held()); });
  w.run_until(TrueTime(seconds(1)));
  REQUIRE(held == std::vector<bool>{true, false});
}

}  // namespace
}  // namespace lockstep::sim
