// Helpers shared by the device and CUDA runtime tests.
#pragma once

#include "compiler/core/errors.h"

#include <string>

namespace device_test {

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The message of the UserError `f` throws, or "(no UserError)".
template <class F>
std::string user_error_of(F&& f) {
  try {
    f();
  } catch (const compiler::UserError& e) {
    return e.message();
  }
  return "(no UserError)";
}

} // namespace device_test
