// Task<T>: the coroutine type every algorithm and backend is written in.
//
// Contract:
//   - lazy: nothing runs until the Task is awaited (or handed to an executor as a root);
//   - move-only, [[nodiscard]], owns its frame: destroying a Task destroys its frame and,
//     transitively, every child Task it is awaiting (this is how cancellation works: the leaf
//     awaitables of a backend unregister themselves in their destructors);
//   - single awaiter: a Task is awaited at most once.
//
// Why not plain symmetric transfer: g++ 12 does not turn it into a tail call at -O0 or under
// ASan, so a loop of awaits that complete at once grows the stack without bound. Instead the
// awaiter starts the child inline; if the child finished synchronously, await_suspend returns
// false and the parent simply continues on the same stack frame. Only a child that really
// suspended resumes its parent from its final suspend point, and then the stack depth is
// bounded by the nesting depth of awaits, not by the number of iterations.
#pragma once

#include <coroutine>
#include <cstdlib>
#include <exception>
#include <optional>
#include <utility>

#include "lockstep/kv/frame_pool.h"

namespace lockstep {

template <typename T = void>
class Task;

namespace detail {

struct TaskPromiseBase {
  std::coroutine_handle<> continuation;
  bool started_inline = false;  // true while the awaiter is inside the inline resume()
  std::exception_ptr exception;

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <typename Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> self) noexcept {
      TaskPromiseBase& p = self.promise();
      // Finished during the inline start: the awaiter sees done() and continues by itself.
      if (p.started_inline || !p.continuation) return std::noop_coroutine();
      return p.continuation;
    }
    void await_resume() noexcept {}
  };

  std::suspend_always initial_suspend() noexcept { return {}; }
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { exception = std::current_exception(); }

  // Frames come from the frame pool (kv/frame_pool.h): most are short-lived and few sizes.
  static void* operator new(std::size_t bytes) { return allocate_frame(bytes); }
  static void operator delete(void* frame, std::size_t bytes) noexcept { free_frame(frame, bytes); }
};

template <typename T>
struct TaskPromise : TaskPromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  template <typename U>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
};

template <>
struct TaskPromise<void> : TaskPromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() noexcept {}
};

}  // namespace detail

template <typename T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::TaskPromise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) : handle_(h) {}
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { reset(); }

  bool valid() const { return static_cast<bool>(handle_); }
  bool done() const { return handle_ && handle_.done(); }

  struct Awaiter {
    Handle child;
    bool await_ready() const noexcept { return !child || child.done(); }
    bool await_suspend(std::coroutine_handle<> parent) {
      promise_type& p = child.promise();
      p.continuation = parent;
      p.started_inline = true;
      child.resume();
      p.started_inline = false;
      return !child.done();  // false: completed synchronously, continue the parent now
    }
    T await_resume() {
      promise_type& p = child.promise();
      if (p.exception) std::rethrow_exception(p.exception);
      if constexpr (!std::is_void_v<T>) return std::move(*p.value);
    }
  };

  // Awaiting consumes the task's result; the frame stays owned by this Task object.
  Awaiter operator co_await() && { return Awaiter{handle_}; }

  // For executors: run a detached root to completion or first suspension.
  Handle handle() const { return handle_; }

  // For executors, once done(): the result of a root task.
  T take_result() {
    promise_type& p = handle_.promise();
    if (p.exception) std::rethrow_exception(p.exception);
    if constexpr (!std::is_void_v<T>) return std::move(*p.value);
  }

 private:
  void reset() {
    if (handle_) handle_.destroy();
    handle_ = {};
  }
  Handle handle_;
};

namespace detail {
template <typename T>
Task<T> TaskPromise<T>::get_return_object() noexcept {
  return Task<T>(std::coroutine_handle<TaskPromise<T>>::from_promise(*this));
}
inline Task<void> TaskPromise<void>::get_return_object() noexcept {
  return Task<void>(std::coroutine_handle<TaskPromise<void>>::from_promise(*this));
}
}  // namespace detail

// Runs a Task<void> as the root of a coroutine tree on behalf of an executor: starting it,
// and being told when it finished. The executor owns the RootTask and destroys it (which
// destroys the whole tree) to cancel it, or after completion to reclaim it.
class RootTask {
 public:
  using DoneHook = void (*)(void* context);

  explicit RootTask(Task<void> task) : task_(std::move(task)) {}
  // Not movable: the completion notifier points back at this object.
  RootTask(const RootTask&) = delete;
  RootTask& operator=(const RootTask&) = delete;

  // Called with `context` when the tree finishes (from inside the last resume()).
  void set_done_hook(DoneHook hook, void* context) {
    hook_ = hook;
    hook_context_ = context;
  }

  // Runs the tree until it first suspends or finishes.
  void start() {
    // The root's continuation is a small notifier coroutine that calls the done hook, so a
    // root finishing synchronously and one finishing much later are reported the same way.
    notifier_ = make_notifier(this);
    auto& p = task_.handle().promise();
    p.continuation = notifier_.handle();
    p.started_inline = false;
    task_.handle().resume();
  }

  bool done() const { return task_.done(); }
  // Rethrows a bug (an exception that escaped the task), if any.
  void rethrow_if_failed() { task_.take_result(); }

 private:
  struct Notifier {
    struct promise_type {
      RootTask* owner = nullptr;
      Notifier get_return_object() noexcept {
        return Notifier{std::coroutine_handle<promise_type>::from_promise(*this)};
      }
      std::suspend_always initial_suspend() noexcept { return {}; }
      std::suspend_always final_suspend() noexcept { return {}; }
      void return_void() noexcept {}
      void unhandled_exception() noexcept { std::abort(); }
    };
    std::coroutine_handle<promise_type> h;
    Notifier() = default;
    explicit Notifier(std::coroutine_handle<promise_type> handle) : h(handle) {}
    Notifier(Notifier&& o) noexcept : h(std::exchange(o.h, {})) {}
    Notifier& operator=(Notifier&& o) noexcept {
      if (this != &o) {
        if (h) h.destroy();
        h = std::exchange(o.h, {});
      }
      return *this;
    }
    ~Notifier() {
      if (h) h.destroy();
    }
    std::coroutine_handle<> handle() const { return h; }
  };

  // Resumed (by symmetric transfer from the root's final suspend) when the root finishes.
  static Notifier make_notifier(RootTask* owner) {
    // The parameter is copied into the frame; the body runs only when resumed.
    if (owner->hook_) owner->hook_(owner->hook_context_);
    co_return;
  }

  Task<void> task_;
  Notifier notifier_;
  DoneHook hook_ = nullptr;
  void* hook_context_ = nullptr;
};

}  // namespace lockstep
