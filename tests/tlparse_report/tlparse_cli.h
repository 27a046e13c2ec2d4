// What the end-to-end tests of the report share: the path of the `tlparse` binary they drive
// (nullptr when it is not built) and shell quoting for the command lines they run.
#pragma once

#include <filesystem>
#include <string>

namespace test_support {

#ifdef TORCHSCOPE_TLPARSE_BIN
inline constexpr const char* kTlparse = TORCHSCOPE_TLPARSE_BIN;
#else
inline constexpr const char* kTlparse = nullptr;
#endif

// `p` in single quotes for sh, embedded quotes escaped.
inline std::string quoted(const std::filesystem::path& p) {
  std::string out = "'";
  for (const char c : p.string()) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

} // namespace test_support
