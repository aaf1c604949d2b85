// EtcdWatchStream: a WatchStream over one etcd Watch bidi stream holding a single watch.
// Private to real_etcd/ (EtcdKvClient::watch hands it out as a WatchStream).
//
// Contract: see kv/kv_client.h. await_created() consumes the server's `created` reply;
// next() returns later replies in order (events, or a cancellation with compact_revision);
// a timeout is a definite ErrorCode::timeout and loses nothing; the end of the stream is an
// indeterminate connection_lost. Destroying it cancels the gRPC call.
#pragma once

#include "etcdpb/rpc.grpc.pb.h"
#include "lockstep/kv/kv_client.h"
#include "lockstep/real_etcd/bidi_stream.h"
#include "lockstep/real_etcd/loop_core.h"

namespace lockstep::real {

class EtcdWatchStream final : public WatchStream {
 public:
  using Stream = BidiStream<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>;

  // Takes ownership of `stream` (already started, create request written).
  EtcdWatchStream(LoopCore& loop, Stream* stream) : loop_(loop), stream_(stream) {}
  ~EtcdWatchStream() override { stream_->release(); }

  std::int64_t watch_id() const override { return watch_id_; }
  const ResponseHeader& created_header() const override { return created_header_; }
  Task<Result<WatchResponse>> next(Duration max_wait) override;

  // Waits for the `created` reply. Errors: timeout (indeterminate), the stream's failure, or
  // the server's refusal (created and canceled at once).
  Task<Result<void>> await_created(Duration max_wait);

 private:
  LoopCore& loop_;
  Stream* stream_;
  std::int64_t watch_id_ = -1;
  ResponseHeader created_header_;
};

}  // namespace lockstep::real
