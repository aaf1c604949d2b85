// Box<T>: one T on the heap, with the value semantics of a T: moving a Box moves a pointer,
// copying one copies the T.
//
// Why: a request, a response or a log entry is moved several times on its way through the
// simulator (into a message's closure, through the network's wrapper, into the event queue,
// into a member's pending requests). Each move of a request or response variant costs a visit
// and a few string moves; boxed, it costs a pointer. Copies happen only where a message is
// duplicated (a `duplicate` network rule), so every copy stays its own value that a handler may
// consume. Boxing also keeps such messages' closures small enough for EventFn's inline buffer.
#pragma once

#include <cassert>
#include <memory>
#include <utility>

namespace lockstep::sim {

template <typename T>
class Box {
 public:
  explicit Box(T&& value) : value_(std::make_unique<T>(std::move(value))) {}
  explicit Box(const T& value) : value_(std::make_unique<T>(value)) {}
  Box(const Box& other) : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  Box(Box&&) noexcept = default;
  Box& operator=(const Box& other) {
    if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    return *this;
  }
  Box& operator=(Box&&) noexcept = default;
  ~Box() = default;

  // Precondition for both: the box was not moved from.
  T& operator*() const {
    assert(value_ && "a moved-from Box holds nothing");
    return *value_;
  }
  T* operator->() const { return &**this; }

  // Hands the value over as a unique_ptr, leaving the box empty.
  std::unique_ptr<T> release() && { return std::move(value_); }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace lockstep::sim
