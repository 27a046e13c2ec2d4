// The read API's part for what a log produced and holds as logged: the outputs (the report's
// files) and the compile directory that lists them, the events with their payloads, the
// chromium events and the string table. Part of IndexReader (index_reader.h), the one door.
#pragma once

#include "tlparse/index/reader_part.h"
#include "tlparse/result.h"

#include <functional>
#include <string>
#include <string_view>

namespace tlparse::index {

// The raw compile id of an event; nullopt when a compile-id key had the wrong type.
std::optional<CompileId> compile_id_of(const Event& e);
// "YYYY-MM-DDTHH:MM:SS.ffffffZ" (raw.jsonl) from an event's glog time and the given year.
std::string raw_jsonl_timestamp(const Event& e, int64_t year);
// The metadata of an event: the value of its own key in the envelope, as logged ("{}" if none).
std::string_view event_metadata(const Event& e);

class OutputsReader : public ReaderPart {
public:
  // Every output, in production order; one output by id.
  Result<std::vector<Output>> outputs(int64_t file_id) const;
  Result<std::optional<Output>> output(int64_t output_id) const;

  // Streamed reads for a render whose memory must not grow with the log (docs/SECURITY.md,
  // "Memory"): rows come one at a time in the order a page needs, sorted by SQLite (spilling to
  // temporary files, not our heap); return false to stop.

  // How many outputs a file has; every output of a file, in production order.
  Result<int64_t> output_count(int64_t file_id) const;
  Status for_each_output(int64_t file_id, const std::function<bool(const Output&)>& fn) const;
  // The distinct paths of a file's outputs that are files (not links), in byte order, each with
  // the production position (seq) of its first output and how many outputs write it.
  struct OutputPath {
    std::string path;
    int64_t first_seq = 0;
    int64_t writers = 0;
  };
  Status for_each_output_path(int64_t file_id,
                              const std::function<bool(const OutputPath&)>& fn) const;
  // The seqs of the file outputs whose path a later file output writes again, ascending.
  Result<std::vector<int64_t>> overwritten_outputs(int64_t file_id) const;
  // The paths of the file's file outputs (not links) that are `path` itself or, with
  // `as_folder`, lie under `path` + "/" (each once, in byte order). The first call builds an
  // indexed temporary table of the file's paths (on disk: temp_store=FILE), so this is one
  // B-tree search plus the rows found.
  Status for_each_output_path_at(int64_t file_id, std::string_view path, bool as_folder,
                                 const std::function<bool(std::string_view)>& fn) const;
  // The compile directory with its listed (in_directory) outputs: for each entry, fn(key, null)
  // once, then fn(key, &output) for each of its listed outputs in production order. In
  // `first_seen` order the entries come in first-seen order and an entry's outputs of a named
  // subgraph come after its others, grouped by subgraph in the order of their first output; in
  // `display` order the entries are sorted by display name (then first seen).
  enum class KeyOrder { first_seen, display };
  Status
  for_each_key_with_outputs(int64_t file_id, KeyOrder order,
                            const std::function<bool(const CompileKey&, const Output*)>& fn) const;
  // The listed (in_directory) outputs of one compile-directory entry produced before
  // `before_seq`, in production order (through an indexed temporary table built once).
  Status for_each_listed_output_of_key(int64_t key_id, int64_t before_seq,
                                       const std::function<bool(const Output&)>& fn) const;

  Result<std::optional<Event>> event(int64_t event_id) const;
  // The payload bytes of an event (inflated); nullopt when the event had none.
  Result<std::optional<std::string>> payload(int64_t event_id) const;
  // The MD5 an event declared for its payload (has_payload), without reading its row; nullopt
  // when it declared none.
  Result<std::optional<std::string>> payload_md5(int64_t event_id) const;
  // Streams every stored envelope of a file in log order; return false to stop.
  Status for_each_event(int64_t file_id, const std::function<bool(const Event&)>& fn) const;

  // Streams the parsed chromium events of a file with their payload as logged.
  Status for_each_chromium_event(
      int64_t file_id,
      const std::function<bool(const ChromiumEvent&, std::string_view payload)>& fn) const;
  // How many chromium events of a file parsed (what chromium_events.json lists), counted by the
  // index without reading them.
  Result<int64_t> chromium_event_count(int64_t file_id) const;

  // The file's string table: index -> string, nullopt for gaps (raw.jsonl's first line).
  // Indexes of 4M and above (only hostile logs have them) are left out.
  Result<std::vector<std::optional<std::string>>> string_table(int64_t file_id) const;
  // The same rows streamed in index order (an index bound twice comes twice, the later last), so
  // raw.jsonl's table is written in memory that does not grow with it.
  Status for_each_string(int64_t file_id,
                         const std::function<bool(int64_t idx, std::string_view value)>& fn) const;

protected:
  using ReaderPart::ReaderPart;
};

} // namespace tlparse::index
