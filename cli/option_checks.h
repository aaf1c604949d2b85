// CLI11 validators for what a user types on the command line. CLI::Range lets NaN through
// (every comparison with NaN is false: `--time-budget nan` then ran for ever) and names its
// bounds with 17 digits; strtoull, which CLI11 converts unsigned options with, turns "-1" into
// 2^64-1 and clamps a larger number to it. These refuse all of that with a plain message.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace lockstep::cli {

// A finite number in [min, max].
inline CLI::Validator finite_between(double min, double max) {
  // Whole bounds in full (1048576, not 1.04858e+06), others in their shortest exact form.
  auto show = [](double v) {
    char buf[64];
    const auto [end, ec] = v == std::floor(v) && std::fabs(v) < 1e15
                               ? std::to_chars(buf, buf + sizeof buf, static_cast<std::int64_t>(v))
                               : std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : std::string("?");
  };
  const std::string range = "between " + show(min) + " and " + show(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        double value = 0;
        try {
          std::size_t used = 0;
          value = std::stod(text, &used);
          if (used != text.size()) return "expected a number " + range + ", not \"" + text + "\"";
        } catch (const std::exception&) {
          return "expected a number " + range + ", not \"" + text + "\"";
        }
        if (!std::isfinite(value) || value < min || value > max)
          return "must be " + range + ", not " + text;
        return {};
      },
      "NUMBER in [" + show(min) + ", " + show(max) + "]");
}

// Seconds given to the millisecond, as a scenario file holds them: 1.5 and 0.001, not
// 0.0015 (which `run` simulated and then could not save, and explore silently rounded).
// Use after finite_between, which refuses what is no number.
inline CLI::Validator whole_milliseconds() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0;
        try {
          value = std::stod(text);
        } catch (const std::exception&) {
          return {};  // finite_between says what is wrong
        }
        const double ms = value * 1000;
        if (std::isfinite(ms) && std::fabs(ms - std::round(ms)) > 1e-6 * std::max(1.0, std::fabs(ms)))
          return "must be a whole number of milliseconds (a scenario file holds no finer time), not " +
                 text;
        return {};
      },
      "");
}

// Decimal digits only, at most 2^64-1 (a seed: "-1" does not wrap, a longer number is not
// clamped). The text is handed on without leading zeros, so add it with ->transform() (a
// ->check() may not change the text): CLI11 converts with base 0, which reads "010" as octal 8.
inline CLI::Validator unsigned_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        if (text.empty() || ec != std::errc() || ptr != end)
          return "expected an integer from 0 to 18446744073709551615, not \"" + text + "\"";
        text = std::to_string(value);
        return {};
      },
      "UINT64");
}

// Refuses an empty value (`--out ""` would otherwise mean "not given").
inline CLI::Validator non_empty() {
  return CLI::Validator(
      [](std::string& text) -> std::string { return text.empty() ? "must not be empty" : ""; },
      "");
}

}  // namespace lockstep::cli
