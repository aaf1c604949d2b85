// BidiStream: one bidirectional gRPC stream (Watch, LeaseKeepAlive) driven by the loop.
// Private to real_etcd/.
//
// Contract:
//   - Heap-allocated, owned by one owner until release(), and by its own outstanding
//     operations after that; it deletes itself when both are gone, so its tags never dangle.
//   - While alive it keeps one Read outstanding; messages queue in an inbox. Writes queue in
//     an outbox and go out one at a time (gRPC allows one outstanding write).
//   - When reading fails (server closed, cancelled, connection lost) it calls Finish and then
//     reports ended() with the final status.
//   - The listener (one slot) is called on the loop thread after a message arrived or the
//     stream ended; it may call release() or set another listener.
//   - release(): cancels the call (etcd does not end a Watch stream when the client
//     half-closes it) and lets the stream free itself once Finish came back.
#pragma once

#include <grpcpp/client_context.h>
#include <grpcpp/support/async_stream.h>
#include <grpcpp/support/status.h>

#include <deque>
#include <memory>
#include <utility>

#include "lockstep/real_etcd/loop_core.h"

namespace lockstep::real {

template <typename W, typename R>
class BidiStream {
 public:
  using Listener = void (*)(void* arg);
  using ReaderWriter = grpc::ClientAsyncReaderWriter<W, R>;

  static BidiStream* create(LoopCore& core) { return new BidiStream(core); }

  // Configure (metadata) before start().
  grpc::ClientContext& context() { return context_; }

  // `rw` was made by a stub's PrepareAsyncX(&context(), cq).
  void start(std::unique_ptr<ReaderWriter> rw) {
    rw_ = std::move(rw);
    ++outstanding_;
    rw_->StartCall(core_.issue(&start_tag_));
  }

  void write(W message) {
    outbox_.push_back(std::move(message));
    issue_write();
  }

  bool has_message() const { return !inbox_.empty(); }
  R pop() {
    R m = std::move(inbox_.front());
    inbox_.pop_front();
    return m;
  }
  bool ended() const { return ended_; }
  const grpc::Status& status() const { return status_; }

  void set_listener(Listener listener, void* arg) {
    listener_ = listener;
    listener_arg_ = arg;
  }

  void release() {
    released_ = true;
    listener_ = nullptr;
    if (!ended_) context_.TryCancel();
    maybe_delete();
  }

 private:
  enum class Op { start, read, write, finish };
  struct OpTag final : CqTag {
    BidiStream* stream;
    Op op;
    OpTag(BidiStream* s, Op o) : stream(s), op(o) {}
    void on_cq_event(bool ok) override { stream->on_event(op, ok); }
  };

  explicit BidiStream(LoopCore& core) : core_(core) {}
  ~BidiStream() = default;

  void on_event(Op op, bool ok) {
    --outstanding_;
    switch (op) {
      case Op::start:
        if (ok) {
          started_ = true;
          issue_read();
          issue_write();
        } else {
          broken_ = true;
          maybe_finish();
        }
        return;
      case Op::read:
        reading_ = false;
        if (ok) {
          inbox_.push_back(std::move(incoming_));
          incoming_ = R();
          issue_read();  // keeps reading even when released, so the cancel is noticed
          notify();      // last: the listener may release this stream
        } else {
          broken_ = true;
          maybe_finish();
        }
        return;
      case Op::write:
        writing_ = false;
        if (ok) {
          outbox_.pop_front();
          issue_write();
        } else {
          broken_ = true;
          outbox_.clear();
        }
        maybe_finish();
        return;
      case Op::finish:
        ended_ = true;
        if (released_) {
          maybe_delete();
        } else {
          notify();  // last: the listener may release (and so delete) this stream
        }
        return;
    }
  }

  void issue_read() {
    if (!started_ || reading_ || broken_) return;
    reading_ = true;
    ++outstanding_;
    rw_->Read(&incoming_, core_.issue(&read_tag_));
  }

  void issue_write() {
    if (!started_ || writing_ || broken_ || outbox_.empty()) return;
    writing_ = true;
    ++outstanding_;
    rw_->Write(outbox_.front(), core_.issue(&write_tag_));
  }

  // Finish is only legal once no read or write is outstanding and reading has failed.
  void maybe_finish() {
    if (!broken_ || finishing_ || reading_ || writing_) return;
    finishing_ = true;
    ++outstanding_;
    rw_->Finish(&status_, core_.issue(&finish_tag_));
  }

  void notify() {
    if (listener_) listener_(listener_arg_);
  }

  void maybe_delete() {
    if (released_ && outstanding_ == 0 && (ended_ || !rw_)) delete this;
  }

  LoopCore& core_;
  grpc::ClientContext context_;
  std::unique_ptr<ReaderWriter> rw_;
  OpTag start_tag_{this, Op::start};
  OpTag read_tag_{this, Op::read};
  OpTag write_tag_{this, Op::write};
  OpTag finish_tag_{this, Op::finish};
  R incoming_;
  std::deque<R> inbox_;
  std::deque<W> outbox_;
  grpc::Status status_;
  Listener listener_ = nullptr;
  void* listener_arg_ = nullptr;
  int outstanding_ = 0;
  bool started_ = false;
  bool reading_ = false;
  bool writing_ = false;
  bool broken_ = false;
  bool finishing_ = false;
  bool ended_ = false;
  bool released_ = false;
};

}  // namespace lockstep::real
