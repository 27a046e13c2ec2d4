// Test-side reading of the event-kind catalogue and schema-checking of whole trace logs: splits
// each line into glog prefix and envelope, validates the envelope, its event's metadata and any
// fixed-shape JSON payload against schemas/trace/, and counts what it saw.
#pragma once

#include "schemas/json_schema.h"

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace torchscope::test {

// schemas/trace/ in the source tree.
std::filesystem::path trace_schema_dir();

// What tests need from schemas/trace/event_kinds.json.
struct Catalogue {
  struct Kind {
    std::string schema;         // relative to trace_schema_dir(); "" when the entry has none
    std::string payload_schema; // "" when the payload has no fixed JSON shape
    std::string payload;        // none | text | json | optional
  };
  std::map<std::string, Kind> kinds;                           // by event key
  std::map<std::string, std::string> artifact_payload_schemas; // artifact name -> schema
  std::set<std::string> artifact_names;
  std::vector<std::string> context_keys;
};
// Reads the catalogue; returns nullopt and sets *error when it is missing or malformed.
std::optional<Catalogue> load_catalogue(const std::filesystem::path& file, std::string* error);

// The text after a glog prefix ("V1122 02:58:46.243000 539 torch/x.py:12] "), found anywhere in
// the line the way tlparse 0.4.3's unanchored regex finds it; nullopt when there is none.
std::optional<std::string_view> glog_message(std::string_view line);

// One schema violation of a well-formed envelope, with where it was.
struct Violation {
  std::string file;
  size_t line = 0;
  std::string kind;
  std::string what;
};

// Counts over every scanned line. "Envelope" means a glog line whose message is a JSON object.
struct ScanCounts {
  size_t files = 0;
  size_t lines = 0;
  size_t envelopes = 0;        // well-formed envelopes schema-checked
  size_t not_envelopes = 0;    // other loggers' lines, stray text, unattached tab lines
  size_t invalid_json = 0;     // glog lines whose message starts with '{' but is not JSON
  size_t payloads_checked = 0; // JSON payloads validated against a payload schema
  std::map<std::string, size_t> per_kind;         // catalogued kinds
  std::map<std::string, size_t> unknown_kinds;    // kinds the catalogue does not list
  std::map<std::string, size_t> payload_not_json; // kind or "artifact:<name>" -> count
  std::map<std::string, size_t> invalid_json_by_file;
  std::map<std::string, size_t> payload_not_json_by_file; // "file (label)" -> count
  std::vector<Violation> violations;
};

// Checks logs against the schemas in trace_schema_dir().
class TraceScanner {
public:
  // Loads the catalogue and the envelope schema; check ok() before scanning.
  TraceScanner();
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const Catalogue& catalogue() const { return catalogue_; }
  // Context keys the envelope schema declares (every other key is an event key).
  const std::set<std::string>& context_keys() const { return context_keys_; }

  void scan_file(const std::filesystem::path& file, const std::string& display_name,
                 ScanCounts* counts);
  // Checks one envelope text as scan_file would, with the tab lines that follow it joined
  // (nullptr when none follow). Returns whether the envelope owns them (it has has_payload).
  bool check_envelope(std::string_view json, const std::string* payload,
                      const std::string& display_name, size_t line_number, ScanCounts* counts);

private:
  std::string error_;
  Catalogue catalogue_;
  std::set<std::string> context_keys_;
  SchemaSet schemas_;
  simdjson::dom::parser envelope_parser_;
  simdjson::dom::parser payload_parser_;
};

// A short printable summary of the counts (one fact per line).
std::string summarize(const ScanCounts& counts);

} // namespace torchscope::test
