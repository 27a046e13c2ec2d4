// Checked, buffered file output for the renderer (see output_folder.h).
#include "report/output_folder.h"

#include "common/gzip_reader.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace tlparse::report::detail {
namespace {

constexpr std::size_t kFlushThreshold = 1u << 20;

bool write_all(std::FILE* f, std::string_view bytes) {
  return bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
}

} // namespace

StreamedFile::~StreamedFile() {
  if (file_ != nullptr) {
    std::fclose(file_);
  }
}

void StreamedFile::write(std::string_view bytes) {
  buffer_.append(bytes);
  flush_if_large();
}

void StreamedFile::flush_if_large() {
  if (buffer_.size() >= kFlushThreshold && file_ != nullptr) {
    failed_ = failed_ || !write_all(file_, buffer_);
    bytes_ += buffer_.size();
    buffer_.clear();
  }
}

bool StreamedFile::close() {
  if (file_ == nullptr) {
    return false;
  }
  failed_ = failed_ || !write_all(file_, buffer_);
  bytes_ += buffer_.size();
  buffer_.clear();
  failed_ = (std::fclose(file_) != 0) || failed_;
  file_ = nullptr;
  return !failed_;
}

OutputFolder::OutputFolder(std::filesystem::path root) : root_(std::move(root)) {}

bool OutputFolder::prepare(std::string& error) {
  std::error_code ec;
  std::filesystem::create_directories(root_, ec);
  if (ec) {
    error = "cannot create " + root_.string() + ": " + ec.message();
    return false;
  }
  canonical_root_ = std::filesystem::canonical(root_, ec);
  if (ec) {
    error = "cannot resolve " + root_.string() + ": " + ec.message();
    return false;
  }
  return true;
}

void OutputFolder::record_error(std::string message) {
  ++io_errors_;
  std::lock_guard<std::mutex> lock(error_mutex_);
  if (first_error_.empty()) {
    first_error_ = std::move(message);
  }
}

std::string OutputFolder::first_error() const {
  std::lock_guard<std::mutex> lock(error_mutex_);
  return first_error_;
}

bool OutputFolder::is_safe_relative_path(std::string_view relative) {
  // 2048: log-derived names are at most about 1100 bytes (ingest/trackers/path_sanitizer.h), and
  // the whole path, the folder's own included, must stay under the system's PATH_MAX of 4096.
  if (relative.empty() || relative.front() == '/' || relative.size() > 2048) {
    return false;
  }
  std::size_t start = 0;
  while (start <= relative.size()) {
    std::size_t end = relative.find('/', start);
    if (end == std::string_view::npos) {
      end = relative.size();
    }
    const std::string_view segment = relative.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == ".." || segment.size() > 255) {
      return false;
    }
    for (char c : segment) {
      if (c == '\\' || c == '\0' || static_cast<unsigned char>(c) < 0x20) {
        return false;
      }
    }
    start = end + 1;
  }
  return true;
}

std::filesystem::path OutputFolder::resolve(std::string_view relative) {
  if (!is_safe_relative_path(relative)) {
    ++refused_;
    return {};
  }
  const std::filesystem::path full = canonical_root_ / std::filesystem::path(relative);
  const std::filesystem::path parent = full.parent_path();
  const std::string parent_key = parent.string();
  std::unique_lock<std::mutex> lock(dirs_mutex_);
  if (checked_dirs_.count(parent_key) == 0 && !make_real_folder(parent)) {
    return {};
  }
  lock.unlock();
  std::error_code ec;
  if (std::filesystem::is_symlink(full, ec)) {
    ++refused_; // never write through a planted link
    return {};
  }
  return full;
}

// Makes `folder` (below the root) and the folders above it that are not yet known, parent first:
// each is made by this call's mkdir, or, when it exists, must be a folder and not a symlink (a
// symlinked folder inside the output could point anywhere). A folder known once stays known, so
// a report's few hundred folders cost a mkdir each instead of resolving every path anew.
bool OutputFolder::make_real_folder(const std::filesystem::path& folder) {
  const std::string key = folder.string();
  if (folder == canonical_root_ || checked_dirs_.count(key) != 0) {
    return true;
  }
  const std::filesystem::path parent = folder.parent_path();
  if (parent == folder || key.size() <= canonical_root_.native().size()) {
    ++refused_; // not below the root: never happens for a safe relative path
    return false;
  }
  if (!make_real_folder(parent)) {
    return false;
  }
  if (::mkdir(folder.c_str(), 0777) != 0) {
    const int made_error = errno;
    struct stat st {};
    if (made_error != EEXIST || ::lstat(folder.c_str(), &st) != 0) {
      record_error("cannot create " + key + ": " + std::strerror(made_error));
      return false;
    }
    if (!S_ISDIR(st.st_mode)) {
      if (S_ISLNK(st.st_mode)) {
        ++refused_; // a planted link
      } else {
        record_error("cannot create " + key + ": a file is in the way");
      }
      return false;
    }
  }
  checked_dirs_.insert(key);
  return true;
}

bool OutputFolder::write_file(std::string_view relative, std::string_view bytes) {
  StreamedFile f;
  if (!open_stream(relative, f)) {
    return false;
  }
  if (!write_all(f.file_, bytes)) {
    f.failed_ = true;
  }
  f.bytes_ += bytes.size();
  return finish_stream(f);
}

bool OutputFolder::open_stream(std::string_view relative, StreamedFile& file) {
  const std::filesystem::path full = resolve(relative);
  if (full.empty()) {
    return false;
  }
  file.file_ = std::fopen(full.c_str(), "wb");
  if (file.file_ == nullptr) {
    record_error("cannot write " + full.string() + ": " + std::strerror(errno));
    return false;
  }
  file.buffer_.clear();
  file.bytes_ = 0;
  file.failed_ = false;
  return true;
}

bool OutputFolder::finish_stream(StreamedFile& file) {
  const bool ok = file.close();
  if (!ok) {
    record_error("write failed (disk full?)");
    return false;
  }
  ++files_written_;
  bytes_written_ += file.bytes();
  return true;
}

bool OutputFolder::copy_file(const std::filesystem::path& source, std::string_view relative) {
  const int in = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    record_error("cannot read " + source.string() + ": " + std::strerror(errno));
    return false;
  }
  StreamedFile out;
  if (!open_stream(relative, out)) {
    ::close(in);
    return false;
  }
  if (common::is_gzip(in)) {
    // raw.log of a compressed log is its text, as tlparse's raw.log is the log's text.
    common::GzipReader gz(in);
    std::string chunk(1u << 20, '\0');
    ssize_t n = 0;
    while ((n = gz.read(chunk.data(), chunk.size())) > 0) {
      out.write(std::string_view(chunk.data(), static_cast<std::size_t>(n)));
    }
    ::close(in);
    const bool closed = finish_stream(out);
    if (n < 0) {
      record_error("copy failed: " + source.string() + ": " + gz.error());
      return false;
    }
    return closed;
  }
  // copy_file_range keeps the bytes in the kernel (and may share extents); fall back to
  // read/write where the file systems do not support it.
  bool ok = true;
  bool kernel_copy = true;
  const int out_fd = ::fileno(out.file_);
  while (kernel_copy) {
    const ssize_t n = ::copy_file_range(in, nullptr, out_fd, nullptr, 1u << 30, 0);
    if (n > 0) {
      out.bytes_ += static_cast<std::uint64_t>(n);
      continue;
    }
    if (n == 0) {
      break;
    }
    if (errno == EINTR) {
      continue;
    }
    if (out.bytes_ == 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
                            errno == EOPNOTSUPP || errno == EBADF)) {
      kernel_copy = false;
    } else {
      ok = false;
      break;
    }
  }
  if (!kernel_copy) {
    std::string chunk(1u << 20, '\0');
    while (true) {
      const ssize_t n = ::read(in, chunk.data(), chunk.size());
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n < 0) {
        ok = false;
        break;
      }
      if (n == 0) {
        break;
      }
      out.write(std::string_view(chunk.data(), static_cast<std::size_t>(n)));
    }
  }
  ::close(in);
  const bool closed = finish_stream(out);
  if (!ok) {
    record_error("copy failed: " + source.string() + ": " + std::strerror(errno));
    return false;
  }
  return closed;
}

AsyncWriter::AsyncWriter(OutputFolder& folder, unsigned threads, std::size_t max_pending_bytes)
    : folder_(folder), max_pending_bytes_(max_pending_bytes) {
  for (unsigned i = 0; i < threads; ++i) {
    threads_.emplace_back([this] { work(); });
  }
}

AsyncWriter::~AsyncWriter() {
  finish();
}

void AsyncWriter::submit(std::string relative, std::string bytes) {
  if (threads_.empty()) {
    if (!folder_.write_file(relative, bytes)) {
      failed_.push_back(std::move(relative));
    }
    return;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  // A single file larger than the limit still goes through once the queue has drained.
  has_room_.wait(lock, [&] {
    return pending_bytes_ == 0 || pending_bytes_ + bytes.size() <= max_pending_bytes_;
  });
  pending_bytes_ += bytes.size();
  queue_.emplace_back(std::move(relative), std::move(bytes));
  has_work_.notify_one();
}

void AsyncWriter::work() {
  while (true) {
    std::pair<std::string, std::string> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      has_work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) {
        return; // stopping and drained
      }
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    const bool ok = folder_.write_file(job.first, job.second);
    std::lock_guard<std::mutex> lock(mutex_);
    pending_bytes_ -= job.second.size();
    if (!ok) {
      failed_.push_back(std::move(job.first));
    }
    has_room_.notify_all();
  }
}

std::vector<std::string> AsyncWriter::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  has_work_.notify_all();
  for (std::thread& t : threads_) {
    t.join();
  }
  threads_.clear();
  std::vector<std::string> failed = std::move(failed_);
  failed_.clear();
  return failed;
}

} // namespace tlparse::report::detail
