#include "lockstep/model/register.h"

namespace lockstep::model {

namespace {
std::string value_text(const CasRegister::Value& v) { return v ? std::to_string(*v) : "nil"; }
}  // namespace

std::optional<CasRegister::State> CasRegister::step(const State& s, const Input& in,
                                                    const Output* out) const {
  switch (in.kind) {
    case Kind::read:
      if (out && out->value != s) return std::nullopt;
      return s;
    case Kind::write:
      return State{in.value};
    case Kind::cas: {
      bool matches = s && *s == in.expected;
      if (out && out->succeeded != matches) return std::nullopt;
      return matches ? State{in.value} : s;
    }
  }
  return std::nullopt;
}

std::string CasRegister::describe(const State& s) const { return value_text(s); }

std::string CasRegister::describe(const Input& in, const Output* out) const {
  switch (in.kind) {
    case Kind::read:
      return "read -> " + (out ? value_text(out->value) : "?");
    case Kind::write:
      return "write " + std::to_string(in.value) + (out ? "" : " -> ?");
    case Kind::cas:
      return "cas " + std::to_string(in.expected) + " -> " + std::to_string(in.value) + ": " +
             (out ? (out->succeeded ? "ok" : "failed") : "?");
  }
  return "?";
}

}  // namespace lockstep::model
