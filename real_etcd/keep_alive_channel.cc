#include "lockstep/real_etcd/keep_alive_channel.h"

#include <algorithm>

#include "lockstep/real_etcd/convert.h"

namespace lockstep::real {

// Lives in the frame of a suspended round().
class KeepAliveChannel::RoundAwaiter {
 public:
  RoundAwaiter(KeepAliveChannel& channel, LeaseId id) : channel_(channel), id_(id) {}
  RoundAwaiter(const RoundAwaiter&) = delete;
  RoundAwaiter& operator=(const RoundAwaiter&) = delete;
  ~RoundAwaiter() {
    // Destroyed while waiting: leave an orphan entry so the reply is still consumed.
    for (auto& p : channel_.pending_) {
      if (p.waiter == this) p.waiter = nullptr;
    }
    std::erase(channel_.ready_, this);
  }

  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    waiter_ = h;
    channel_.pending_.push_back(Pending{id_, this});
    timer_ = Timer::start(channel_.client_.loop, channel_.client_.options.call_deadline,
                          &RoundAwaiter::on_timeout, this);
  }
  Result<LeaseKeepAliveResponse> await_resume() { return std::move(*result_); }

 private:
  friend class KeepAliveChannel;
  static void on_timeout(void* self) {
    auto* w = static_cast<RoundAwaiter*>(self);
    w->timer_.forget();
    KeepAliveChannel& ch = w->channel_;
    for (auto& p : ch.pending_) {
      if (p.waiter == w) p.waiter = nullptr;
    }
    ch.complete(w, Error(ErrorCode::timeout, "lease keep-alive: no reply within the deadline"));
    ch.client_.endpoint_failed(ch.stream_endpoint_);
    ch.reset(Error(ErrorCode::connection_lost,
                   "lease keep-alive stream reset after another round timed out"));
  }

  KeepAliveChannel& channel_;
  LeaseId id_;
  std::coroutine_handle<> waiter_;
  TimerHandle timer_;
  std::optional<Result<LeaseKeepAliveResponse>> result_;
};

KeepAliveChannel::~KeepAliveChannel() {
  if (stream_) stream_->release();
}

void KeepAliveChannel::open_stream() {
  stream_endpoint_ = client_.current;
  stream_ = Stream::create(client_.loop);
  client_.prepare_context(stream_->context(), false);
  stream_->set_listener(&KeepAliveChannel::on_stream_event, this);
  stream_->start(client_.endpoints[stream_endpoint_].lease->PrepareAsyncLeaseKeepAlive(
      &stream_->context(), client_.loop.cq()));
}

void KeepAliveChannel::on_stream_event(void* self) {
  auto* ch = static_cast<KeepAliveChannel*>(self);
  while (ch->stream_ && ch->stream_->has_message()) {
    const pb::LeaseKeepAliveResponse reply = ch->stream_->pop();
    auto it = std::find_if(ch->pending_.begin(), ch->pending_.end(),
                           [&](const Pending& p) { return p.id == reply.id(); });
    if (it == ch->pending_.end()) continue;  // a reply nobody asked for: ignore
    RoundAwaiter* waiter = it->waiter;
    ch->pending_.erase(it);
    if (waiter) ch->complete(waiter, from_pb(reply));
  }
  if (ch->stream_ && ch->stream_->ended()) {
    const auto status = ch->stream_->status();
    CallFailure f = classify_failure(status.error_code(), status.error_message());
    ch->client_.explain_unavailable(ch->stream_endpoint_, f.error);
    ch->client_.endpoint_failed(ch->stream_endpoint_);
    ch->reset(Error(ErrorCode::connection_lost, Outcome::indeterminate,
                    "lease keep-alive stream ended: " + f.error.message));
  }
  ch->resume_ready();
}

void KeepAliveChannel::reset(const Error& error) {
  if (stream_) {
    stream_->release();
    stream_ = nullptr;
  }
  std::deque<Pending> failed;
  failed.swap(pending_);
  for (auto& p : failed) {
    if (p.waiter) complete(p.waiter, error);
  }
  resume_ready();
}

void KeepAliveChannel::complete(RoundAwaiter* waiter, Result<LeaseKeepAliveResponse> result) {
  waiter->timer_.cancel();
  waiter->result_.emplace(std::move(result));
  ready_.push_back(waiter);
}

void KeepAliveChannel::resume_ready() {
  // One at a time, re-reading ready_ each time: a resumed round may destroy another waiting
  // round's frame, whose awaiter then removes itself from ready_.
  if (resuming_) return;
  resuming_ = true;
  while (!ready_.empty()) {
    RoundAwaiter* w = ready_.front();
    ready_.erase(ready_.begin());
    std::exchange(w->waiter_, {}).resume();
  }
  resuming_ = false;
}

Task<Result<LeaseKeepAliveResponse>> KeepAliveChannel::round(LeaseKeepAliveRequest request) {
  Result<void> authed = co_await client_.ensure_token(client_.current);
  if (!authed.ok()) co_return authed.error();
  if (!stream_) open_stream();
  stream_->write(to_pb(request));
  RoundAwaiter awaiter(*this, request.id);
  Result<LeaseKeepAliveResponse> result = co_await awaiter;
  co_return result;
}

}  // namespace lockstep::real
