// Spans of time from a file's chromium events, paired while the file is read: a B opens a span
// on its (pid, tid), the next E of the same name on that (pid, tid) closes the innermost one
// open, an X is a whole span. Spans are written as they close; those never closed are written
// when the file ends, with no duration (a run that crashed or hung leaves them). Memory is
// bounded: past a cap of open spans the oldest is written as unclosed.
#pragma once

#include "ingest/writer/index_writer.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tlparse::ingest {

struct ChromiumPoint {
  int64_t event_id = 0;
  int64_t key_id = 0;
  int64_t compile_id = 0;
  std::string_view name, cat, ph;
  double ts = 0;
  std::optional<double> dur;
  std::optional<int64_t> pid, tid;
};

class SpanTracker {
public:
  SpanTracker(index::IndexWriter& writer, int64_t file_id) : writer_(writer), file_id_(file_id) {}
  // A chromium event with a timestamp.
  void add(const ChromiumPoint& p);
  // Writes the spans still open.
  void finish();

private:
  // The span of a B or X, without its id, end or duration yet.
  index::Span begin(const ChromiumPoint& p, int64_t depth) const;
  void write(index::Span span, std::optional<int64_t> end_event_id, std::optional<double> duration);

  index::IndexWriter& writer_;
  int64_t file_id_;
  std::map<std::pair<int64_t, int64_t>, std::vector<index::Span>> open_;
  size_t open_count_ = 0;
};

} // namespace tlparse::ingest
