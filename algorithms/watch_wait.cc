#include "lockstep/algorithms/watch_wait.h"

#include <utility>

namespace lockstep {

bool has_delete_event(const WatchResponse& response) {
  for (const auto& e : response.events)
    if (e.type == EventType::del) return true;
  return false;
}

bool has_any_event(const WatchResponse& response) { return !response.events.empty(); }

Task<Result<WatchWaitEnd>> wait_on_watch(NodeContext& ctx, WatchCreateRequest request,
                                         bool (*wakes)(const WatchResponse&), MonoTime deadline,
                                         const char* deadline_message) {
  Result<std::unique_ptr<WatchStream>> stream = co_await ctx.kv().watch(std::move(request));
  if (!stream.ok()) co_return stream.error();
  co_return co_await wait_on_stream(ctx, *stream.value(), wakes, deadline, deadline_message);
}

Task<Result<WatchWaitEnd>> wait_on_stream(NodeContext& ctx, WatchStream& stream,
                                          bool (*wakes)(const WatchResponse&), MonoTime deadline,
                                          const char* deadline_message) {
  for (;;) {
    const Duration left = deadline - ctx.monotonic_now();
    if (left.count() <= 0) co_return Error(ErrorCode::deadline_exceeded, deadline_message);
    Result<WatchResponse> next = co_await stream.next(left);
    if (!next.ok()) {
      if (next.error().code == ErrorCode::timeout && !next.error().indeterminate()) continue;
      co_return next.error();
    }
    if (next.value().canceled) co_return WatchWaitEnd{true, next.value().cancel_reason};
    if (wakes(next.value())) co_return WatchWaitEnd{};
  }
}

}  // namespace lockstep
