// scenario_prop: rc::prop (rapidcheck's Catch2 adapter) for properties over simulations,
// with a fixed number of cases.
//
// Why: every case runs whole simulations, and CI runs the tests in Debug and under
// sanitizers on two cores; rapidcheck's default of 100 cases would take minutes.
// The seed is fixed (kDefaultPropertySeed) unless RC_PARAMS names one (RC_PARAMS="seed=42"):
// a test suite that passes or fails by the draw of a random seed is not a test, and the
// same seed makes every failure reproduce. LOCKSTEP_PROPERTY_CASES=N overrides `cases`;
// together with a new seed that is a longer hunt. The counterexample is printed with
// showValue (a scenario file, see scenario_gen.h).
// Header-only: include it from test code that links rapidcheck and Catch2.
#pragma once

#include <rapidcheck/catch.h>

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

namespace lockstep {

inline constexpr std::uint64_t kDefaultPropertySeed = 20261122;

// rapidcheck's parameters with `cases` cases and the seed described above.
inline rc::detail::TestParams property_params(int cases) {
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  const char* rc_params = std::getenv("RC_PARAMS");
  if (rc_params == nullptr || std::string(rc_params).find("seed=") == std::string::npos)
    params.seed = kDefaultPropertySeed;
  const char* override_cases = std::getenv("LOCKSTEP_PROPERTY_CASES");
  params.maxSuccess = override_cases ? std::atoi(override_cases) : cases;
  return params;
}

template <typename Testable>
void scenario_prop(const std::string& description, int cases, Testable&& testable) {
  SECTION(description) {
    const rc::detail::TestParams params = property_params(cases);
    rc::detail::TestMetadata metadata;
    metadata.id = description;
    metadata.description = description;
    const auto result =
        rc::detail::checkTestable(std::forward<Testable>(testable), metadata, params);
    if (result.template is<rc::detail::SuccessResult>()) {
      SUCCEED();
    } else {
      std::ostringstream message;
      rc::detail::printResultMessage(result, message);
      INFO(message.str() << "\n");
      FAIL();
    }
  }
}

}  // namespace lockstep
