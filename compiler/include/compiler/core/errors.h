// compiler/core: the two kinds of failure, kept apart by whose fault they are.
//
// - compiler::UserError: the caller did something wrong (shapes that do not broadcast, a dim out
//   of range, an unsupported dtype). It carries the std::source_location of the user's call so
//   the message points at the user's line, not at ours. Never asserted: always thrown.
// - TORCHSCOPE_ASSERT: an internal invariant; failing it is a bug in the compiler. It aborts
//   with the condition and our own location.
//
// Kernels do not see the user's call site; dispatch() records it in a thread-local CallSite
// (CallSiteScope) and user_error() reads it, so every op error names the line that called the
// op.
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>

namespace compiler {

class UserError : public std::runtime_error {
public:
  UserError(std::string message, const std::source_location& where);

  // The message without the location prefix.
  const std::string& message() const noexcept { return message_; }
  // The user's call that caused the error (file_name() is "" when unknown).
  const std::source_location& where() const noexcept { return where_; }

private:
  std::string message_;
  std::source_location where_;
};

// The user call currently being executed on this thread (set by dispatch), or a default
// std::source_location (empty file name) outside any op.
const std::source_location& current_call_site() noexcept;

// RAII: makes `where` the current call site on this thread for the scope's lifetime.
class CallSiteScope {
public:
  explicit CallSiteScope(const std::source_location& where) noexcept;
  ~CallSiteScope();
  CallSiteScope(const CallSiteScope&) = delete;
  CallSiteScope& operator=(const CallSiteScope&) = delete;

private:
  const std::source_location* previous_;
  std::source_location where_;
};

// Throws UserError(message, current_call_site()).
[[noreturn]] void user_error(std::string message);

namespace detail {
[[noreturn]] void assert_failed(const char* condition, const char* message,
                                const std::source_location& where) noexcept;
} // namespace detail

} // namespace compiler

// Internal invariant: a failure is a bug in the compiler, never the user's fault.
#define TORCHSCOPE_ASSERT(cond, msg)                                                               \
  do {                                                                                             \
    if (!(cond)) [[unlikely]] {                                                                    \
      ::compiler::detail::assert_failed(#cond, msg, std::source_location::current());              \
    }                                                                                              \
  } while (false)
