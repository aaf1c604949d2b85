#include "lockstep/model/mutex.h"

namespace lockstep::model {

namespace {
std::string holder_name(ProcessId p) { return p == 0 ? "free" : "held by " + std::to_string(p); }
}  // namespace

std::optional<OwnerMutex::State> OwnerMutex::step(const State& s, const Input& in,
                                                  const Output*) const {
  if (in.kind == Kind::acquire) {
    if (s != 0) return std::nullopt;
    return in.process;
  }
  if (s != in.process) return std::nullopt;
  return 0;
}

std::string OwnerMutex::describe(const State& s) const { return holder_name(s); }

std::string OwnerMutex::describe(const Input& in, const Output* out) const {
  return std::string(in.kind == Kind::acquire ? "acquire" : "release") + " by " +
         std::to_string(in.process) + (out ? "" : " (indeterminate)");
}

std::optional<FencedMutex::State> FencedMutex::step(const State& s, const Input& in,
                                                    const Output* out) const {
  if (in.kind == Kind::acquire) {
    if (s.holder != 0) return std::nullopt;
    State next{in.process, s.token, false};
    if (out && out->token) {
      if (*out->token <= s.token) return std::nullopt;  // tokens must strictly increase
      next.token = *out->token;
      next.holder_token_known = true;
    }
    return next;
  }
  if (s.holder != in.process) return std::nullopt;
  // Only a token that was actually observed can be contradicted.
  if (in.token && s.holder_token_known && *in.token != s.token) return std::nullopt;
  return State{0, s.token, false};
}

std::string FencedMutex::describe(const State& s) const {
  std::string text = holder_name(s.holder);
  if (s.token != INT64_MIN) text += ", last token " + std::to_string(s.token);
  return text;
}

std::string FencedMutex::describe(const Input& in, const Output* out) const {
  if (in.kind == Kind::acquire) {
    std::string text = "acquire by " + std::to_string(in.process);
    if (!out) return text + " -> ?";
    return text + " -> token " + (out->token ? std::to_string(*out->token) : "unknown");
  }
  std::string text = "release by " + std::to_string(in.process);
  if (in.token) text += " of token " + std::to_string(*in.token);
  return out ? text : text + " (indeterminate)";
}

}  // namespace lockstep::model
