// KeepAliveChannel: lease keep-alive rounds over one shared LeaseKeepAlive stream. Private.
//
// Contract:
//   - round(id) writes one LeaseKeepAliveRequest and completes with the next reply for that
//     lease id (the server answers in order), within options.call_deadline.
//   - The stream is opened lazily on the client's current endpoint and kept open. When it
//     fails, every pending round fails with an indeterminate connection_lost and the next
//     round reopens it (on the next endpoint). A round that times out also resets the stream
//     so that a late reply cannot be mistaken for the answer to a later round.
//   - A round whose Task is destroyed leaves an orphan entry that swallows its reply.
#pragma once

#include <coroutine>
#include <deque>
#include <optional>
#include <vector>

#include "etcdpb/rpc.grpc.pb.h"
#include "lockstep/kv/result.h"
#include "lockstep/kv/task.h"
#include "lockstep/kv/types.h"
#include "lockstep/real_etcd/bidi_stream.h"
#include "lockstep/real_etcd/client_core.h"
#include "lockstep/real_etcd/timer.h"

namespace lockstep::real {

class KeepAliveChannel {
 public:
  explicit KeepAliveChannel(ClientCore& client) : client_(client) {}
  ~KeepAliveChannel();
  KeepAliveChannel(const KeepAliveChannel&) = delete;
  KeepAliveChannel& operator=(const KeepAliveChannel&) = delete;

  Task<Result<LeaseKeepAliveResponse>> round(LeaseKeepAliveRequest request);

 private:
  using Stream = BidiStream<pb::LeaseKeepAliveRequest, pb::LeaseKeepAliveResponse>;
  class RoundAwaiter;
  struct Pending {
    LeaseId id;
    RoundAwaiter* waiter;  // null: orphan (its round gave up or was destroyed)
  };

  void open_stream();
  static void on_stream_event(void* self);
  // Drops the stream and fails every pending round with `error`.
  void reset(const Error& error);
  void complete(RoundAwaiter* waiter, Result<LeaseKeepAliveResponse> result);
  void resume_ready();

  ClientCore& client_;
  Stream* stream_ = nullptr;
  std::size_t stream_endpoint_ = 0;
  std::deque<Pending> pending_;
  std::vector<RoundAwaiter*> ready_;  // completed rounds waiting to be resumed
  bool resuming_ = false;
};

}  // namespace lockstep::real
