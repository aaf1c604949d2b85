#include "harness/workload.h"

namespace lockstep {

nlohmann::json error_json(const Error& error) {
  nlohmann::json j = {{"error", error_code_name(error.code)}};
  if (!error.message.empty()) j["message"] = error.message;
  return j;
}

EventKind completion_kind(const Error& error) {
  return error.indeterminate() ? EventKind::info : EventKind::fail;
}

namespace {

Task<Result<LockGrant>> acquire_once_or_poll(NodeContext* ctx, Lock* lock, MonoTime deadline,
                                             Duration retry_interval) {
  if (lock->capabilities().blocking) co_return co_await lock->acquire(LockMode::exclusive, deadline);
  for (;;) {
    Result<LockGrant> g = co_await lock->acquire(LockMode::exclusive, deadline);
    if (g.ok() || g.error().code != ErrorCode::lock_busy) co_return g;
    if (ctx->monotonic_now() + retry_interval >= deadline)
      co_return Error(ErrorCode::deadline_exceeded, "the lock stayed busy until the deadline");
    co_await ctx->sleep_for(retry_interval);
  }
}

}  // namespace

Task<void> run_lock_client(NodeContext* ctx, Lock* lock, OperationLog* log,
                           WorkloadConfig config, std::shared_ptr<ClientStop> stop) {
  const std::string& me = ctx->node_name();
  auto local = [ctx] { return ctx->monotonic_now().time_since_epoch(); };
  for (std::int64_t cycle = 0;
       !stop->requested && (config.max_cycles_per_client == 0 || cycle < config.max_cycles_per_client);
       ++cycle) {
    log->invoke(me, "acquire", {{"mode", "exclusive"}}, local());
    const MonoTime deadline = ctx->monotonic_now() + config.acquire_timeout;
    Result<LockGrant> grant =
        co_await acquire_once_or_poll(ctx, lock, deadline, config.try_retry_interval);
    if (!grant.ok()) {
      log->complete(me, completion_kind(grant.error()), error_json(grant.error()), local());
      co_await ctx->sleep_for(config.think_time);
      continue;
    }
    log->complete(me, EventKind::ok,
                  {{"token", grant.value().fencing_token},
                   {"key", escape_bytes(grant.value().key)},
                   {"key_revision", grant.value().key_revision},
                   {"lease", grant.value().lease}},
                  local());
    co_await ctx->sleep_for(config.critical_section);
    log->invoke(me, "release", nullptr, local());
    Result<void> released = co_await lock->release();
    if (released.ok()) {
      log->complete(me, EventKind::ok, nullptr, local());
    } else {
      log->complete(me, completion_kind(released.error()), error_json(released.error()), local());
    }
    co_await ctx->sleep_for(config.think_time);
  }
}

}  // namespace lockstep
