// KernelCache: entry files, their format, atomic writes.
//
// Entry format: the line "torchscope-cuda-kernel 1", then a line with the key's length and the
// image's length in bytes, then the key, then the image.
#include "cuda/kernel_cache.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <system_error>
#include <unistd.h>

namespace compiler::cuda {

namespace {

constexpr std::string_view kMagic = "torchscope-cuda-kernel 1\n";
// Far above any kernel image (a large cubin is a few MiB); a longer entry is not ours.
constexpr unsigned long long kMaxImageBytes = 1ULL << 30;
// Distinguishes the temporary files of concurrent stores.
std::atomic<std::uint64_t> g_temp_counter{0};

std::uint64_t fnv1a(std::string_view text, std::uint64_t basis) {
  std::uint64_t h = basis;
  for (unsigned char c : text) {
    h = (h ^ c) * 0x100000001b3ULL;
  }
  return h;
}

std::filesystem::path default_dir() {
  if (const char* off = std::getenv("TORCHSCOPE_CUDA_CACHE");
      off != nullptr && std::string_view(off) == "0") {
    return {};
  }
  if (const char* root = std::getenv("TORCHSCOPE_CACHE_DIR"); root != nullptr && *root != '\0') {
    return std::filesystem::path(root) / "cuda";
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::filesystem::path(xdg) / "torchscope" / "cuda";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".cache" / "torchscope" / "cuda";
  }
  return {};
}

} // namespace

KernelCache::KernelCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

KernelCache& KernelCache::process_cache() {
  static KernelCache cache(default_dir());
  return cache;
}

std::filesystem::path KernelCache::entry_path(std::string_view key) const {
  char name[33];
  std::snprintf(name, sizeof name, "%016llx%016llx",
                static_cast<unsigned long long>(fnv1a(key, 0xcbf29ce484222325ULL)),
                static_cast<unsigned long long>(fnv1a(key, 0x84222325cbf29ce4ULL)));
  return dir_ / name;
}

std::optional<std::string> KernelCache::load(std::string_view key) {
  if (!enabled()) {
    return std::nullopt;
  }
  const std::filesystem::path path = entry_path(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ++misses_;
    return std::nullopt;
  }
  // Any mismatch below is a corrupt (or colliding, or foreign) entry: a miss, replaced by the
  // next store. Lengths are checked against the file's size before anything is read into
  // memory, so a strange file costs no more than its header.
  auto corrupt = [&]() -> std::optional<std::string> {
    ++corrupt_;
    ++misses_;
    return std::nullopt;
  };
  std::string magic(kMagic.size(), '\0');
  std::string header;
  if (!in.read(magic.data(), static_cast<std::streamsize>(magic.size())) || magic != kMagic ||
      !std::getline(in, header) || header.size() > 64) {
    return corrupt();
  }
  unsigned long long key_len = 0;
  unsigned long long image_len = 0;
  char tail = 0;
  std::error_code ec;
  const std::uintmax_t file_size = std::filesystem::file_size(path, ec);
  const std::uintmax_t body = kMagic.size() + header.size() + 1;
  // Only the header store() writes: "<digits> <digits>", nothing else around them.
  if (std::sscanf(header.c_str(), "%llu %llu%c", &key_len, &image_len, &tail) != 2 ||
      header != std::to_string(key_len) + ' ' + std::to_string(image_len) || ec ||
      key_len != key.size() || image_len > kMaxImageBytes ||
      file_size != body + key_len + image_len) {
    return corrupt();
  }
  std::string stored_key(key.size(), '\0');
  if (!in.read(stored_key.data(), static_cast<std::streamsize>(stored_key.size())) ||
      stored_key != key) {
    return corrupt();
  }
  std::string image(static_cast<std::size_t>(image_len), '\0');
  if (!in.read(image.data(), static_cast<std::streamsize>(image.size()))) {
    return corrupt();
  }
  ++hits_;
  return image;
}

void KernelCache::store(std::string_view key, std::string_view image) {
  if (!enabled()) {
    return;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  const std::filesystem::path target = entry_path(key);
  std::filesystem::path temp = target;
  temp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(g_temp_counter++);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << kMagic << key.size() << ' ' << image.size() << '\n';
    out.write(key.data(), static_cast<std::streamsize>(key.size()));
    out.write(image.data(), static_cast<std::streamsize>(image.size()));
    out.close();
    if (!out) {
      ++write_failures_;
      std::filesystem::remove(temp, ec);
      return;
    }
  }
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    ++write_failures_;
    std::filesystem::remove(temp, ec);
    return;
  }
  ++stores_;
}

KernelCache::Stats KernelCache::stats() const noexcept {
  return {hits_.load(), misses_.load(), stores_.load(), corrupt_.load(), write_failures_.load()};
}

} // namespace compiler::cuda
