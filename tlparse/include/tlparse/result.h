// Results of operations that can fail for reasons outside the program (a damaged index, a file
// that cannot be read): a value or an error message for the person, never an exception and never
// a silent default. `Status` is the value-less form.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace tlparse {

struct Error {
  std::string message;
};

template <class T>
class [[nodiscard]] Result {
public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {} // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const std::string& error() const {
    assert(!ok());
    return std::get<1>(v_).message;
  }

private:
  std::variant<T, Error> v_;
};

class [[nodiscard]] Status {
public:
  Status() = default;
  Status(Error error) : error_(std::move(error.message)), ok_(false) {} // NOLINT: implicit
  static Status success() { return {}; }

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const std::string& error() const { return error_; }

private:
  std::string error_;
  bool ok_ = true;
};

} // namespace tlparse
