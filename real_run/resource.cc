#include "lockstep/real_run/resource.h"

namespace lockstep {

RealResourceService::Reply RealResourceService::serve(const std::string& client, bool is_write,
                                                      std::int64_t base, std::int64_t value,
                                                      std::int64_t token) {
  // Held while recording, so the truth events are in the service's own order.
  std::lock_guard<std::mutex> g(mu_);
  const Reply reply = counter_.serve(is_write, base, value, token);
  log_.truth("resource", CounterResource::truth_op(is_write),
             counter_.truth_args(client, is_write, base, value, token, reply));
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
