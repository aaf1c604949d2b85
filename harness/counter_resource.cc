#include "lockstep/harness/counter_resource.h"

#include <algorithm>

namespace lockstep {

CounterResource::Reply CounterResource::serve(bool is_write, std::int64_t, std::int64_t value,
                                              std::int64_t token) {
  Reply reply;
  if (fenced_ && token < highest_token_) {
    reply.reason = "stale token " + std::to_string(token) + " < " + std::to_string(highest_token_);
    return reply;
  }
  reply.accepted = true;
  highest_token_ = std::max(highest_token_, token);
  if (is_write) {
    counter_ = value;
    reply.order = ++writes_;
  }
  reply.value = counter_;
  return reply;
}

nlohmann::json CounterResource::truth_args(const std::string& client, bool is_write,
                                           std::int64_t base, std::int64_t value,
                                           std::int64_t token, const Reply& reply) const {
  // Assigned member by member: a braced list builds and converts a json array per member.
  nlohmann::json args;
  args["client"] = client;
  args["token"] = token;
  args["accepted"] = reply.accepted;
  args["fenced"] = fenced_;
  if (is_write) {
    args["base"] = base;
    args["value"] = value;
    if (reply.accepted) args["order"] = reply.order;
  } else if (reply.accepted) {
    args["value"] = reply.value;
  }
  if (!reply.accepted) args["reason"] = reply.reason;
  return args;
}

}  // namespace lockstep
