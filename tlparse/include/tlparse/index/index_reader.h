// The read API over an index.sqlite written by the ingest: the ONE way the report, the CLI and
// the GUI read traces. It returns the rows the schema declares (tlparse/index/schema.gen.h,
// generated from schemas/index/) and a few joined views of them, as plain C++ values in a
// deterministic order (log order, or first-seen order for compiles). Everything a reader needs
// was computed by the ingest: nothing here parses JSON or log text again.
//
// IndexReader is the one door: open() checks the file and every read goes through its one
// connection. Its queries are declared by concern in the parts it is made of (reader_part.h):
// compiles (compiles_reader.h), outputs, events and payloads (outputs_reader.h), spans
// (spans_reader.h) and answers (answers_reader.h); this header declares what concerns the file
// as a whole: opening it, its integrity, its files and their data health.
//
// Every read can fail: a damaged or truncated index, a table missing, a value of the wrong type.
// Such failures come back as errors (Result / Status) naming the index, never as "no more rows"
// or as a default value. An index is opened read-only and never written: search, which needs a
// table the ingest builds only on request, uses a separate search file (see build_search_file).
// A reader is not thread-safe; open one per thread.
#pragma once

#include "tlparse/index/answers_reader.h"
#include "tlparse/index/compiles_reader.h"
#include "tlparse/index/outputs_reader.h"
#include "tlparse/index/spans_reader.h"
#include "tlparse/index/stats.h"

#include <memory>

namespace tlparse::index {

class IndexReader final : public CompilesReader,
                          public OutputsReader,
                          public SpansReader,
                          public AnswersReader {
public:
  struct OpenOptions {
    // A search file built by build_search_file() for this index, attached read-only.
    std::filesystem::path search_file;
    // The connection is used by one thread at a time (a render's private side readers): SQLite
    // then takes no mutex per call (SQLITE_OPEN_NOMUTEX), which profiling showed at ~4% of a
    // multi-rank render. Leave it off for a reader shared between threads (the server).
    bool one_thread = false;
    // The connection mostly scans tables in order, each page read once (a render's raw.jsonl and
    // chromium side jobs): a small page cache (256 KB instead of SQLite's 2 MB) holds its path
    // through the b-trees, and the memory is not kept per rank.
    bool scans_in_order = false;
  };
  // Opens read-only and checks that the file is an index of this schema version with every
  // declared table and column.
  static Result<std::unique_ptr<IndexReader>> open(const std::filesystem::path& path,
                                                   const OpenOptions& options);
  static Result<std::unique_ptr<IndexReader>> open(const std::filesystem::path& path);
  ~IndexReader();

  const std::filesystem::path& path() const;
  // Reads every page of the file (SQLite's quick_check): finds damage anywhere, also where no
  // query would look. Costs a full read of the file, so only `tlparse render` of an index from
  // elsewhere asks for it.
  Status check_integrity() const;

  Result<std::vector<File>> files() const;
  // tlparse's statistics and our data-health counters of a file.
  Result<Stats> stats(int64_t file_id) const;
  Result<std::vector<HealthCounter>> health(int64_t file_id) const;
  Result<std::vector<UnknownKey>> unknown_keys(int64_t file_id) const; // by first line
  Result<std::vector<BadLine>> bad_lines(int64_t file_id, int64_t limit = 1000) const;

private:
  explicit IndexReader(std::unique_ptr<detail::ReaderCore> core);
  // The connection every part reads through; destroyed after nothing can call a part.
  std::unique_ptr<detail::ReaderCore> connection_;
};

} // namespace tlparse::index
