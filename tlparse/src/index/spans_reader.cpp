// SpansReader: the spans the ingest paired, whole or by a chart's window (spans_reader.h).
#include "tlparse/index/spans_reader.h"

#include "index/reader_core.h"

#include <algorithm>

namespace tlparse::index {

using namespace detail;

Result<std::vector<Span>> SpansReader::spans(int64_t file_id) const {
  return core_->rows<Span>("WHERE file_id=? ORDER BY start_us, id", {file_id});
}

Status SpansReader::for_each_span(int64_t file_id,
                                  const std::function<bool(const Span&)>& fn) const {
  return core_->for_each_row<Span>("WHERE file_id=? ORDER BY start_us, id", {file_id}, fn);
}

Result<SpanExtent> SpansReader::span_extent(int64_t file_id,
                                            std::optional<int64_t> compile_id) const {
  // One pass over the file's (or the compile's) spans, by the spans_by_file or
  // spans_by_compile index.
  const std::string sql =
      std::string("SELECT COUNT(*), MIN(start_us), MAX(start_us + COALESCE(duration_us, 0)), "
                  "MAX(duration_us), MIN(CASE WHEN duration_us IS NULL THEN start_us END) "
                  "FROM spans WHERE file_id=?") +
      (compile_id ? " AND compile_id=?" : "");
  SpanExtent out;
  const Status st = core_->each_row_bound(
      "spans", sql,
      [&](Stmt& s) {
        s.bind(1, file_id);
        if (compile_id) {
          s.bind(2, *compile_id);
        }
      },
      [&](const Stmt& s, int& bad) {
        std::optional<double> start, end, longest, first_unclosed;
        if (!read_column(s, 0, out.spans)) {
          bad = 0;
        } else if (!read_column(s, 1, start)) {
          bad = 1;
        } else if (!read_column(s, 2, end)) {
          bad = 2;
        } else if (!read_column(s, 3, longest)) {
          bad = 3;
        } else if (!read_column(s, 4, first_unclosed)) {
          bad = 4;
        }
        if (bad >= 0) {
          return Next::bad;
        }
        out.start_us = start.value_or(0);
        out.end_us = end.value_or(out.start_us);
        out.longest_us =
            std::max(longest.value_or(0), first_unclosed ? out.end_us - *first_unclosed : 0.0);
        return Next::stop;
      });
  if (!st) {
    return Error{st.error()};
  }
  return out;
}

Status SpansReader::for_each_span_in(int64_t file_id, const SpanWindowQuery& q,
                                     const std::function<bool(const Span&)>& fn) const {
  // A span overlapping the window starts at most `longest_us` before it: the start range is
  // what the spans_by_file index narrows; the rest is checked row by row. An unclosed span
  // reaches the file's end, which is past any window. One compile's spans come by
  // spans_by_compile instead (the unary + keeps SQLite from walking spans_by_file for the start
  // range, which would read every span of the file in the window).
  const std::string start = q.compile_id ? "+start_us" : "start_us";
  const std::string where =
      std::string("WHERE file_id=?1") + (q.compile_id ? " AND compile_id=?6" : "") + " AND " +
      start + " >= ?2 AND " + start +
      " <= ?3 AND (duration_us IS NULL OR (duration_us >= ?4 AND start_us + duration_us >= ?5)) "
      "ORDER BY duration_us IS NOT NULL, duration_us DESC, start_us, id";
  return core_->for_each_row_bound<Span>(
      where,
      [&](Stmt& s) {
        s.bind(1, file_id);
        s.bind(2, q.start_us - std::max(q.extent.longest_us, 0.0));
        s.bind(3, q.end_us);
        s.bind(4, q.min_duration_us);
        s.bind(5, q.start_us);
        if (q.compile_id) {
          s.bind(6, *q.compile_id);
        }
      },
      fn);
}

} // namespace tlparse::index
