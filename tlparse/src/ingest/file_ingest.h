// One log file through the ingest, line by line, in tlparse 0.4.3's order of work
// (docs/TLPARSE-INGEST.md, "The order of work on one line"): reader -> glog prefix -> envelope ->
// the registry's handlers -> the file's trackers -> index writer. process_line() is that order,
// one named step a line; what each kind of event does lives in its handler (ingest/handlers/).
// Counters match 0.4.3; where 0.4.3 throws data away (a wrong-typed envelope and its payload,
// invalid UTF-8) we count the same but keep what we can and say so in the health table.
// ingest.cpp runs one FileIngest per file, several files at once.
#pragma once

#include "common/content_hash.h"
#include "ingest/envelope/envelope.h"
#include "ingest/reader/glog_prefix.h"
#include "ingest/reader/line_reader.h"
#include "ingest/reader/md5.h"
#include "tlparse/index/schema.gen.h"
#include "tlparse/ingest/ingest.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tlparse::index {
class IndexWriter;
}

namespace tlparse::ingest {

class FileState;

class FileIngest {
public:
  // `abort` stops the file like a cancel (another file failed).
  FileIngest(index::IndexWriter& writer, const IngestOptions& options,
             const std::atomic<bool>* abort = nullptr);
  ~FileIngest();
  FileIngest(const FileIngest&) = delete;
  FileIngest& operator=(const FileIngest&) = delete;

  // Ingests `path` as file `file_id`. `progress` is told the bytes read so far.
  bool run(const std::filesystem::path& path, int64_t file_id, FileResult& result,
           std::string& error, const std::function<void(uint64_t)>& progress);
  bool cancelled() const { return cancelled_; }

private:
  // What the steps of one line share once its prefix is read.
  struct LineEvent {
    int64_t lineno = 0;
    GlogPrefix prefix;
    std::string_view envelope; // the envelope's copy (envelope_buf_), padded
    Envelope env;
    int64_t event_id = 0;
    bool fields_ok = false;      // the envelope is an object and every known key is well typed
    std::string_view kind;       // the key that names the event (empty: none)
    bool known = true;           // tlparse 0.4.3 knows that key
    std::string_view main_value; // its raw value, inside the envelope
    std::string_view kind_or_none() const { return kind.empty() ? "(none)" : kind; }
  };
  // Values of an envelope stored by content, to leave out of its row (EventContext::cut_values).
  using CutValues = std::vector<std::pair<std::string_view, int64_t>>;

  // The steps of one line, in order. read_prefix() returns whether the line goes on; the other
  // steps that return a bool return whether they ended it.
  void process_line(const Line& line);
  bool drop_unreadable(const Line& line);
  bool read_prefix(const Line& line, LineEvent& ev);
  void read_envelope(LineEvent& ev);
  void name_event(LineEvent& ev);
  void keep_bad_envelope(LineEvent& ev);
  void count_unknown_keys(const LineEvent& ev);
  bool handle_whole_line(LineEvent& ev);
  std::optional<int64_t> attach_payload(const LineEvent& ev);
  bool keep_other_rank(LineEvent& ev, std::optional<int64_t> payload_id);
  void handle_event(LineEvent& ev, std::optional<int64_t> payload_id);

  bool validate_fields(const LineEvent& ev);
  void read_payload();
  std::optional<int64_t> store_payload(std::string_view declared, int64_t line);
  void store_event(const LineEvent& ev, index::EventStatus status, std::string_view kind,
                   bool known, std::optional<int64_t> key_id, std::optional<int64_t> payload_id,
                   std::optional<std::string_view> payload_filename, bool raw_jsonl,
                   const CutValues& cuts = {});

  void message(const std::string& m);
  bool stopped() const {
    return (options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed)) ||
           (abort_ != nullptr && abort_->load(std::memory_order_relaxed));
  }

  struct VerifiedPayload {
    std::string declared;
    size_t size = 0;
    int64_t payload_id = 0;
    bool matches = false;
  };

  index::IndexWriter& writer_;
  const IngestOptions& options_;
  const std::atomic<bool>* abort_;
  std::unique_ptr<FileState> file_;
  LineReader* reader_ = nullptr;
  EnvelopeParser envelope_parser_;
  std::string envelope_buf_;
  std::string pathname_buf_; // the glog pathname of the line being processed
  std::string cut_envelope_; // the stored envelope of an event with cut values
  std::string payload_;
  uint64_t payload_lines_ = 0;
  bool payload_truncated_ = false; // the last payload read was cut at kMaxPayloadBytes
  std::optional<uint32_t> expected_rank_;
  uint64_t messages_ = 0;
  // Payloads already checked, trusted on a match.
  std::unordered_map<common::ContentKey, VerifiedPayload, common::ContentKeyHash> verified_;
  Md5 md5_;
  std::vector<int> kinds_; // the registry index of each field of the line's envelope, or -1
  bool cancelled_ = false;
};

} // namespace tlparse::ingest
