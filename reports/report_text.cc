#include "lockstep/reports/report_text.h"

#include <cstdio>

namespace lockstep::reports {

std::string format_seconds(std::int64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ns) / 1e9);
  return buf;
}

std::string format_duration(std::int64_t ns) {
  char buf[48];
  if (ns < 1'000'000'000 && ns > -1'000'000'000) {
    std::snprintf(buf, sizeof buf, "%.0f ms", static_cast<double>(ns) / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ns) / 1e9);
  }
  return buf;
}

std::string join_words(const std::vector<std::string>& words) {
  std::string s;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) s += i + 1 == words.size() ? " and " : ", ";
    s += words[i];
  }
  return s;
}

}  // namespace lockstep::reports
