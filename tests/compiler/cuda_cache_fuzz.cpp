// fuzz_cuda_cache: the two parsers of the GPU runtime, on any bytes.
//   - The kernel cache's entry reader (a cache folder is the user's, but a crash, a full disk or
//     another program can leave anything in it): load() never crashes and never returns an
//     image unless the file is exactly the entry a store() of that image writes.
//   - Device strings: a string parses, or is a UserError; a parsed device prints back to a
//     string that parses to the same device.
#include "compiler/core/errors.h"
#include "compiler/tensor/device.h"
#include "cuda/kernel_cache.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

constexpr std::string_view kKey = "nvrtc 13.0\ndriver 13000\nkind cubin\nflags -std=c++17\n";

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return std::move(s).str();
}

void require(bool ok) {
  if (!ok) {
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("fuzz_cuda_cache." + std::to_string(getpid()));
  const std::string bytes(reinterpret_cast<const char*>(data), size);

  compiler::cuda::KernelCache cache(dir);
  std::filesystem::create_directories(dir);
  const std::filesystem::path entry = cache.entry_path(kKey);
  std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
  if (const std::optional<std::string> image = cache.load(kKey)) {
    cache.store(kKey, *image);
    require(read_all(entry) == bytes);
  }

  try {
    const compiler::Device device{std::string_view(bytes)};
    require(compiler::Device(device.str()) == device);
  } catch (const compiler::UserError&) {
  }
  return 0;
}
