// Streams a log file as physical lines with bounded memory: read(2) into one reusable buffer
// (never a whole-file mmap), split on '\n', strip a trailing '\r', number lines from 1. A line
// longer than the limit is skipped as it streams by (only an excerpt is kept), so a 50 MB line
// of garbage costs no more memory than the limit. Each line says whether it is valid UTF-8;
// validation runs over large blocks and falls back to per-line checks only where a block fails.
// A gzip-compressed file is inflated as it streams (gzip_reader.h).
#pragma once

#include "common/gzip_reader.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tlparse::ingest {

struct Line {
  std::string_view text; // valid until the next call to next() (unless pushed back)
  uint64_t number = 0;   // physical line number, from 1
  bool valid_utf8 = true;
  bool too_long = false;   // text is then only an excerpt
  bool no_newline = false; // the last line of a file that does not end with '\n'
};

class LineReader {
public:
  // Takes ownership of nothing: `fd` stays open and is the caller's.
  LineReader(int fd, size_t max_line_bytes);
  // False at end of file or on an I/O error (see error()).
  bool next(Line& line);
  // Makes the next call to next() return the same line again (one line of lookahead).
  void push_back() { pushed_back_ = true; }
  uint64_t bytes_consumed() const { return consumed_; }
  const std::string& error() const { return error_; }
  bool gzip() const { return gz_ != nullptr; }
  // A gzip stream that ended inside a member (the file was cut): its lines up to there were read.
  bool gzip_truncated() const { return gz_ != nullptr && gz_->truncated(); }

private:
  bool fill(); // reads more data after compacting; false at EOF or error
  size_t base_size() const;
  bool skip_long_line(Line& line);

  int fd_;
  std::unique_ptr<common::GzipReader> gz_; // set for a gzip file
  size_t max_line_;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;
  size_t valid_until_ = 0;   // [begin_, valid_until_) is known to be valid UTF-8
  size_t checked_until_ = 0; // a block up to here failed: lines in it are checked one by one
  bool eof_ = false;
  bool pushed_back_ = false;
  Line last_;
  uint64_t line_no_ = 0;
  uint64_t consumed_ = 0;
  std::string excerpt_;
  std::string error_;
};

} // namespace tlparse::ingest
