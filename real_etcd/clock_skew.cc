#include "lockstep/real_etcd/clock_skew.h"

#include <cassert>
#include <cmath>

namespace lockstep::real {

Duration ClockSkew::local(Duration real) const {
  const auto elapsed = real - anchor_real_;
  if (drift_rate_ == 0.0) return anchor_local_ + elapsed;
  const double scaled = static_cast<double>(elapsed.count()) * (1.0 + drift_rate_);
  return anchor_local_ + Duration(static_cast<Duration::rep>(std::llround(scaled)));
}

void ClockSkew::set_drift_rate(double drift_rate, Duration real_now) {
  assert(drift_rate > -1.0);
  anchor_local_ = local(real_now);
  anchor_real_ = real_now;
  drift_rate_ = drift_rate;
}

Duration ClockSkew::real_duration_for(Duration local_duration) const {
  if (drift_rate_ == 0.0) return local_duration;
  const double real = static_cast<double>(local_duration.count()) / (1.0 + drift_rate_);
  return Duration(static_cast<Duration::rep>(std::llround(real)));
}

}  // namespace lockstep::real
