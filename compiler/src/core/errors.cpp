// UserError formatting, the thread's current call site, and the assertion handler.
#include "compiler/core/errors.h"

#include <cstdio>
#include <cstdlib>

namespace compiler {

namespace {

std::string format_user_error(const std::string& message, const std::source_location& where) {
  if (where.file_name() == nullptr || where.file_name()[0] == '\0') {
    return message;
  }
  return std::string(where.file_name()) + ":" + std::to_string(where.line()) + ": " + message;
}

const std::source_location kUnknownSite{};
thread_local const std::source_location* t_call_site = nullptr;

} // namespace

UserError::UserError(std::string message, const std::source_location& where)
    : std::runtime_error(format_user_error(message, where)), message_(std::move(message)),
      where_(where) {}

const std::source_location& current_call_site() noexcept {
  return t_call_site != nullptr ? *t_call_site : kUnknownSite;
}

CallSiteScope::CallSiteScope(const std::source_location& where) noexcept
    : previous_(t_call_site), where_(where) {
  t_call_site = &where_;
}

CallSiteScope::~CallSiteScope() {
  t_call_site = previous_;
}

void user_error(std::string message) {
  throw UserError(std::move(message), current_call_site());
}

namespace detail {
void assert_failed(const char* condition, const char* message,
                   const std::source_location& where) noexcept {
  std::fprintf(stderr, "torchscope internal error: %s:%u: assertion '%s' failed: %s\n",
               where.file_name(), static_cast<unsigned>(where.line()), condition, message);
  std::abort();
}
} // namespace detail

} // namespace compiler
