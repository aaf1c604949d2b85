// scenario_prop: rc::prop (rapidcheck's Catch2 adapter) for properties over simulations,
// with a fixed number of cases.
//
// Why: every case runs whole simulations, and CI runs the tests in Debug and under
// sanitizers on two cores; rapidcheck's default of 100 cases would take minutes. The seed
// still comes from RC_PARAMS (e.g. RC_PARAMS="seed=42"), so a failure reproduces, and
// LOCKSTEP_PROPERTY_CASES=N overrides `cases` for a longer hunt; the
// counterexample is printed with showValue (a scenario file, see scenario_gen.h).
// Header-only: include it from test code that links rapidcheck and Catch2.
#pragma once

#include <rapidcheck/catch.h>

#include <cstdlib>
#include <sstream>
#include <string>

namespace lockstep {

template <typename Testable>
void scenario_prop(const std::string& description, int cases, Testable&& testable) {
  SECTION(description) {
    rc::detail::TestParams params = rc::detail::configuration().testParams;
    const char* override_cases = std::getenv("LOCKSTEP_PROPERTY_CASES");
    params.maxSuccess = override_cases ? std::atoi(override_cases) : cases;
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
