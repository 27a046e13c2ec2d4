#include "log_file.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <unistd.h>

namespace tracer::detail {

namespace {

// PyTorch's tempfile-style suffix: 8 characters from [a-z0-9_].
std::string random_suffix() {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
  // std::random_device throws where the system has no entropy source; the clock still makes
  // names differ between processes (and O_EXCL retries on a clash).
  unsigned seed =
      static_cast<unsigned>(::getpid()) ^
      static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count());
  try {
    std::random_device device;
    seed ^= device();
  } catch (...) {
  }
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> pick(0, static_cast<int>(sizeof kAlphabet) - 2);
  std::string s(8, 'a');
  for (char& c : s) {
    c = kAlphabet[pick(gen)];
  }
  return s;
}

} // namespace

LogFile::~LogFile() {
  close();
}

bool LogFile::open(const std::string& directory, std::optional<std::int64_t> rank,
                   std::string& error) {
  close();
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) {
    error = "cannot create directory '" + directory + "': " + ec.message();
    return false;
  }
  std::string stem = "dedicated_log_torch_trace_";
  if (rank) {
    stem += "rank_" + std::to_string(*rank) + "_";
  }
  for (int tries = 0; tries < 100; ++tries) {
    std::string candidate = (std::filesystem::path(directory) / (stem + random_suffix() + ".log"));
    const int fd =
        ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      fd_ = fd;
      path_ = std::move(candidate);
      return true;
    }
    if (errno != EEXIST) {
      error = "cannot create '" + candidate + "': " + std::strerror(errno);
      return false;
    }
  }
  error = "cannot find a free log file name in '" + directory + "'";
  return false;
}

void LogFile::close() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

bool LogFile::append(std::string_view bytes, std::string& error) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      error = std::strerror(errno);
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

} // namespace tracer::detail
