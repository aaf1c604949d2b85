// UnaryCall: one asynchronous unary gRPC call, awaitable from a coroutine. Private.
//
// Contract: the heap UnaryCall owns everything gRPC references until the Finish event comes
// back (context, response, status, reader). The UnaryAwaiter (in the awaiting frame) owns the
// call while it waits; if the frame is destroyed first, the awaiter marks the call abandoned
// and cancels it, and the call frees itself when its tag returns. So a tag never points to
// freed memory and a destroyed coroutine is never resumed.
#pragma once

#include <grpcpp/client_context.h>
#include <grpcpp/support/async_unary_call.h>
#include <grpcpp/support/status.h>

#include <coroutine>
#include <memory>
#include <utility>

#include "lockstep/real_etcd/loop_core.h"

namespace lockstep::real {

template <typename Resp>
struct UnaryOutcome {
  grpc::Status status;
  Resp response;
};

template <typename Resp>
class UnaryCall final : public CqTag {
 public:
  grpc::ClientContext context;
  Resp response;
  grpc::Status status;
  std::unique_ptr<grpc::ClientAsyncResponseReader<Resp>> reader;

  void on_cq_event(bool /*ok: always true for Finish*/) override {
    if (abandoned_) {
      delete this;
      return;
    }
    done_ = true;
    if (auto h = std::exchange(waiter_, {})) h.resume();
  }

 private:
  template <typename>
  friend class UnaryAwaiter;
  std::coroutine_handle<> waiter_;
  bool abandoned_ = false;
  bool done_ = false;
};

template <typename Resp>
class UnaryAwaiter {
 public:
  explicit UnaryAwaiter(UnaryCall<Resp>* call) : call_(call) {}
  UnaryAwaiter(const UnaryAwaiter&) = delete;
  UnaryAwaiter& operator=(const UnaryAwaiter&) = delete;
  ~UnaryAwaiter() {
    if (call_->done_) {
      delete call_;
    } else {
      call_->abandoned_ = true;
      call_->waiter_ = {};
      call_->context.TryCancel();
    }
  }

  bool await_ready() const noexcept { return call_->done_; }
  void await_suspend(std::coroutine_handle<> h) noexcept { call_->waiter_ = h; }
  UnaryOutcome<Resp> await_resume() {
    return UnaryOutcome<Resp>{std::move(call_->status), std::move(call_->response)};
  }

 private:
  UnaryCall<Resp>* call_;
};

}  // namespace lockstep::real
