// ClockSkew: a node's clock as an affine function of a real clock, for clock faults on a
// real run (offset jumps and drift), mirroring what the simulator injects.
//
// Contract: local(real) = anchor_local + (real - anchor_real) * (1 + drift_rate).
//   - jump(delta) moves the local clock by delta at once (negative: backwards).
//   - set_drift_rate() changes the rate from `real_now` on without a jump (re-anchors).
//   - real_duration_for(d): how long, in real time, the local clock takes to advance by d.
// drift_rate must be > -1 (a clock that stops or runs backwards is a jump, not a drift).
#pragma once

#include "lockstep/kv/time.h"

namespace lockstep::real {

class ClockSkew {
 public:
  ClockSkew() = default;

  Duration local(Duration real) const;
  void jump(Duration delta) { anchor_local_ += delta; }
  void set_drift_rate(double drift_rate, Duration real_now);
  double drift_rate() const { return drift_rate_; }
  Duration real_duration_for(Duration local_duration) const;

 private:
  Duration anchor_real_{0};
  Duration anchor_local_{0};
  double drift_rate_ = 0.0;
};

}  // namespace lockstep::real
