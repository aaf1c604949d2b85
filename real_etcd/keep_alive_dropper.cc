#include "lockstep/real_etcd/keep_alive_dropper.h"

namespace lockstep::real {

Task<Result<LeaseKeepAliveResponse>> KeepAliveDropper::lease_keep_alive(LeaseKeepAliveRequest r) {
  if (dropping_) return drop();
  return inner().lease_keep_alive(std::move(r));
}

Task<Result<LeaseKeepAliveResponse>> KeepAliveDropper::drop() {
  ++dropped_;
  co_await loop_.sleep_real(call_deadline_);
  co_return Error(ErrorCode::timeout, Outcome::indeterminate,
                  "keep-alive dropped (lease-drop fault): no reply before the deadline");
}

}  // namespace lockstep::real
