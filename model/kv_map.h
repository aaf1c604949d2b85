// One key of a get/put/append key-value map (Porcupine's kv test: 6.824-style clients).
//
// The map is the product of its keys, and operations touch one key each, so the checker splits
// a map history by key (P-compositionality) and checks each key against this model. A missing
// key reads as the empty string, as in those tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lockstep/model/model.h"

namespace lockstep::model {

struct KvKey {
  using State = std::string;  // the key's value
  enum class Kind : std::uint8_t { get, put, append };
  struct Input {
    Kind kind = Kind::get;
    std::string value;  // put / append
  };
  struct Output {
    std::string value;  // get: what it returned
  };

  State init() const { return {}; }
  std::optional<State> step(const State& s, const Input& in, const Output* out) const;
  std::size_t hash(const State& s) const { return std::hash<std::string>{}(s); }
  std::string describe(const State& s) const;
  std::string describe(const Input& in, const Output* out) const;
};

}  // namespace lockstep::model
