#include "lockstep/harness/workload.h"

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

Task<Result<LockGrant>> acquire_once_or_poll(NodeContext* ctx, Lock* lock, LockMode mode,
                                             MonoTime deadline, Duration retry_interval) {
  if (lock->capabilities().blocking) co_return co_await lock->acquire(mode, deadline);
  for (;;) {
    Result<LockGrant> g = co_await lock->acquire(mode, deadline);
    if (g.ok() || g.error().code != ErrorCode::lock_busy) co_return g;
    if (ctx->monotonic_now() + retry_interval >= deadline)
      co_return Error(ErrorCode::deadline_exceeded, "the lock stayed busy until the deadline");
    co_await ctx->sleep_for(retry_interval);
  }
}

// One acquire operation, recorded. Returns the grant when it succeeded.
Task<Result<LockGrant>> recorded_acquire(NodeContext* ctx, Lock* lock, OperationLog* log,
                                         LockMode mode, bool reentry,
                                         const WorkloadConfig& config) {
  const std::string& me = ctx->node_name();
  nlohmann::json args = {{"mode", mode == LockMode::shared ? "shared" : "exclusive"}};
  if (reentry) args["reentrant"] = true;
  log->invoke(me, "acquire", std::move(args), ctx->monotonic_now().time_since_epoch());
  const MonoTime deadline = ctx->monotonic_now() + config.acquire_timeout;
  Result<LockGrant> grant =
      co_await acquire_once_or_poll(ctx, lock, mode, deadline, config.try_retry_interval);
  const Duration local = ctx->monotonic_now().time_since_epoch();
  if (!grant.ok()) {
    log->complete(me, completion_kind(grant.error()), error_json(grant.error()), local);
  } else {
    nlohmann::json result;  // member by member: cheaper than a braced list
    result["token"] = grant.value().fencing_token;
    result["key"] = escape_bytes(grant.value().key);
    result["key_revision"] = grant.value().key_revision;
    result["lease"] = grant.value().lease;
    log->complete(me, EventKind::ok, std::move(result), local);
  }
  co_return grant;
}

// The critical section's read-modify-write of the resource (a read only in shared mode).
Task<void> touch_resource(NodeContext* ctx, ProtectedResource* resource, OperationLog* log,
                          std::int64_t token, bool write) {
  const std::string& me = ctx->node_name();
  auto local = [ctx] { return ctx->monotonic_now().time_since_epoch(); };
  log->invoke(me, "read", {{"token", token}}, local());
  Result<ResourceRead> read = co_await resource->read(token);
  if (!read.ok()) {
    log->complete(me, completion_kind(read.error()), error_json(read.error()), local());
    co_return;
  }
  log->complete(me, EventKind::ok, {{"value", read.value().value}}, local());
  if (!write) co_return;
  const std::int64_t base = read.value().value;
  log->invoke(me, "write", {{"token", token}, {"base", base}, {"value", base + 1}}, local());
  Result<ResourceWrite> written = co_await resource->write(base, base + 1, token);
  if (!written.ok()) {
    log->complete(me, completion_kind(written.error()), error_json(written.error()), local());
  } else {
    log->complete(me, EventKind::ok, {{"order", written.value().order}}, local());
  }
}

}  // namespace

Task<void> run_lock_client(NodeContext* ctx, Lock* lock, ProtectedResource* resource,
                           OperationLog* log, WorkloadConfig config,
                           std::shared_ptr<ClientStop> stop) {
  const std::string& me = ctx->node_name();
  const LockCapabilities caps = lock->capabilities();
  for (std::int64_t cycle = 0; !stop->requested && (config.max_cycles_per_client == 0 ||
                                                    cycle < config.max_cycles_per_client);
       ++cycle) {
    const bool shared = caps.shared_mode &&
                        static_cast<std::int64_t>(ctx->rng().below(100)) < config.shared_percent;
    const LockMode mode = shared ? LockMode::shared : LockMode::exclusive;
    Result<LockGrant> grant = co_await recorded_acquire(ctx, lock, log, mode, false, config);
    if (!grant.ok()) {
      co_await ctx->sleep_for(config.think_time);
      continue;
    }
    int holds = 1;
    if (caps.reentrant) {
      for (std::int64_t i = 0; i < config.reentrant_depth; ++i) {
        Result<LockGrant> again = co_await recorded_acquire(ctx, lock, log, mode, true, config);
        if (again.ok()) ++holds;
      }
    }
    if (resource && config.use_resource) {
      resource->on_grant(grant.value());
      co_await touch_resource(ctx, resource, log, grant.value().fencing_token, !shared);
    }
    co_await ctx->sleep_for(config.critical_section);
    for (; holds > 0; --holds) {
      log->invoke(me, "release", nullptr, ctx->monotonic_now().time_since_epoch());
      Result<void> released = co_await lock->release();
      const Duration local = ctx->monotonic_now().time_since_epoch();
      if (released.ok()) {
        log->complete(me, EventKind::ok, nullptr, local);
      } else {
        log->complete(me, completion_kind(released.error()), error_json(released.error()), local);
      }
    }
    co_await ctx->sleep_for(config.think_time);
  }
}

}  // namespace lockstep
