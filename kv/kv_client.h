// KvClient: the etcd v3 KV, Lease and Watch API as an algorithm sees it.
//
// Contract:
//   - Each call sends one request and completes with its response, a definite error (the
//     request was refused or never sent: nothing happened) or an indeterminate error (it may
//     have been applied). See result.h.
//   - Requests and responses mirror etcd's messages (types.h); a response's header carries the
//     store revision at which it was served.
//   - A backend applies its own per-call deadline; a call never waits for ever.
//   - Destroying an in-flight call (its Task) abandons it: the request may still be applied.
//   - Implementations: the simulator's client (sim/) and the gRPC client (real_etcd/).
#pragma once

#include <memory>

#include "lockstep/kv/result.h"
#include "lockstep/kv/task.h"
#include "lockstep/kv/time.h"
#include "lockstep/kv/types.h"

namespace lockstep {

// An established watch. Destroying it cancels the watch on the server.
class WatchStream {
 public:
  virtual ~WatchStream() = default;

  // The id the server assigned, and the header of the `created` reply.
  virtual std::int64_t watch_id() const = 0;
  virtual const ResponseHeader& created_header() const = 0;

  // The next batch of events (or a cancellation, with `canceled` and maybe
  // `compact_revision` set). Waits at most `max_wait`; then fails with a definite
  // ErrorCode::timeout (nothing was lost: a later next() still returns the events). A
  // transport failure ends the stream with an indeterminate error.
  virtual Task<Result<WatchResponse>> next(Duration max_wait) = 0;
};

class KvClient {
 public:
  virtual ~KvClient() = default;

  virtual Task<Result<RangeResponse>> range(RangeRequest request) = 0;
  virtual Task<Result<PutResponse>> put(PutRequest request) = 0;
  virtual Task<Result<DeleteRangeResponse>> delete_range(DeleteRangeRequest request) = 0;
  virtual Task<Result<TxnResponse>> txn(TxnRequest request) = 0;
  virtual Task<Result<CompactionResponse>> compact(CompactionRequest request) = 0;

  virtual Task<Result<LeaseGrantResponse>> lease_grant(LeaseGrantRequest request) = 0;
  virtual Task<Result<LeaseRevokeResponse>> lease_revoke(LeaseRevokeRequest request) = 0;
  // One keep-alive round trip (etcd's LeaseKeepAlive stream, one message each way).
  virtual Task<Result<LeaseKeepAliveResponse>> lease_keep_alive(LeaseKeepAliveRequest request) = 0;
  virtual Task<Result<LeaseTimeToLiveResponse>> lease_time_to_live(
      LeaseTimeToLiveRequest request) = 0;

  // etcd's lock service (v3lock): Lock waits on the server until the lock is held for the
  // lease (or the call's deadline passes); Unlock deletes the returned key.
  virtual Task<Result<LockResponse>> lock(LockRequest request) = 0;
  virtual Task<Result<UnlockResponse>> unlock(UnlockRequest request) = 0;

  // Completes once the server confirmed the watch (`created`), or with an error.
  virtual Task<Result<std::unique_ptr<WatchStream>>> watch(WatchCreateRequest request) = 0;
};

}  // namespace lockstep
