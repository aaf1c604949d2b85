// What a sequential specification (a "model") looks like to the linearizability checker.
//
// A model is a plain type M with
//   using State  = ...;  // small, copyable, equality-comparable; the state of ONE partition
//   using Input  = ...;  // what the operation asked for (its arguments)
//   using Output = ...;  // what it answered
//   State init() const;
//   // The state after the operation takes effect in `state` and answers `output`, or nullopt
//   // when the sequential object could not have given that answer there. A null `output`
//   // means the answer is unknown (an indeterminate operation): the call is then applied as
//   // it would have been, whatever it answered.
//   std::optional<State> step(const State& state, const Input& in, const Output* output) const;
//   std::size_t hash(const State& state) const;
//   std::string describe(const State& state) const;
//   std::string describe(const Input& in, const Output* output) const;
//
// Every model here is deterministic: given the state, the input and the output there is at most
// one next state. That is what lets the checker intern states as small integers.
//
// Partitioning (P-compositionality) is not a model's business: a model describes one lock, one
// register or one key; the checker's adapters split a history into independent partitions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lockstep::model {

// boost::hash_combine's mixing step, widened to 64 bits.
inline std::size_t hash_combine(std::size_t seed, std::size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 12) + (seed >> 4));
}

}  // namespace lockstep::model
