// Internal: opening a shared library at run time from a list of candidate files, the first that
// loads winning, for the libraries the compiler needs only when a feature is used (NVRTC,
// cuda/nvrtc_api.cpp; NCCL, distributed/nccl.cpp).
#pragma once

#include <string>
#include <vector>

namespace compiler::core {

struct OpenedLibrary {
  void* handle = nullptr; // dlopen's handle (RTLD_NOW | RTLD_LOCAL); null when none loaded
  std::string path;       // the candidate that loaded
  std::string tried;      // when none did: each candidate's dlerror, joined by "; "
};

OpenedLibrary open_first_library(const std::vector<std::string>& candidates);

} // namespace compiler::core
