// Transparent reading of gzip-compressed logs (`trace.log.gz`, docs/TLPARSE-INGEST.md, "Lines"):
// a file that starts with the gzip magic bytes is inflated as it is read, in fixed chunks, so a
// compressed log streams with the same memory bound as a plain one. Concatenated gzip members
// (`cat a.gz b.gz`) are read one after another. A stream cut short (a job killed while writing)
// ends where the data ends: what was decompressed is kept, and truncated() says so.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <sys/types.h>

namespace tlparse::common {

// True when the file behind `fd` starts with the gzip magic (1f 8b); the file offset is kept.
bool is_gzip(int fd);

class GzipReader {
public:
  explicit GzipReader(int fd); // `fd` stays the caller's
  ~GzipReader();
  GzipReader(const GzipReader&) = delete;
  GzipReader& operator=(const GzipReader&) = delete;

  // Like read(2): bytes inflated into `out` (at most `n`), 0 at the end, -1 on an I/O error or a
  // corrupt stream (see error()).
  ssize_t read(char* out, std::size_t n);
  const std::string& error() const { return error_; }
  bool truncated() const { return truncated_; }

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string error_;
  bool truncated_ = false;
};

} // namespace tlparse::common
