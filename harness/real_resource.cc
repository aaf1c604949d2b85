#include "harness/real_resource.h"

#include <algorithm>

namespace lockstep {

RealResourceService::Reply RealResourceService::serve(const std::string& client, bool is_write,
                                                      std::int64_t base, std::int64_t value,
                                                      std::int64_t token) {
  // Held while recording, so the truth events are in the service's own order.
  std::lock_guard<std::mutex> g(mu_);
  Reply reply;
  if (fenced_ && token < highest_token_) {
    reply.reason = "stale token " + std::to_string(token) + " < " + std::to_string(highest_token_);
  } else {
    reply.accepted = true;
    highest_token_ = std::max(highest_token_, token);
    if (is_write) {
      counter_ = value;
      reply.order = ++writes_;
    }
    reply.value = counter_;
  }
  nlohmann::json args = {
      {"client", client}, {"token", token}, {"accepted", reply.accepted}, {"fenced", fenced_}};
  if (is_write) {
    args["base"] = base;
    args["value"] = value;
    if (reply.accepted) args["order"] = reply.order;
  } else if (reply.accepted) {
    args["value"] = reply.value;
  }
  if (!reply.accepted) args["reason"] = reply.reason;
  log_.truth("resource", is_write ? "resource-write" : "resource-read", args);
  return reply;
}

Task<Result<ResourceRead>> RealResourceClient::read(std::int64_t token) {
  const RealResourceService::Reply r = service_.serve(client_, false, 0, 0, token);
  if (!r.accepted) co_return Error(ErrorCode::rejected, r.reason);
  co_return ResourceRead{r.value};
}

Task<Result<ResourceWrite>> RealResourceClient::write(std::int64_t base, std::int64_t value,
                                                      std::int64_t token) {
  const RealResourceService::Reply r = service_.serve(client_, true, base, value, token);
  if (!r.accepted) co_return Error(ErrorCode::rejected, r.reason);
  co_return ResourceWrite{r.order};
}

}  // namespace lockstep
