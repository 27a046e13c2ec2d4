// The trace file: naming (`dedicated_log_torch_trace_[rank_R_]XXXXXXXX.log`), creation, and
// whole-event appends. Each append is one write(2) call (looping only on short writes) on an
// O_APPEND descriptor, so a killed process leaves every event that was appended before it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tracer::detail {

class LogFile {
public:
  LogFile() = default;
  ~LogFile();
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;

  // Creates `directory` if needed and a new uniquely named log inside it. On failure returns
  // false and sets `error` to a human-readable reason.
  bool open(const std::string& directory, std::optional<std::int64_t> rank, std::string& error);
  void close();
  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }

  // Appends `bytes` whole. On failure returns false and sets `error` (errno text).
  bool append(std::string_view bytes, std::string& error);

private:
  int fd_ = -1;
  std::string path_;
};

} // namespace tracer::detail
