// Result<T>: the outcome of a call that can fail, as a value.
//
// Contract: every KvClient call ends in one of three ways, and callers (algorithms, checkers)
// must be able to tell them apart:
//   - ok: the value is present;
//   - a definite error (Outcome::definite): the operation did not take effect;
//   - an indeterminate error (Outcome::indeterminate): it may or may not have taken effect
//     (timeout, connection lost after sending, leader changed while in flight).
// Exceptions are reserved for bugs; expected failures always travel as Result values.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace lockstep {

enum class ErrorCode {
  // Definite: the server refused the request; nothing happened.
  invalid_argument,
  too_many_ops,
  duplicate_key,
  lease_not_found,
  compacted,
  future_revision,
  empty_key,
  unavailable,      // no member could be reached before sending
  session_expired,  // a lock's lease is gone (algorithm-level)
  cancelled,        // the caller gave up before sending
  lock_busy,        // a try-lock found the lock held by another client (algorithm-level)
  deadline_exceeded,  // an acquire gave up at its deadline (algorithm-level)
  not_held,         // a release by a client that does not hold the lock (algorithm-level)
  rejected,         // the protected resource refused a stale fencing token or guard
  // Indeterminate: the request may have been applied.
  timeout,
  leader_changed,
  no_leader,
  connection_lost,
};

enum class Outcome { definite, indeterminate };

// The standard classification; an error may still be built with an explicit outcome
// (a read that timed out is harmless but is reported as indeterminate like any timeout).
constexpr Outcome default_outcome(ErrorCode code) {
  switch (code) {
    case ErrorCode::timeout:
    case ErrorCode::leader_changed:
    case ErrorCode::no_leader:
    case ErrorCode::connection_lost:
      return Outcome::indeterminate;
    default:
      return Outcome::definite;
  }
}

const char* error_code_name(ErrorCode code);

struct Error {
  ErrorCode code;
  Outcome outcome;
  std::string message;

  Error(ErrorCode c, std::string msg = {})
      : code(c), outcome(default_outcome(c)), message(std::move(msg)) {}
  Error(ErrorCode c, Outcome o, std::string msg) : code(c), outcome(o), message(std::move(msg)) {}

  bool indeterminate() const { return outcome == Outcome::indeterminate; }
  std::string to_string() const;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  // By reference, not by value: a value taken by value was moved twice, and a response
  // variant's every move is a visit.
  Result(const T& value) : state_(std::in_place_index<0>, value) {}
  Result(T&& value) : state_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(state_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(state_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(state_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const {
    assert(!ok());
    return std::get<1>(state_);
  }

 private:
  std::variant<T, Error> state_;
};

struct Unit {};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}
  static Result success() { return Result(); }

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const {
    assert(!ok_);
    return error_;
  }

 private:
  Error error_{ErrorCode::invalid_argument, ""};
  bool ok_ = true;
};

}  // namespace lockstep
