// Writes the model into index.sqlite with prepared statements: one transaction per log file,
// journal and fsync off while building (the file is rebuilt from the logs if a run dies).
// Row ids are assigned here, so callers can link rows (event -> output -> metrics) without
// asking SQLite. Payloads are stored once per (MD5, size); large ones are zlib-compressed.
#pragma once

#include "index/sqlite_util.h"
#include "tlparse/index/index_reader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tlparse::index {

struct EventRow {
  int64_t id = 0, file_id = 0, line = 0;
  std::string_view status, kind;
  bool known = true;
  bool cid_valid = true;
  CompileId cid;
  std::optional<int64_t> key_id;
  std::optional<uint32_t> rank;
  char level = 'V';
  int month = 0, day = 0;
  int64_t time_us = 0;
  uint64_t thread = 0;
  std::string_view pathname;
  uint64_t source_line = 0;
  std::string_view envelope;
  std::optional<std::string_view> payload_md5;
  std::optional<int64_t> payload_id;
  std::optional<std::string_view> payload_filename;
  bool in_raw_jsonl = false;
};

struct OutputRow {
  int64_t file_id = 0, seq = 0;
  std::optional<int64_t> key_id;
  int64_t event_id = 0, line = 0;
  std::string_view event_key;
  OutputKind kind = OutputKind::payload_text;
  std::string path, name;
  int64_t number = 0;
  std::string_view suffix;
  std::optional<std::string> readable_url;
  bool in_directory = true;
  bool sanitised = false;
};

struct MetricsRow {
  int64_t file_id = 0, event_id = 0;
  std::string_view event_key;
  std::optional<int64_t> output_id;
  std::string_view json;
  std::optional<std::string> co_name, co_filename, fail_type, fail_reason, restart_reasons;
  std::optional<int64_t> co_firstlineno, graph_op_count;
  std::optional<double> entire_frame_compile_time_s;
};

struct ChromiumRow {
  int64_t file_id = 0, event_id = 0;
  std::string name, ph, cat, compile_id, args;
  std::optional<double> ts;
  std::optional<int64_t> pid, tid;
};

class IndexWriter {
public:
  bool open(const std::string& path, std::string* error);
  bool begin_file(const std::string& path, const std::string& name, uint64_t size,
                  std::optional<uint32_t> rank_from_name, int year, int64_t* file_id);
  bool end_file(int64_t file_id, std::optional<uint32_t> rank, uint64_t lines);
  bool finish(std::string* error);
  const std::string& error() const { return error_; }

  int64_t next_event_id() { return ++event_ids_; }
  int64_t next_output_id() { return output_ids_ + 1; }

  void add_string(int64_t file_id, int64_t idx, std::string_view value);
  void add_compile_key(int64_t id, int64_t file_id, int64_t ord, std::string_view display,
                       std::string_view dir_name, const std::optional<CompileId>& cid,
                       int64_t first_line);
  void add_event(const EventRow& row);
  // Returns the payload id for these bytes (stored once per md5+size).
  int64_t add_payload(std::string_view md5_hex, std::string_view bytes);
  int64_t add_output(const OutputRow& row);
  int64_t add_stack(int64_t file_id, int64_t event_id, std::string_view role,
                    const std::vector<Frame>& frames);
  void add_metrics(const MetricsRow& row);
  void add_recompile_reason(int64_t file_id, int64_t event_id, std::optional<int64_t> key_id,
                            std::string_view reason);
  void add_graph_break(int64_t file_id, int64_t event_id, std::optional<int64_t> key_id,
                       std::string_view reason);
  void add_specialization(int64_t file_id, int64_t event_id, std::string_view symbol,
                          std::string_view sources, std::string_view value,
                          std::string_view reason);
  void add_guard_added_fast(int64_t file_id, int64_t event_id, std::string_view expr);
  void add_symbol(int64_t file_id, int64_t event_id, std::string_view symbol, std::string_view val,
                  std::string_view vr, std::string_view source);
  void add_chromium(const ChromiumRow& row);
  void add_cache_event(int64_t file_id, int64_t event_id, int64_t output_id,
                       std::string_view artifact, std::string_view result);
  void add_health(int64_t file_id, std::string_view counter, std::string_view severity,
                  std::string_view description, uint64_t count);
  void add_unknown_key(int64_t file_id, std::string_view key, uint64_t count, int64_t first_line);
  void add_bad_line(int64_t file_id, int64_t line, std::string_view counter,
                    std::string_view excerpt);

private:
  bool check(bool ok);
  Db db_;
  std::string error_;
  int64_t event_ids_ = 0, output_ids_ = 0, payload_ids_ = 0, stack_ids_ = 0, metrics_ids_ = 0;
  int64_t file_ids_ = 0;
  std::unordered_map<std::string, int64_t> payload_by_key_; // md5 + ':' + size
  std::string scratch_;
  Stmt file_, file_end_, string_, key_, event_, payload_, payload_lookup_, output_, stack_, frame_,
      metrics_, recompile_, graph_break_, spec_, guard_fast_, symbol_, chromium_, cache_, health_,
      unknown_, bad_line_;
};

} // namespace tlparse::index
