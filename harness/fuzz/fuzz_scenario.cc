// libFuzzer target: the scenario file parser (harness/scenario.h).
//
// Besides "no crash, no sanitizer report", it asserts the format's promise: a scenario the
// parser accepts is written back and read again to the same configuration.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lockstep/harness/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  lockstep::Scenario scenario;
  const std::string error = lockstep::scenario_from_text(text, "fuzz.json", scenario);
  if (!error.empty()) {
    // One message, naming the source.
    if (error.rfind("fuzz.json", 0) != 0) {
      std::fprintf(stderr, "error does not name the file: %s\n", error.c_str());
      std::abort();
    }
    return 0;
  }
  if (!lockstep::scenario_representable(scenario.config).empty()) {
    std::fprintf(stderr, "accepted a scenario it cannot write back\n");
    std::abort();
  }
  lockstep::Scenario back;
  const std::string reread =
      lockstep::scenario_from_text(lockstep::scenario_to_text(scenario), "again", back);
  std::string difference =
      reread.empty() ? lockstep::run_config_difference(scenario.config, back.config) : "";
  if (reread.empty() && back.client_cmd != scenario.client_cmd) difference += "client_cmd";
  if (!reread.empty() || !difference.empty()) {
    std::fprintf(stderr, "round trip failed: %s%s\n", reread.c_str(), difference.c_str());
    std::abort();
  }
  return 0;
}
