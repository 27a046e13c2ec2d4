// The read API's part for spans: the chromium events paired by the ingest (each B with its E,
// each X), whole, streamed, or as much of them as a chart's window shows. Part of IndexReader
// (index_reader.h), the one door.
#pragma once

#include "tlparse/index/reader_part.h"
#include "tlparse/result.h"

#include <functional>

namespace tlparse::index {

// Where a file's spans (or one compile's) lie in time, for a chart's first window.
struct SpanExtent {
  int64_t spans = 0;
  double start_us = 0; // the first start
  double end_us = 0;   // the last end (of a closed span, or the last start)
  // The longest span; an unclosed one counts as reaching end_us.
  double longest_us = 0;
};

// The spans a chart of [start_us, end_us] can show: those overlapping it that are at least
// min_duration_us long (an unclosed span reaches the file's last end), optionally of one
// compile (compiles.id) only. `longest_us` (from span_extent) bounds how long before the window
// a span that still overlaps it can start, so a query reads only the window's neighbourhood.
struct SpanWindowQuery {
  double start_us = 0;
  double end_us = 0;
  double min_duration_us = 0;
  std::optional<int64_t> compile_id;
  SpanExtent extent;
};

class SpansReader : public ReaderPart {
public:
  // Spans by start time.
  Result<std::vector<Span>> spans(int64_t file_id) const;
  // The same, streamed (a large log has too many to hold for a chart); return false to stop.
  Status for_each_span(int64_t file_id, const std::function<bool(const Span&)>& fn) const;

  // Where the spans of a file (or of one of its compiles) lie; spans == 0 when it has none.
  Result<SpanExtent> span_extent(int64_t file_id, std::optional<int64_t> compile_id = {}) const;
  // The spans a chart's window shows (see SpanWindowQuery), the longest first (unclosed ones
  // before all), then by start; return false to stop. A chart of a large log reads these, never
  // every span, and one that stops early has kept the spans most worth drawing.
  Status for_each_span_in(int64_t file_id, const SpanWindowQuery& q,
                          const std::function<bool(const Span&)>& fn) const;

protected:
  using ReaderPart::ReaderPart;
};

} // namespace tlparse::index
