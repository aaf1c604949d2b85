// A compare-and-set register over integers, initially absent (Jepsen's etcd test: reads of a
// key never written return nil).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lockstep/model/model.h"

namespace lockstep::model {

struct CasRegister {
  using Value = std::optional<std::int64_t>;  // nullopt: absent
  using State = Value;
  enum class Kind : std::uint8_t { read, write, cas };
  struct Input {
    Kind kind = Kind::read;
    std::int64_t value = 0;     // write: the value; cas: the new value
    std::int64_t expected = 0;  // cas only
  };
  struct Output {
    Value value;             // read: what it returned
    bool succeeded = false;  // cas: whether the compare matched (and the write happened)
  };

  State init() const { return std::nullopt; }
  // An indeterminate cas applies iff the compare matches, as the server would have.
  std::optional<State> step(const State& s, const Input& in, const Output* out) const;
  std::size_t hash(const State& s) const {
    return s ? static_cast<std::size_t>(*s) * 0x9e3779b97f4a7c15ULL : 0x51ed27ULL;
  }
  std::string describe(const State& s) const;
  std::string describe(const Input& in, const Output* out) const;
};

}  // namespace lockstep::model
