#include "lockstep/real_run/truth_watcher.h"

#include <chrono>

#include "lockstep/kv_json/truth_json.h"
#include "lockstep/real_etcd/etcd_kv_client.h"
#include "lockstep/real_etcd/event_loop.h"
#include "lockstep/real_etcd/prefixed_kv_client.h"

namespace lockstep {

namespace {

Task<Result<RangeResponse>> read_revision(KvClient* kv) {
  RangeRequest r;
  r.key = "lockstep-revision-probe";
  r.count_only = true;
  co_return co_await kv->range(r);
}

struct WatchState {
  KvClient* kv = nullptr;
  RealHistoryLog* log = nullptr;
  std::atomic<bool>* finish_requested = nullptr;
  std::atomic<bool>* abandon = nullptr;
  std::atomic<bool>* caught_up = nullptr;
  std::atomic<std::int64_t>* recorded = nullptr;
  std::int64_t next_revision = 0;
  std::int64_t sentinel_revision = 0;  // 0: not written yet
};

void record(WatchState& s, const Event& e) {
  if (e.kv.key == RealTruthWatcher::kSentinelKey) return;
  s.log->truth("etcd", key_event_truth_op(e), key_event_truth_args(e));
  ++*s.recorded;
}

Task<void> watch_loop(WatchState* s, real::EventLoop* loop) {
  while (!s->abandon->load()) {
    if (s->finish_requested->load() && s->sentinel_revision == 0) {
      PutRequest put;
      put.key = RealTruthWatcher::kSentinelKey;
      put.value = "end";
      Result<PutResponse> p = co_await s->kv->put(put);
      if (p.ok()) s->sentinel_revision = p.value().header.revision;
    }
    WatchCreateRequest req;
    req.key = std::string(1, '\0');  // with range_end "\0": every key of the prefix
    req.range_end = std::string(1, '\0');
    req.start_revision = s->next_revision;
    Result<std::unique_ptr<WatchStream>> w = co_await s->kv->watch(req);
    if (!w.ok()) {
      co_await loop->sleep_real(milliseconds(100));
      continue;
    }
    std::unique_ptr<WatchStream> stream = std::move(w.value());
    for (;;) {
      if (s->abandon->load()) co_return;
      if (s->finish_requested->load() && s->sentinel_revision == 0) break;  // write it first
      Result<WatchResponse> r = co_await stream->next(milliseconds(100));
      if (!r.ok()) {
        if (r.error().code == ErrorCode::timeout && r.error().outcome == Outcome::definite) continue;
        break;  // the stream broke: reopen from next_revision
      }
      if (r.value().canceled) {
        // Compacted past what we still need: the changes in between are lost to us.
        if (r.value().compact_revision > s->next_revision) {
          s->log->trace("etcd", Duration(0),
                        "truth watcher: revisions " + std::to_string(s->next_revision) + ".." +
                            std::to_string(r.value().compact_revision - 1) +
                            " were compacted before the watch saw them");
          s->next_revision = r.value().compact_revision;
        }
        break;
      }
      for (const auto& e : r.value().events) {
        if (e.kv.mod_revision < s->next_revision) continue;  // seen before a reopen
        record(*s, e);
        s->next_revision = e.kv.mod_revision + 1;
        if (s->sentinel_revision != 0 && e.kv.mod_revision >= s->sentinel_revision) {
          s->caught_up->store(true);
          co_return;
        }
      }
    }
  }
}

}  // namespace

RealTruthWatcher::RealTruthWatcher(std::vector<std::string> endpoints, std::string key_prefix,
                                   Duration call_deadline, real::EtcdClientSecurity security,
                                   RealHistoryLog& log)
    : endpoints_(std::move(endpoints)),
      prefix_(std::move(key_prefix)),
      call_deadline_(call_deadline),
      security_(std::move(security)),
      log_(log) {}

RealTruthWatcher::~RealTruthWatcher() {
  abandon_ = true;
  if (thread_.joinable()) thread_.join();
}

Result<std::int64_t> RealTruthWatcher::current_revision(const std::vector<std::string>& endpoints,
                                                        Duration call_deadline,
                                                        const real::EtcdClientSecurity& security) {
  real::EventLoop loop;
  real::EtcdClientOptions options;
  options.endpoints = endpoints;
  options.call_deadline = call_deadline;
  options.set_security(security);
  auto client = real::EtcdKvClient::create(loop, options);
  if (!client) return client.error();
  Result<RangeResponse> r = Error(ErrorCode::unavailable, "no endpoint answered");
  // Each endpoint once, so one dead member does not fail the run's start.
  for (std::size_t i = 0; i < endpoints.size() && !r.ok(); ++i)
    r = loop.run(read_revision(client.value().get()));
  if (!r.ok()) return r.error();
  return r.value().header.revision;
}

void RealTruthWatcher::start(std::int64_t first_revision) {
  thread_ = std::thread([this, first_revision] { thread_main(first_revision); });
}

void RealTruthWatcher::thread_main(std::int64_t first_revision) {
  real::EventLoop loop;
  real::EtcdClientOptions options;
  options.endpoints = endpoints_;
  options.call_deadline = call_deadline_;
  options.set_security(security_);
  auto client = real::EtcdKvClient::create(loop, options);
  if (!client) {
    log_.trace("etcd", Duration(0), "truth watcher: " + client.error().to_string());
    return;
  }
  {
    real::PrefixedKvClient prefixed(*client.value(), prefix_);
    WatchState s;
    s.kv = &prefixed;
    s.log = &log_;
    s.finish_requested = &finish_requested_;
    s.abandon = &abandon_;
    s.caught_up = &caught_up_;
    s.recorded = &recorded_;
    s.next_revision = first_revision;
    loop.run(watch_loop(&s, &loop));
  }
  client.value().reset();
}

bool RealTruthWatcher::finish(Duration max_wait) {
  finish_requested_ = true;
  const auto deadline = std::chrono::steady_clock::now() + max_wait;
  while (!caught_up_.load() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const bool ok = caught_up_.load();
  abandon_ = true;
  if (thread_.joinable()) thread_.join();
  return ok;
}

}  // namespace lockstep
