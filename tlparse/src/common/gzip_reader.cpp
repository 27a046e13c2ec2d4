// See gzip_reader.h. zlib (Debian's zlib1g) does the inflating.
#include "common/gzip_reader.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace tlparse::common {

bool is_gzip(int fd) {
  unsigned char magic[2] = {0, 0};
  return ::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

struct GzipReader::Impl {
  int fd = -1;
  z_stream z{};
  bool init = false;
  bool in_eof = false;
  bool member_done = false; // the last member ended at a member boundary
  std::vector<unsigned char> in = std::vector<unsigned char>(256u << 10);
};

GzipReader::GzipReader(int fd) : impl_(std::make_unique<Impl>()) {
  impl_->fd = fd;
  // 15 window bits + 16: gzip only (the magic was checked).
  if (inflateInit2(&impl_->z, 15 + 16) == Z_OK) {
    impl_->init = true;
  } else {
    error_ = "cannot start zlib";
  }
}

GzipReader::~GzipReader() {
  if (impl_->init) {
    inflateEnd(&impl_->z);
  }
}

ssize_t GzipReader::read(char* out, std::size_t n) {
  Impl& s = *impl_;
  if (!s.init) {
    return -1;
  }
  z_stream& z = s.z;
  z.next_out = reinterpret_cast<Bytef*>(out);
  z.avail_out = static_cast<uInt>(n);
  while (z.avail_out == n) {
    if (z.avail_in == 0 && !s.in_eof) {
      ssize_t got;
      do {
        got = ::read(s.fd, s.in.data(), s.in.size());
      } while (got < 0 && errno == EINTR);
      if (got < 0) {
        error_ = std::string("read failed: ") + std::strerror(errno);
        return -1;
      }
      if (got == 0) {
        s.in_eof = true;
      }
      z.next_in = s.in.data();
      z.avail_in = static_cast<uInt>(got);
    }
    if (z.avail_in == 0 && s.in_eof) {
      truncated_ = !s.member_done; // input ended inside a member
      break;
    }
    s.member_done = false;
    const int rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      s.member_done = true;
      inflateReset(&z); // a following member, if any, starts here
      continue;
    }
    if (rc == Z_BUF_ERROR) {
      continue; // needs more input
    }
    if (rc != Z_OK) {
      if (n - z.avail_out > 0) {
        break; // hand over what was inflated; the error comes on the next call
      }
      error_ = std::string("corrupt gzip data: ") + (z.msg != nullptr ? z.msg : "inflate failed");
      return -1;
    }
  }
  return static_cast<ssize_t>(n - z.avail_out);
}

} // namespace tlparse::common
