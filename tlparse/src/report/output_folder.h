// The only way the renderer touches the disk. Every relative path is checked again here (a second
// line of defence after the ingest's sanitiser): no absolute paths, no "..", "." or empty
// segments, no backslashes or NUL, and the resolved parent folder must still be inside the
// output folder (which also defeats symlinks planted inside it). Refusals are counted, not fatal.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace tlparse::report::detail {

// A file being streamed to disk with a large buffer; call `close` to learn whether all bytes
// reached the disk.
class StreamedFile {
public:
  StreamedFile() = default;
  ~StreamedFile();
  StreamedFile(const StreamedFile&) = delete;
  StreamedFile& operator=(const StreamedFile&) = delete;

  bool is_open() const { return file_ != nullptr; }
  // Appends; the buffer is flushed to disk whenever it grows past 1 MiB.
  void write(std::string_view bytes);
  std::string& buffer() { return buffer_; }
  void flush_if_large();
  bool close();
  std::uint64_t bytes() const { return bytes_; }

private:
  friend class OutputFolder;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  std::uint64_t bytes_ = 0;
  bool failed_ = false;
};

// Thread-safe: several writer threads may write different files at once.
class OutputFolder {
public:
  explicit OutputFolder(std::filesystem::path root);

  // Creates the root. False (with `error`) when that fails.
  bool prepare(std::string& error);

  // True when `relative` is a safe relative path for an output (pure string check).
  static bool is_safe_relative_path(std::string_view relative);

  // Writes a whole file. Returns false on refusal (counted) or I/O failure (see first_error).
  bool write_file(std::string_view relative, std::string_view bytes);
  // Opens a file for streaming.
  bool open_stream(std::string_view relative, StreamedFile& file);
  bool finish_stream(StreamedFile& file);
  // Copies `source` to `relative` (in the kernel where it can, else in chunks).
  bool copy_file(const std::filesystem::path& source, std::string_view relative);

  std::uint64_t files_written() const { return files_written_; }
  std::uint64_t bytes_written() const { return bytes_written_; }
  std::uint64_t refused() const { return refused_; }
  std::uint64_t io_errors() const { return io_errors_; }
  // The first I/O error, empty when there was none.
  std::string first_error() const;
  const std::filesystem::path& root() const { return root_; }

private:
  // Resolves and checks `relative`, creating its parent folders. Empty path on refusal/failure.
  std::filesystem::path resolve(std::string_view relative);
  void record_error(std::string message);

  std::filesystem::path root_;
  std::filesystem::path canonical_root_;
  std::mutex dirs_mutex_;
  std::set<std::string> checked_dirs_; // parent folders already created and verified
  bool make_real_folder(const std::filesystem::path& folder); // with dirs_mutex_ held
  std::atomic<std::uint64_t> files_written_{0};
  std::atomic<std::uint64_t> bytes_written_{0};
  std::atomic<std::uint64_t> refused_{0};
  std::atomic<std::uint64_t> io_errors_{0};
  mutable std::mutex error_mutex_;
  std::string first_error_;
};

// Writes whole files on background threads so that the kernel's per-file cost (inode creation,
// page-cache copies) overlaps with rendering. Submission blocks while more than
// `max_pending_bytes` wait, which bounds memory. With zero threads, submit writes in place.
class AsyncWriter {
public:
  AsyncWriter(OutputFolder& folder, unsigned threads, std::size_t max_pending_bytes);
  ~AsyncWriter();
  AsyncWriter(const AsyncWriter&) = delete;
  AsyncWriter& operator=(const AsyncWriter&) = delete;

  void submit(std::string relative, std::string bytes);
  // Waits for every submitted file; returns the paths that could not be written.
  std::vector<std::string> finish();

private:
  void work();

  OutputFolder& folder_;
  std::size_t max_pending_bytes_;
  std::mutex mutex_;
  std::condition_variable has_work_;
  std::condition_variable has_room_;
  std::deque<std::pair<std::string, std::string>> queue_;
  std::size_t pending_bytes_ = 0;
  bool stopping_ = false;
  std::vector<std::string> failed_;
  std::vector<std::thread> threads_;
};

} // namespace tlparse::report::detail
