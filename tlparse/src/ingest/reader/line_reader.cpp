// See line_reader.h.
#include "ingest/reader/line_reader.h"

#include <cerrno>
#include <cstring>
#include <simdjson.h>
#include <unistd.h>

namespace tlparse::ingest {
namespace {
// A read's size, and the buffer's while lines are shorter than it: two readers at once must fit
// the ingest's memory budget (docs/TLPARSE-MULTI-RANK.md, Performance). A longer line grows the
// buffer towards the limit; the buffer shrinks back once that line is consumed.
constexpr size_t kChunk = 256u << 10;
constexpr size_t kExcerpt = 160;
} // namespace

LineReader::LineReader(int fd, size_t max_line_bytes)
    : fd_(fd), max_line_(std::max<size_t>(max_line_bytes, 1024)) {
  buf_.resize(base_size());
  if (common::is_gzip(fd)) {
    gz_ = std::make_unique<common::GzipReader>(fd);
  }
}

size_t LineReader::base_size() const {
  return std::min(kChunk, max_line_) + kChunk;
}

bool LineReader::fill() {
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    valid_until_ = valid_until_ > begin_ ? valid_until_ - begin_ : 0;
    checked_until_ = checked_until_ > begin_ ? checked_until_ - begin_ : 0;
    begin_ = 0;
  }
  if (buf_.size() > base_size() && end_ <= base_size() / 2) {
    // A long line grew the buffer and has gone: give the memory back.
    std::vector<char> smaller(base_size());
    std::memcpy(smaller.data(), buf_.data(), end_);
    buf_.swap(smaller);
  }
  if (end_ == buf_.size()) {
    return false; // full: the caller handles long lines
  }
  while (true) {
    const ssize_t n = gz_ ? gz_->read(buf_.data() + end_, buf_.size() - end_)
                          : ::read(fd_, buf_.data() + end_, buf_.size() - end_);
    if (n < 0) {
      if (!gz_ && errno == EINTR) {
        continue;
      }
      error_ = gz_ ? gz_->error() : std::string("read failed: ") + std::strerror(errno);
      eof_ = true;
      return false;
    }
    if (n == 0) {
      eof_ = true;
      return false;
    }
    end_ += static_cast<size_t>(n);
    return true;
  }
}

bool LineReader::skip_long_line(Line& line) {
  // The buffer holds the start of a line longer than the limit: keep an excerpt, then drop
  // bytes until the newline arrives.
  excerpt_.assign(buf_.data() + begin_, std::min(kExcerpt, end_ - begin_));
  while (true) {
    const char* nl =
        static_cast<const char*>(std::memchr(buf_.data() + begin_, '\n', end_ - begin_));
    if (nl != nullptr) {
      const size_t after = static_cast<size_t>(nl - buf_.data()) + 1;
      consumed_ += after - begin_;
      begin_ = after;
      break;
    }
    consumed_ += end_ - begin_;
    begin_ = end_ = valid_until_ = checked_until_ = 0;
    if (!fill()) {
      break;
    }
  }
  line = Line{};
  line.text = excerpt_;
  line.number = ++line_no_;
  line.too_long = true;
  line.valid_utf8 = false;
  last_ = line;
  return true;
}

bool LineReader::next(Line& line) {
  if (pushed_back_) {
    pushed_back_ = false;
    line = last_;
    return true;
  }
  while (true) {
    const char* start = buf_.data() + begin_;
    const char* nl = static_cast<const char*>(std::memchr(start, '\n', end_ - begin_));
    if (nl == nullptr) {
      if (!eof_) {
        if (end_ - begin_ >= max_line_) {
          return skip_long_line(line);
        }
        if (begin_ == 0 && end_ == buf_.size()) {
          // Grow towards the limit for a long (but allowed) line.
          buf_.resize(std::min(buf_.size() * 2, max_line_ + kChunk));
        }
        if (!fill() && !eof_) {
          return skip_long_line(line); // cannot happen: fill always has room here
        }
        continue;
      }
      if (end_ == begin_) {
        return false;
      }
      nl = buf_.data() + end_; // last line without a newline
    }
    const size_t line_end = static_cast<size_t>(nl - buf_.data());
    if (line_end - begin_ > max_line_) {
      return skip_long_line(line);
    }
    if (valid_until_ < line_end && checked_until_ < line_end) {
      // Validate everything up to the last complete line in one go.
      size_t block_end = end_;
      if (!eof_) {
        const void* last_nl = memrchr(buf_.data() + begin_, '\n', end_ - begin_);
        block_end = static_cast<size_t>(static_cast<const char*>(last_nl) - buf_.data());
      }
      if (simdjson::validate_utf8(buf_.data() + begin_, block_end - begin_)) {
        valid_until_ = block_end;
      } else {
        checked_until_ = block_end; // per-line checks for the lines of this block
      }
    }
    line = Line{};
    line.number = ++line_no_;
    size_t len = line_end - begin_;
    if (len > 0 && start[len - 1] == '\r') {
      --len;
    }
    line.text = std::string_view(start, len);
    line.valid_utf8 = valid_until_ >= line_end || simdjson::validate_utf8(start, line_end - begin_);
    line.no_newline = line_end == end_ && eof_;
    const size_t next_begin = std::min(line_end + 1, end_);
    consumed_ += next_begin - begin_;
    begin_ = next_begin;
    if (line.no_newline) {
      begin_ = end_;
    }
    last_ = line;
    return true;
  }
}

} // namespace tlparse::ingest
