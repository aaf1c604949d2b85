// ProcessClock: one process's view of time, derived from the simulator's true time.
//
// Contract: local(t) = anchor_local + (t - anchor_true) * rate_ppm / 1e6, piecewise: changing
// the rate or jumping re-anchors at the current true time, so the clock stays continuous
// except across an explicit jump. Integer arithmetic only, so every build type agrees to the
// nanosecond. A backward jump of the monotonic clock is allowed only because a fault asked
// for it (the point of the `clock` fault class is to see what algorithms do then).
#pragma once

#include <cstdint>

#include "lockstep/kv/time.h"

namespace lockstep::sim {

class ProcessClock {
 public:
  static constexpr std::int64_t kNominalRatePpm = 1'000'000;

  ProcessClock() = default;
  ProcessClock(Duration offset, std::int64_t rate_ppm)
      : anchor_local_ns_(offset.count()), rate_ppm_(rate_ppm) {}

  // Most clocks run at the nominal rate: those skip the 128-bit division (same result).
  Duration local_at(TrueTime t) const {
    if (rate_ppm_ == kNominalRatePpm)
      return Duration(anchor_local_ns_ + (t.time_since_epoch().count() - anchor_true_ns_));
    const __int128 elapsed = (t.time_since_epoch().count() - anchor_true_ns_);
    return Duration(anchor_local_ns_ + static_cast<std::int64_t>(elapsed * rate_ppm_ / kNominalRatePpm));
  }

  // The true duration that passes while this clock advances by `local` (rounded up, so a
  // sleep never ends early on its own clock).
  Duration true_duration_for(Duration local) const {
    if (local.count() <= 0) return Duration(0);
    if (rate_ppm_ == kNominalRatePpm) return local;
    const __int128 num = static_cast<__int128>(local.count()) * kNominalRatePpm;
    return Duration(static_cast<std::int64_t>((num + rate_ppm_ - 1) / rate_ppm_));
  }

  void set_rate(TrueTime now, std::int64_t rate_ppm) {
    reanchor(now);
    rate_ppm_ = rate_ppm;
  }
  void jump(TrueTime now, Duration by) {
    reanchor(now);
    anchor_local_ns_ += by.count();
  }
  std::int64_t rate_ppm() const { return rate_ppm_; }

 private:
  void reanchor(TrueTime now) {
    anchor_local_ns_ = local_at(now).count();
    anchor_true_ns_ = now.time_since_epoch().count();
  }

  std::int64_t anchor_true_ns_ = 0;
  std::int64_t anchor_local_ns_ = 0;
  std::int64_t rate_ppm_ = kNominalRatePpm;
};

}  // namespace lockstep::sim
