// random_hex_id: a uuid-like token (32 lowercase hex digits, like Python's uuid1().hex or Go's
// uuid.New() without dashes) drawn from the node's deterministic random stream.
//
// Why not a real UUID: the published code draws from the OS; under the simulator every random
// bit must come from NodeContext::rng() so a run replays exactly.
#pragma once

#include <cstdio>
#include <string>

#include "lockstep/kv/rng.h"

namespace lockstep {

inline std::string random_hex_id(Rng& rng) {
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(rng.next_u64()),
                static_cast<unsigned long long>(rng.next_u64()));
  return hex;
}

}  // namespace lockstep
