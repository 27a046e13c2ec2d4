// What `tlparse query`, `check` and `diff` read: an index, a log or a folder of logs. An index is
// opened as it is; logs are indexed first into a private temporary folder that is removed when
// the source goes away (also after Ctrl-C, which stops the ingest between lines).
#pragma once

#include "tlparse/index/index_reader.h"
#include "tlparse/result.h"

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

namespace tlparse::cli {

class IndexSource {
public:
  // `path`: an index.sqlite, a report folder (its index.sqlite), a log, or a folder whose *.log
  // files are indexed together.
  static Result<std::unique_ptr<IndexSource>> open(const std::filesystem::path& path);
  ~IndexSource();
  IndexSource(const IndexSource&) = delete;
  IndexSource& operator=(const IndexSource&) = delete;

  const index::IndexReader& reader() const { return *reader_; }
  // The path the user gave (for messages).
  const std::filesystem::path& given() const { return given_; }

private:
  IndexSource() = default;
  std::filesystem::path given_;
  std::filesystem::path temp_dir_; // empty when the source was an index
  std::unique_ptr<index::IndexReader> reader_;
};

// True once Ctrl-C or SIGTERM arrived (installed by the first IndexSource::open).
const std::atomic<bool>& interrupted();

// A value of a log or an index made printable on a terminal: text::terminal_safe() (control
// bytes, newlines included, and invalid UTF-8 become visible escapes).
std::string printable(std::string_view text);

} // namespace tlparse::cli
