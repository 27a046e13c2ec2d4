// Opening the first candidate shared library that loads (core/shared_library.h).
#include "core/shared_library.h"

#include <dlfcn.h>

namespace compiler::core {

OpenedLibrary open_first_library(const std::vector<std::string>& candidates) {
  OpenedLibrary out;
  for (const std::string& candidate : candidates) {
    out.handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (out.handle != nullptr) {
      out.path = candidate;
      out.tried.clear();
      return out;
    }
    const char* why = dlerror();
    out.tried += (out.tried.empty() ? "" : "; ") + std::string(why != nullptr ? why : candidate);
  }
  return out;
}

} // namespace compiler::core
