#include "lockstep/kv/invariant.h"

#include <cstdio>
#include <cstdlib>

namespace lockstep::detail {

void invariant_broken(const char* file, int line, const char* condition, const char* why) {
  std::fprintf(stderr, "lockstep: invariant broken at %s:%d: %s (%s)\n", file, line, why,
               condition);
  std::fflush(stderr);
  std::abort();
}

}  // namespace lockstep::detail
