// Lock models: an owner-aware mutex and a fenced mutex (a mutex that hands out tokens).
//
// Holders are small integers chosen by the caller (one per client process); 0 is never a holder.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lockstep/model/model.h"

namespace lockstep::model {

using ProcessId = std::int32_t;  // > 0

// A mutex that knows who holds it. acquire(p) is legal only when it is free; release(p) only
// when p holds it: a release by a non-holder is a violation, not a no-op.
struct OwnerMutex {
  using State = ProcessId;  // the holder, or 0 when free
  enum class Kind : std::uint8_t { acquire, release };
  struct Input {
    Kind kind = Kind::acquire;
    ProcessId process = 0;
  };
  struct Output {};  // an acquire or release that completed has nothing more to say

  State init() const { return 0; }
  std::optional<State> step(const State& s, const Input& in, const Output* out) const;
  std::size_t hash(const State& s) const { return static_cast<std::size_t>(s); }
  std::string describe(const State& s) const;
  std::string describe(const Input& in, const Output* out) const;
};

// A mutex whose every acquire returns a fencing token strictly greater than every token handed
// out before. A release may name the token it releases; it must then be the holder's token.
struct FencedMutex {
  struct State {
    ProcessId holder = 0;            // 0: free
    std::int64_t token = INT64_MIN;  // the greatest token seen so far (INT64_MIN: none)
    bool holder_token_known = false;  // whether `token` is the current holder's own token
    bool operator==(const State&) const = default;
  };
  enum class Kind : std::uint8_t { acquire, release };
  struct Input {
    Kind kind = Kind::acquire;
    ProcessId process = 0;
    std::optional<std::int64_t> token;  // release only: the token being released, if known
  };
  struct Output {
    std::optional<std::int64_t> token;  // acquire: the token received
  };

  State init() const { return {}; }
  // An acquire whose token is unknown (indeterminate, or a completed acquire that reported no
  // token) keeps the last known token: later tokens need only exceed the ones actually seen.
  // That never invents a violation; it can only miss one hidden inside the unknown token.
  std::optional<State> step(const State& s, const Input& in, const Output* out) const;
  std::size_t hash(const State& s) const {
    return hash_combine(static_cast<std::size_t>(s.holder) * 2 + s.holder_token_known,
                        static_cast<std::size_t>(s.token));
  }
  std::string describe(const State& s) const;
  std::string describe(const Input& in, const Output* out) const;
};

}  // namespace lockstep::model
