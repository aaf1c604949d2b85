// Waiting on a watch, the loop every lock that waits for a predecessor runs: wait until a
// response `wakes` the waiter, the watch is cancelled, or the deadline passes.
//
// Contract: opens a watch of `request`; returns `woken` for the first response for which
// wakes(response) is true, `cancelled` (with etcd's reason) when the server cancels the watch
// (a compacted start revision), deadline_exceeded with `deadline_message` once `deadline`
// passes, and any other error of the watch as it is. A quiet stream (next() timing out before
// the deadline, definitely) is not an error: the wait goes on. What a cancel means is the
// caller's: etcd's Mutex fails, Curator's recipe lists again, a tutorial lock proceeds.
#pragma once

#include <string>

#include "lockstep/kv/node_context.h"

namespace lockstep {

struct WatchWaitEnd {
  bool cancelled = false;
  std::string cancel_reason;
};

// Whether a response has a delete event (etcd's waitDelete, Curator's node-deleted watcher).
bool has_delete_event(const WatchResponse& response);
// Whether a response has any event (a watch filtered to deletes wakes on each).
bool has_any_event(const WatchResponse& response);

Task<Result<WatchWaitEnd>> wait_on_watch(NodeContext& ctx, WatchCreateRequest request,
                                         bool (*wakes)(const WatchResponse&), MonoTime deadline,
                                         const char* deadline_message);

// The same wait on a watch the caller opened already (to read something between its creation
// and the wait). `stream` must outlive the returned task.
Task<Result<WatchWaitEnd>> wait_on_stream(NodeContext& ctx, WatchStream& stream,
                                          bool (*wakes)(const WatchResponse&), MonoTime deadline,
                                          const char* deadline_message);

}  // namespace lockstep
