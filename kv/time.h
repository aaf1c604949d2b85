// Virtual time types for the seam.
//
// Contract: every duration and instant an algorithm sees carries its unit and its clock in
// its type, so that a monotonic instant can never be compared with a wall-clock instant or
// with the simulator's true time by accident. All values are whole nanoseconds.
#pragma once

#include <chrono>
#include <cstdint>

namespace lockstep {

using Duration = std::chrono::nanoseconds;

// Tag types naming the three clocks. They are not std clocks (they have no now()): only a
// NodeContext or the simulator can tell the time.
struct MonotonicClock {
  using duration = Duration;
  using rep = Duration::rep;
  using period = Duration::period;
  static constexpr bool is_steady = true;
};
struct WallClock {
  using duration = Duration;
  using rep = Duration::rep;
  using period = Duration::period;
  static constexpr bool is_steady = false;
};
// The simulator's (or real runner's single) reference clock, on which checkers compare events
// of different processes.
struct TrueClock {
  using duration = Duration;
  using rep = Duration::rep;
  using period = Duration::period;
  static constexpr bool is_steady = true;
};

using MonoTime = std::chrono::time_point<MonotonicClock, Duration>;
using WallTime = std::chrono::time_point<WallClock, Duration>;
using TrueTime = std::chrono::time_point<TrueClock, Duration>;

constexpr Duration nanoseconds(std::int64_t n) { return Duration(n); }
constexpr Duration microseconds(std::int64_t n) { return std::chrono::microseconds(n); }
constexpr Duration milliseconds(std::int64_t n) { return std::chrono::milliseconds(n); }
constexpr Duration seconds(std::int64_t n) { return std::chrono::seconds(n); }

inline std::int64_t to_ns(Duration d) { return d.count(); }
inline std::int64_t to_ms(Duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}
inline double to_seconds(Duration d) { return static_cast<double>(d.count()) / 1e9; }

}  // namespace lockstep
