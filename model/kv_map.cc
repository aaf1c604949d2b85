#include "lockstep/model/kv_map.h"

namespace lockstep::model {

std::optional<KvKey::State> KvKey::step(const State& s, const Input& in,
                                        const Output* out) const {
  switch (in.kind) {
    case Kind::get:
      if (out && out->value != s) return std::nullopt;
      return s;
    case Kind::put:
      return in.value;
    case Kind::append:
      return s + in.value;
  }
  return std::nullopt;
}

std::string KvKey::describe(const State& s) const { return "\"" + s + "\""; }

std::string KvKey::describe(const Input& in, const Output* out) const {
  switch (in.kind) {
    case Kind::get:
      return "get -> " + (out ? "\"" + out->value + "\"" : std::string("?"));
    case Kind::put:
      return "put \"" + in.value + "\"" + (out ? "" : " -> ?");
    case Kind::append:
      return "append \"" + in.value + "\"" + (out ? "" : " -> ?");
  }
  return "?";
}

}  // namespace lockstep::model
