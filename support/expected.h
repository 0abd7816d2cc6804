// Result type used across module boundaries: a value or an Error, never an
// exception. Modelled on C++23 std::expected, reduced to what kbcc uses.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace kbcc {

// An error is a message for the user plus an optional stable code that
// statistics can count (see driver/stats reasons).
struct Error {
  std::string message;
  std::string code;  // short stable identifier, e.g. "parse-timeout"; may be empty
};

inline Error make_error(std::string message, std::string code = {}) {
  return Error{std::move(message), std::move(code)};
}

template <class T> class Expected {
public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(Error error) : v_(std::move(error)) {}

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T &value() & { assert(has_value()); return std::get<0>(v_); }
  const T &value() const & { assert(has_value()); return std::get<0>(v_); }
  T &&value() && { assert(has_value()); return std::get<0>(std::move(v_)); }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  const Error &error() const { assert(!has_value()); return std::get<1>(v_); }

  template <class U> T value_or(U &&fallback) const {
    return has_value() ? value() : static_cast<T>(std::forward<U>(fallback));
  }

private:
  std::variant<T, Error> v_;
};

// Expected<void>: success or an Error.
class Status {
public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}
  static Status ok() { return Status(); }

  bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error &error() const { assert(!ok_); return error_; }

private:
  Error error_;
  bool ok_ = true;
};

}  // namespace kbcc
