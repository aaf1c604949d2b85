// Text pieces every part of the report shares: times (seconds on the history's true clock)
// and word lists.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lockstep::reports {

// "11.962 s". Millisecond precision: lock races in the simulator are decided by a few
// milliseconds, so two decimals would print different instants as the same.
std::string format_seconds(std::int64_t ns);

// "203 ms", "1.250 s", "13.354 s": a duration in the unit that reads best.
std::string format_duration(std::int64_t ns);

// "a", "a and b", "a, b and c".
std::string join_words(const std::vector<std::string>& words);

}  // namespace lockstep::reports
