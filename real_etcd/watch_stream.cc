#include "lockstep/real_etcd/watch_stream.h"

#include "lockstep/real_etcd/convert.h"
#include "lockstep/real_etcd/error_mapping.h"
#include "lockstep/real_etcd/stream_wait.h"

namespace lockstep::real {
namespace {

Error stream_ended_error(const grpc::Status& status) {
  CallFailure f = classify_failure(status.error_code(), status.error_message());
  return Error(ErrorCode::connection_lost, Outcome::indeterminate,
               "watch stream ended: " + f.error.message);
}

}  // namespace

Task<Result<void>> EtcdWatchStream::await_created(Duration max_wait) {
  if (!stream_->has_message() && !stream_->ended()) {
    StreamWait<Stream> wait(loop_, *stream_, max_wait);
    const bool woke = co_await wait;
    if (!woke) co_return Error(ErrorCode::timeout, "watch: no `created` reply within the deadline");
  }
  if (!stream_->has_message()) {
    // Ended before the server answered: its status says why (e.g. unreachable).
    const grpc::Status status = stream_->status();
    CallFailure f = classify_failure(status.error_code(), status.error_message());
    co_return f.error;
  }
  const etcdserverpb::WatchResponse reply = stream_->pop();
  if (!reply.created()) {
    co_return Error(ErrorCode::connection_lost, Outcome::indeterminate,
                    "watch: first reply was not `created`");
  }
  watch_id_ = reply.watch_id();
  created_header_ = from_pb(reply.header());
  if (reply.canceled()) {
    if (reply.compact_revision() > 0) {
      co_return Error(ErrorCode::compacted,
                      "watch: start revision compacted (compact_revision " +
                          std::to_string(reply.compact_revision()) + ")");
    }
    co_return Error(ErrorCode::invalid_argument, "watch refused: " + reply.cancel_reason());
  }
  co_return Result<void>::success();
}

Task<Result<WatchResponse>> EtcdWatchStream::next(Duration max_wait) {
  if (!stream_->has_message() && !stream_->ended()) {
    StreamWait<Stream> wait(loop_, *stream_, max_wait);
    const bool woke = co_await wait;
    if (!woke) {
      co_return Error(ErrorCode::timeout, Outcome::definite,
                      "watch: nothing within " + std::to_string(to_ms(max_wait)) + " ms");
    }
  }
  if (stream_->has_message()) co_return from_pb(stream_->pop());
  co_return stream_ended_error(stream_->status());
}

}  // namespace lockstep::real
