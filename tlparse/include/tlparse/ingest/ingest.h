// The ingest: log files -> index.sqlite. One call ingests a list of files into a new
// index; the index then answers every question through IndexReader. Files are independent, so
// several are read at once (each by one worker, into a part merged in file order, which keeps
// the index the same whatever the timing); each file is one stream with bounded memory.
// Bad data never fails an ingest (it is counted); only I/O and SQLite errors do.
#pragma once

#include "tlparse/index/stats.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace tlparse::ingest {

struct IngestOptions {
  bool plain_text = false; // -p: inductor_output_code as a .txt payload instead of HTML
  bool verbose = false;    // -v: report every unknown key occurrence through `on_message`
  // Reader limits: a longer line is counted (line_too_long) and skipped without buffering it.
  size_t max_line_bytes = 16u << 20;
  // Called with the bytes read so far of all files and their total (progress bars), from the
  // thread that read them, one call at a time.
  std::function<void(uint64_t done, uint64_t total)> on_progress;
  // Messages tlparse 0.4.3 prints on stderr ("Detected rank: Some(0)", "Failed to parse ...").
  std::function<void(const std::string&)> on_message;
  // Polled between lines: once true the ingest stops, removes the partial index and returns
  // with `cancelled` set (the GUI's Cancel button).
  const std::atomic<bool>* cancel = nullptr;
  // Files read at once (0: one per core); at most kMaxIngestThreads.
  size_t threads = 0;
  // Also build the full-text search table of payloads (tlparse index --fts).
  bool search_table = false;
};

// Each worker holds one file's buffers (up to ~50 MB on a hostile log), so this bounds memory.
inline constexpr size_t kMaxIngestThreads = 4;

struct FileResult {
  std::filesystem::path path;
  int64_t file_id = 0;
  index::Stats stats;
  std::vector<std::string> unknown_keys; // sorted
  std::vector<uint64_t> health;          // indexed by index::HealthId
  uint64_t bytes = 0;
};

struct IngestResult {
  bool ok = false;
  std::string error;      // I/O or SQLite failure
  bool cancelled = false; // stopped by IngestOptions::cancel; no index file is left
  std::vector<FileResult> files;
};

// Creates (replacing) the index at `index_path` and ingests `logs` into it; file ids follow the
// given order. On failure or cancel no index (and no part) is left behind.
IngestResult ingest_files(const std::vector<std::filesystem::path>& logs,
                          const std::filesystem::path& index_path, const IngestOptions& options);

} // namespace tlparse::ingest
