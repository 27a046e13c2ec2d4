// The production backend: logs are found by tlparse's one rule (ingest/log_files.h) and indexed
// by tlparse's ingest on the session's worker thread (Cancel raises the flag the ingest checks
// between lines; it then removes its partial index), then every question is answered by
// tlparse::index::IndexReader and copied into the GUI's value types. The facts about compiles
// (status, times, cache state, location, reasons, breaks, spans) were computed by the ingest:
// nothing here parses JSON or recovers a name from a file name.
//
// Speed on large indexes: the first screen costs one indexed query per table of the file
// (compiles, compile keys, outputs, metrics, stacks, reasons). Spans are never read whole: the
// chart asks for a window and gets the spans it can show (IndexReader::for_each_span_in), the
// compile page reads one compile's. Per-file results are cached; per-compile lookups go through
// maps built once.
#include "gui/code_highlighter.h"
#include "gui/index_backend.h"
#include "gui/session_files.h"
#include "tlparse/answers/artifact_explanation.h"
#include "tlparse/answers/compile_time_chart.h"
#include "tlparse/answers/graph_break_id.h"
#include "tlparse/answers/recompile_explanation.h"
#include "tlparse/answers/runtime_facts.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/ingest/ingest.h"
#include "tlparse/ingest/log_files.h"
#include "tlparse/report/render.h"
#include "tlparse/report/serde_json.h"

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QMap>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <algorithm>
#include <map>
#include <set>
#include <type_traits>
#include <unordered_map>

namespace gui {

namespace {

namespace ti = tlparse::index;

// The most spans one answer of the chart carries per rank: as many as a chart draws (they come
// the longest first, so those left out are the shortest).
constexpr qsizetype kMaxChartSpansPerBand = qsizetype(tlparse::answers::kMaxChartBars);

QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), qsizetype(s.size()));
}
std::filesystem::path fsPath(const QString& p) {
  return std::filesystem::path(p.toStdString());
}

// A read of the index that failed: the person reads the message (a damaged index).
template <class T>
T must(tlparse::Result<T> r) {
  if (!r) {
    throw BackendError(r.error());
  }
  return std::move(r).value();
}
void must(const tlparse::Status& s) {
  if (!s) {
    throw BackendError(s.error());
  }
}

bool isIndexFile(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    return false;
  }
  return f.read(16) == QByteArray("SQLite format 3\0", 16);
}

// "file:line" of a view's user location; empty when the log had none.
QString userLocation(const std::optional<std::string>& file, const std::optional<int64_t>& line) {
  if (!file) {
    return {};
  }
  return line ? QStringLiteral("%1:%2").arg(qs(*file)).arg(*line) : qs(*file);
}

QString frameText(const ti::StackFrame& f) {
  const std::optional<std::string>& file = f.filename ? f.filename : f.uninterned_filename;
  return QStringLiteral("%1:%2 in %3")
      .arg(file ? qs(*file) : QStringLiteral("?"))
      .arg(f.line)
      .arg(qs(f.name));
}

QString locationOf(const ti::Compile& c) {
  if (!c.user_line) {
    return {};
  }
  return QStringLiteral("%1:%2 in %3")
      .arg(c.user_file ? qs(*c.user_file) : QStringLiteral("?"))
      .arg(*c.user_line)
      .arg(qs(c.user_function.value_or("")));
}

// The index's status of a compile as the tree's outcome; a cache hit is an ok compile whose
// cache artifacts were all hits (the index's cache_state).
CompileOutcome outcomeOf(const ti::Compile& c) {
  switch (c.status) {
  case ti::CompileStatus::ok:
    return c.cache_state == ti::CacheState::hit ? CompileOutcome::CacheHit : CompileOutcome::Ok;
  case ti::CompileStatus::restart:
    return CompileOutcome::GraphBreak;
  case ti::CompileStatus::empty:
    return CompileOutcome::EmptyGraph;
  case ti::CompileStatus::error:
    return CompileOutcome::Failed;
  case ti::CompileStatus::missing:
    break;
  }
  return CompileOutcome::Unknown;
}

// A typed metrics value as text; empty for none.
template <class T>
QString valueText(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return qs(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? QStringLiteral("true") : QStringLiteral("false");
  } else if constexpr (std::is_same_v<T, double>) {
    return QString::number(v, 'g', 10);
  } else if constexpr (std::is_enum_v<T>) {
    return qs(to_string(v));
  } else {
    return QString::number(v);
  }
}
template <class T>
QString valueText(const std::optional<T>& v) {
  return v ? valueText(*v) : QString();
}

// The words of an FTS5 query, for finding matching lines inside a payload.
QStringList queryTerms(const QString& query) {
  QStringList out;
  static const QRegularExpression split(QStringLiteral("[\\s()]+"));
  for (QString t : query.split(split, Qt::SkipEmptyParts)) {
    if (t == QLatin1String("AND") || t == QLatin1String("OR") || t == QLatin1String("NOT") ||
        t.startsWith(QLatin1String("NEAR"))) {
      continue;
    }
    t.remove(QLatin1Char('"'));
    t.remove(QLatin1Char('*'));
    t.remove(QLatin1Char('^'));
    if (const int colon = t.indexOf(QLatin1Char(':')); colon >= 0 && colon + 1 < t.size()) {
      t = t.mid(colon + 1); // a column filter
    }
    if (!t.isEmpty()) {
      out.append(t);
    }
  }
  return out;
}

struct CompileInfo {
  int64_t fileId = 0;
  CompileSummary summary;
  QString location;
  ti::Compile compile; // its row: the compile all attempts share
};

// What one file's compiles need, read once, by compile-directory entry (the tree's compiles).
struct FileCache {
  std::vector<ti::Output> outputs;
  std::unordered_map<int64_t, std::vector<size_t>> outputsByKey; // indexes into `outputs`
  std::vector<ti::MetricsEvent> metrics;
  std::unordered_map<int64_t, std::vector<size_t>> metricsByKey; // indexes into `metrics`
  std::unordered_map<int64_t, ti::StackFrames> stackByKey;       // first dynamo_start stack
  // Each reason with its category and a suggestion (the read API's `recompiles` view).
  std::unordered_map<int64_t, std::vector<ti::RecompileExplained>> reasonsByKey;
  std::unordered_map<int64_t, std::vector<ti::GraphBreak>> breaksByKey;
  // How each compile served its calls (our compiler's runtime_facts), by display; empty for
  // PyTorch's logs.
  std::unordered_map<std::string, tlparse::answers::Served> servedByCompile;
  // Where the file's spans lie (read on the first chart), and each charted compile's.
  std::optional<ti::SpanExtent> spanExtent;
  std::unordered_map<int64_t, ti::SpanExtent> compileSpanExtent; // by compiles.id
};

class TlparseBackend final : public IndexBackend {
public:
  TlparseBackend(std::unique_ptr<QTemporaryDir> tempDir, QString indexPath, QString sourcePath,
                 std::unique_ptr<ti::IndexReader> reader)
      : tempDir_(std::move(tempDir)), indexPath_(std::move(indexPath)),
        sourcePath_(std::move(sourcePath)), reader_(std::move(reader)) {}

  IndexOverview overview() override {
    IndexOverview out;
    out.sourcePath = sourcePath_;
    out.indexPath = indexPath_;
    compiles_.clear();
    keyByCompile_.clear();
    keysByCompile_.clear();
    files_ = must(reader_->files());
    for (const ti::File& file : files_) {
      RankSummary rank;
      rank.rank = rankOf(file);
      const FileCache& fc = cache(file.id);
      for (const ti::Output& o : fc.outputs) {
        if (o.kind != ti::OutputKind::payload_copy && o.kind != ti::OutputKind::link) {
          ++out.artifactCount;
        }
      }
      for (const ti::HealthCounter& h : must(reader_->health(file.id))) {
        if (h.severity != ti::Severity::info) {
          out.badDataCount += qint64(h.count);
        }
      }
      std::unordered_map<int64_t, ti::Compile> compileById;
      for (ti::Compile& c : must(reader_->compiles(file.id))) {
        compileById.emplace(c.id, std::move(c));
      }
      // Frames in first-seen order of their compiles; one tree compile per directory entry.
      std::map<std::optional<int64_t>, int> framePos;
      for (const ti::CompileKey& key : must(reader_->compile_keys(file.id))) {
        const ti::Compile& compile = compileById.at(key.compile_id);
        CompileInfo info;
        info.fileId = file.id;
        info.compile = compile;
        info.location = locationOf(compile);
        CompileSummary& s = info.summary;
        s.id = key.id;
        s.rank = rank.rank;
        s.display = qs(key.display);
        s.frameId = key.frame_id ? int(*key.frame_id) : -1;
        s.frameCompileId = key.frame_compile_id ? int(*key.frame_compile_id) : -1;
        s.attempt = key.attempt ? int(*key.attempt) : 0;
        s.outcome = outcomeOf(compile);
        s.durationSeconds = compile.entire_frame_compile_time_s.value_or(-1);
        s.startUs = compile.start_time_s ? *compile.start_time_s * 1e6 : -1;
        auto [pos, inserted] = framePos.emplace(key.frame_id, int(rank.frames.size()));
        if (inserted) {
          FrameSummary frame;
          frame.rank = rank.rank;
          frame.frameId = s.frameId;
          rank.frames.append(frame);
        }
        FrameSummary& frame = rank.frames[pos->second];
        if (frame.location.isEmpty()) {
          frame.location = info.location;
        }
        frame.compiles.append(s);
        // A compile's first entry (its first attempt) is what a graph break's compile opens.
        keyByCompile_.emplace(std::make_pair(file.id, compile.display), key.id);
        keysByCompile_[compile.id].push_back(key.id);
        compiles_[key.id] = info;
        ++out.compileCount;
      }
      out.ranks.append(rank);
    }
    return out;
  }

  CompileDetail compileDetail(qint64 compileId) override {
    const CompileInfo& info = compile(compileId);
    const FileCache& fc = cache(info.fileId);
    CompileDetail d;
    d.summary = info.summary;
    d.location = info.location;
    if (auto it = fc.reasonsByKey.find(compileId); it != fc.reasonsByKey.end()) {
      for (const ti::RecompileExplained& r : it->second) {
        RecompileReason reason;
        reason.guard = qs(r.cached_entry ? *r.cached_entry + ": " + r.guard : r.guard);
        reason.category = qs(r.category);
        reason.suggestion = qs(r.suggestion);
        reason.location = userLocation(r.user_file, r.user_line);
        reason.userStack = r.user_stack ? qs(*r.user_stack) : QString();
        QString text = reason.guard;
        if (r.user_file && r.user_line) {
          text += QStringLiteral("  (at %1)").arg(reason.location);
        }
        text += QStringLiteral("\n  %1: %2").arg(reason.category, reason.suggestion);
        d.recompileReasons.append(text);
        d.recompileExplained.append(reason);
      }
    }
    if (d.recompileReasons.isEmpty()) {
      d.recompileNote = qs(tlparse::answers::no_recompile_reason_note(info.compile));
    }
    if (!fc.servedByCompile.empty()) {
      const auto it = fc.servedByCompile.find(info.compile.display);
      d.served =
          qs(tlparse::answers::served_text(it == fc.servedByCompile.end() ? nullptr : &it->second));
    }
    if (auto it = fc.breaksByKey.find(compileId); it != fc.breaksByKey.end()) {
      for (const ti::GraphBreak& b : it->second) {
        QString text = QStringLiteral("Graph break: ") + qs(b.reason);
        if (b.user_file && b.user_line) {
          text += QStringLiteral("\n  at %1:%2").arg(qs(*b.user_file)).arg(*b.user_line);
        }
        d.restartReasons.append(text);
      }
    }
    // Why outputs are missing (a cache hit, a failure, a backend that writes no code): the
    // report's rule, over the artifacts of every attempt of the compile.
    std::set<std::string> artifactNames;
    for (const qint64 key : keysByCompile_[info.compile.id]) {
      if (auto it = fc.outputsByKey.find(key); it != fc.outputsByKey.end()) {
        for (size_t i : it->second) {
          artifactNames.insert(fc.outputs[i].artifact);
        }
      }
    }
    if (auto why = tlparse::answers::explain_missing_artifacts(info.compile, artifactNames)) {
      d.artifactNote = qs(*why);
    }
    if (auto it = fc.metricsByKey.find(compileId); it != fc.metricsByKey.end()) {
      for (size_t i : it->second) {
        addMetrics(fc.metrics[i],
                   must(reader_->metrics_other_fields(fc.metrics[i].metrics.event_id)), d);
      }
    }
    // The chromium spans of this entry, summed per name: the finer-grained breakdown. Only
    // this compile's spans are read (by the index's spans_by_compile), never the log's.
    {
      QMap<QString, double> spanSeconds;
      QStringList spanOrder;
      ti::SpanWindowQuery q;
      q.compile_id = info.compile.id;
      q.extent = compileSpanExtent(info.fileId, info.compile.id);
      q.start_us = q.extent.start_us;
      q.end_us = q.extent.end_us;
      must(reader_->for_each_span_in(info.fileId, q, [&](const ti::Span& s) {
        if (s.key_id != compileId) {
          return true; // another attempt of the compile
        }
        const QString name = qs(s.name);
        if (!spanSeconds.contains(name)) {
          spanOrder.append(name);
        }
        spanSeconds[name] += s.duration_us.value_or(0) / 1e6;
        return true;
      }));
      for (const QString& name : spanOrder) {
        d.phaseSeconds.append({name + QStringLiteral(" (trace)"), spanSeconds.value(name)});
      }
    }
    if (auto it = fc.stackByKey.find(compileId); it != fc.stackByKey.end()) {
      for (const ti::StackFrame& f : it->second) {
        d.userStack.append(frameText(f));
      }
    }
    if (auto it = fc.outputsByKey.find(compileId); it != fc.outputsByKey.end()) {
      for (size_t i : it->second) {
        const ti::Output& o = fc.outputs[i];
        if (o.kind == ti::OutputKind::payload_copy) {
          continue;
        }
        ArtifactRef a;
        a.id = o.id;
        a.name = qs(o.artifact);
        a.kind = qs(o.event_key);
        a.encoding = qs(to_string(o.kind));
        d.artifacts.append(a);
      }
    }
    return d;
  }

  ArtifactText artifactText(qint64 artifactId) override {
    const std::optional<ti::Output> o = must(reader_->output(artifactId));
    if (!o) {
      throw BackendError("The index has no artifact " + std::to_string(artifactId) + ".");
    }
    ArtifactText a;
    a.id = o->id;
    a.name = qs(o->artifact);
    if (o->kind == ti::OutputKind::link) {
      a.text = qs(o->path);
      a.language = QStringLiteral("text");
      return a;
    }
    const std::optional<std::string> payload = must(reader_->payload(o->event_id));
    if (!payload) {
      // No payload (a metrics page, say): the event's metadata, printed as the report prints
      // JSON.
      const std::optional<ti::Event> event = must(reader_->event(o->event_id));
      const std::string_view meta = event ? ti::event_metadata(*event) : std::string_view("{}");
      a.text = qs(tlparse::report::text_output(ti::OutputKind::json_pretty, meta));
      a.language = QStringLiteral("json");
      return a;
    }
    a.text = qs(tlparse::report::text_output(o->kind, *payload));
    a.language = o->event_key == "inductor_output_code" ? QStringLiteral("python")
                                                        : languageForArtifact(a.name, a.text);
    return a;
  }

  ChartSlice chart(const ChartRequest& request) override {
    ChartSlice out;
    out.request = request;
    std::optional<int64_t> onlyFile, compileRow;
    if (request.compileId >= 0) {
      const CompileInfo& info = compile(request.compileId);
      onlyFile = info.fileId;
      compileRow = info.compile.id;
      out.title = qs(info.compile.display);
    }
    // Every band's extent first: an empty request window means all of it.
    struct Band {
      const ti::File* file;
      ti::SpanExtent fileExtent;
    };
    std::vector<Band> bands;
    for (const ti::File& file : files_) {
      if (onlyFile && file.id != *onlyFile) {
        continue;
      }
      const ti::SpanExtent& whole = fileSpanExtent(file.id);
      const ti::SpanExtent extent = compileRow ? compileSpanExtent(file.id, *compileRow) : whole;
      if (extent.spans == 0) {
        continue;
      }
      out.extentStartUs =
          bands.empty() ? extent.start_us : std::min(out.extentStartUs, extent.start_us);
      out.extentEndUs = bands.empty() ? extent.end_us : std::max(out.extentEndUs, extent.end_us);
      out.runEndUs = bands.empty() ? whole.end_us : std::max(out.runEndUs, whole.end_us);
      bands.push_back({&file, whole});
    }
    tlparse::answers::ChartWindow window;
    window.start_us = request.endUs > request.startUs ? request.startUs : out.extentStartUs;
    window.end_us = request.endUs > request.startUs ? request.endUs : out.extentEndUs;
    window.width_px = request.widthPx;
    for (const Band& b : bands) {
      ChartBand band;
      band.rank = rankOf(*b.file);
      ti::SpanWindowQuery q;
      q.start_us = window.start_us;
      q.end_us = window.end_us;
      q.min_duration_us = window.min_duration_us();
      q.compile_id = compileRow;
      q.extent = b.fileExtent; // its longest span bounds the compile's too
      must(reader_->for_each_span_in(b.file->id, q, [&](const ti::Span& s) {
        if (band.spans.size() >= kMaxChartSpansPerBand) {
          band.truncated = true;
          return false;
        }
        ChartSpan c;
        c.name = qs(s.name);
        c.compileId = s.key_id.value_or(-1);
        const auto key = c.compileId >= 0 ? compiles_.find(c.compileId) : compiles_.end();
        c.compileLabel = key != compiles_.end() ? key->second.summary.display
                                                : QStringLiteral("(outside any compile)");
        c.startUs = s.start_us;
        c.durationUs = s.duration_us.value_or(0);
        c.unclosed = !s.duration_us;
        band.spans.append(std::move(c));
        return true;
      }));
      out.bands.append(std::move(band));
    }
    std::stable_sort(out.bands.begin(), out.bands.end(),
                     [](const ChartBand& a, const ChartBand& b) { return a.rank < b.rank; });
    return out;
  }

  QList<SearchHit> search(const QString& query, int offset, int limit) override {
    prepareSearch();
    if (query != searchQuery_) {
      searchQuery_ = query;
      searchLines_.clear();
      searchCursor_ = 0;
      searchDone_ = false;
      searchMatches_.clear();
      searchMatch_ = searchUse_ = 0;
    }
    const QStringList terms = queryTerms(query);
    const int want = offset + limit;
    while (searchLines_.size() < want) {
      if (searchMatch_ < searchMatches_.size()) {
        expandMatch(terms, want);
        continue;
      }
      if (searchDone_) {
        break;
      }
      // A few payloads at a time: each can hold many matching lines and be logged many times.
      constexpr int64_t kPayloadsPerStep = 8;
      constexpr int64_t kMaxUsesPerPayload = 5000;
      auto page = reader_->search(query.toStdString(), searchCursor_, kPayloadsPerStep,
                                  kMaxUsesPerPayload, /*snippets=*/false);
      searchMatch_ = 0;
      searchUse_ = 0;
      if (!page) {
        searchDone_ = true;
        searchMatches_.clear();
        throw BackendError("Search failed: " + page.error());
      }
      searchMatches_ = std::move(page).value();
      if (!searchMatches_.empty()) {
        searchCursor_ = searchMatches_.back().rowid;
      }
      searchDone_ = int64_t(searchMatches_.size()) < kPayloadsPerStep;
    }
    return searchLines_.mid(offset, limit);
  }

  QList<GraphBreakRow> graphBreaks() override {
    QList<GraphBreakRow> out;
    for (const ti::File& file : files_) {
      for (const ti::GraphBreakSummary& b : must(reader_->graph_break_summary(file.id))) {
        GraphBreakRow row;
        row.rank = rankOf(file);
        row.reason = qs(b.reason);
        row.location = userLocation(b.user_file, b.user_line);
        row.userStack = b.user_stack ? qs(*b.user_stack) : QString();
        row.count = b.count;
        const auto stable = tlparse::answers::graph_break_id(b.reason);
        row.stableId = qs(stable.id);
        row.docsUrl = qs(stable.docs_url);
        // The view lists the compiles as PyTorch prints them, comma-separated (a compile id
        // holds no comma).
        for (const std::string_view id : splitCommas(b.compile_ids)) {
          auto it = keyByCompile_.find(std::make_pair(file.id, std::string(id)));
          row.compiles.append({qs(id), it == keyByCompile_.end() ? qint64(-1) : it->second});
        }
        out.append(row);
      }
    }
    return out;
  }

  static std::vector<std::string_view> splitCommas(std::string_view text) {
    std::vector<std::string_view> out;
    while (!text.empty()) {
      const size_t comma = text.find(',');
      out.push_back(text.substr(0, comma));
      text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    }
    return out;
  }

  QList<HealthRow> health() override {
    QMap<QString, HealthRow> rows;
    QStringList order;
    QStringList unknown;
    qint64 orphans = 0;
    for (const ti::File& file : files_) {
      for (const ti::HealthCounter& h : must(reader_->health(file.id))) {
        const QString name = qs(h.counter);
        if (!rows.contains(name)) {
          order.append(name);
          rows[name] = {name, qs(to_string(h.severity)), 0, qs(h.description)};
        }
        rows[name].count += qint64(h.count);
      }
      for (const ti::UnknownKey& k : must(reader_->unknown_keys(file.id))) {
        if (!unknown.contains(qs(k.key))) {
          unknown.append(qs(k.key));
        }
      }
      for (const ti::Output& o : cache(file.id).outputs) {
        if (isOrphan(o)) {
          ++orphans;
        }
      }
    }
    std::sort(unknown.begin(), unknown.end());
    QList<HealthRow> out;
    for (const QString& n : order) {
      out.append(rows[n]);
    }
    out.append({QStringLiteral("unknown_event_kinds"), QStringLiteral("info"),
                qint64(unknown.size()),
                unknown.isEmpty() ? QStringLiteral("Event kinds tlparse does not know.")
                                  : QStringLiteral("Event kinds tlparse does not know: ") +
                                        unknown.join(QStringLiteral(", "))});
    out.append({QStringLiteral("artifacts_without_compile"), QStringLiteral("warning"), orphans,
                QStringLiteral("Artifacts logged outside any compile (no compile id).")});
    return out;
  }

  QList<HealthIssue> healthIssues(int limit) override {
    QList<HealthIssue> out;
    for (const ti::File& file : files_) {
      const QString name = qs(file.name);
      QHash<QString, QString> severities; // by counter, as the index recorded them
      for (const ti::HealthCounter& h : must(reader_->health(file.id))) {
        severities.insert(qs(h.counter), qs(to_string(h.severity)));
      }
      // The ingest keeps the first 10,000 bad lines of a file (bad_lines table).
      for (const ti::BadLine& b : must(reader_->bad_lines(file.id, limit))) {
        HealthIssue i;
        i.kind = qs(b.counter);
        i.severity = severities.value(i.kind, QStringLiteral("error"));
        i.file = name;
        i.line = b.line;
        i.detail = badLineDetail(i.kind, qs(b.excerpt));
        out.append(i);
      }
      for (const ti::UnknownKey& u : must(reader_->unknown_keys(file.id))) {
        out.append({QStringLiteral("unknown_event_kinds"), QStringLiteral("info"), name,
                    u.first_line,
                    QStringLiteral("\"%1\": an event kind tlparse does not know, %2 time(s); "
                                   "this is its first line")
                        .arg(qs(u.key))
                        .arg(u.count),
                    -1});
      }
      for (const ti::Output& o : cache(file.id).outputs) {
        if (isOrphan(o)) {
          out.append({QStringLiteral("artifacts_without_compile"), QStringLiteral("warning"), name,
                      o.line,
                      QStringLiteral("%1 (%2) has no compile id; activate to open it")
                          .arg(qs(o.name), qs(o.event_key)),
                      o.id});
        }
      }
    }
    std::stable_sort(out.begin(), out.end(), [](const HealthIssue& a, const HealthIssue& b) {
      return a.file != b.file ? a.file < b.file : a.line < b.line;
    });
    if (out.size() > limit) {
      out.resize(limit);
    }
    return out;
  }

private:
  static int rankOf(const ti::File& file) {
    return file.rank ? int(*file.rank) : file.rank_from_name ? int(*file.rank_from_name) : -1;
  }

  static bool isOrphan(const ti::Output& o) {
    return !o.key_id && o.kind != ti::OutputKind::payload_copy && o.in_directory;
  }

  // What went wrong on a bad line, in words, then the start of the line.
  static QString badLineDetail(const QString& counter, const QString& excerpt) {
    static const QHash<QString, QString> what = {
        {QStringLiteral("fail_glog"), QStringLiteral("no glog prefix")},
        {QStringLiteral("fail_json"), QStringLiteral("envelope is not valid JSON (truncated?) or "
                                                     "has wrongly typed keys")},
        {QStringLiteral("fail_payload_md5"),
         QStringLiteral("payload MD5 differs from the declared has_payload")},
        {QStringLiteral("invalid_utf8"), QStringLiteral("binary garbage: not valid UTF-8")},
        {QStringLiteral("line_too_long"), QStringLiteral("overlong line, skipped")},
        {QStringLiteral("payload_too_large"), QStringLiteral("payload too large, truncated")},
        {QStringLiteral("truncated_last_line"), QStringLiteral("file ends without a newline")},
        {QStringLiteral("stray_payload_lines"), QStringLiteral("payload line without an envelope")},
        {QStringLiteral("fail_dynamo_guards_json"),
         QStringLiteral("dynamo_guards payload is not a list of guards")},
        {QStringLiteral("fail_parser"), QStringLiteral("a parser rejected the event")},
        {QStringLiteral("bad_chromium_event"),
         QStringLiteral("chromium_event payload is not a JSON object")},
        {QStringLiteral("unsafe_output_name"), QStringLiteral("unsafe output name replaced")},
        {QStringLiteral("unresolved_string"),
         QStringLiteral("stack frame names a string index never interned")},
        {QStringLiteral("other_rank"), QStringLiteral("line of another rank")},
    };
    const QString w = what.value(counter, counter);
    if (excerpt.isEmpty()) {
      return w;
    }
    if (counter == QLatin1String("fail_payload_md5")) {
      return QStringLiteral("%1 (declared %2)").arg(w, excerpt);
    }
    return QStringLiteral("%1: %2").arg(w, excerpt);
  }

  // The metrics fields that were logged: the typed columns that hold a value, the list fields
  // that are not empty, then the fields no column holds (their values as logged).
  static void addMetrics(const ti::MetricsEvent& e,
                         const std::vector<ti::MetricsOtherField>& others, CompileDetail& d) {
    const ti::CompilationMetrics& m = e.metrics;
    if (m.fail_type) {
      d.failType = qs(*m.fail_type);
    }
    if (m.fail_reason) {
      d.failReason = qs(*m.fail_reason);
    }
    for (const std::string& r : e.restart_reasons) {
      if (!d.restartReasons.contains(qs(r))) {
        d.restartReasons.append(qs(r));
      }
    }
    const bool main = m.event_key == ti::MetricsKind::compilation_metrics;
    auto phase = [&](const char* name, const std::optional<double>& v) {
      if (v) {
        d.phaseSeconds.append({QString::fromLatin1(name), *v});
      }
    };
    if (main) {
      phase("entire_frame_compile", m.entire_frame_compile_time_s);
      phase("dynamo before restart", m.dynamo_time_before_restart_s);
      phase("backend_compile", m.backend_compile_time_s);
      phase("inductor_compile", m.inductor_compile_time_s);
      phase("code_gen", m.code_gen_time_s);
    }
    const QString prefix = main ? QString() : qs(to_string(m.event_key)) + QLatin1Char('.');
    const auto add = [&](std::string_view field, const QString& value) {
      if (!value.isEmpty()) {
        d.metrics.append({prefix + qs(field), value});
      }
    };
    static constexpr std::string_view kNotMetrics[] = {
        "id",        "file_id",         "event_id",          "compile_id",
        "event_key", "restart_reasons", "non_compliant_ops", "compliant_custom_ops",
        "output_id"};
    ti::for_each_column(m, [&](std::string_view name, const auto& value) {
      if (std::find(std::begin(kNotMetrics), std::end(kNotMetrics), name) ==
          std::end(kNotMetrics)) {
        add(name, valueText(value));
      }
    });
    for (const auto& [field, items] :
         {std::pair{"restart_reasons", &e.restart_reasons},
          std::pair{"non_compliant_ops", &e.non_compliant_ops},
          std::pair{"compliant_custom_ops", &e.compliant_custom_ops}}) {
      QStringList list;
      for (const std::string& item : *items) {
        list.append(qs(item));
      }
      add(field, list.join(QStringLiteral(", ")));
    }
    for (const ti::MetricsOtherField& f : others) {
      if (f.value != "null" && f.value != "[]" && f.value != "{}") {
        add(f.field, qs(f.value));
      }
    }
  }

  const CompileInfo& compile(qint64 id) const {
    auto it = compiles_.find(id);
    if (it == compiles_.end()) {
      throw BackendError("The index has no compile " + std::to_string(id) + ".");
    }
    return it->second;
  }

  // Search needs a full-text table. An index built with --fts has one; for any other, one is
  // built once per session into a search file among the session's temporary files: the index
  // itself is never written (it may be someone else's, or read-only).
  void prepareSearch() {
    if (reader_->has_search_table()) {
      return;
    }
    if (!tempDir_) {
      tempDir_ = makeSessionTempDir();
      if (!tempDir_) {
        throw BackendError("Could not create a temporary folder for the search table.");
      }
    }
    const QString searchFile = tempDir_->filePath(QStringLiteral("search.sqlite"));
    must(ti::IndexReader::build_search_file(fsPath(indexPath_), fsPath(searchFile)));
    ti::IndexReader::OpenOptions options;
    options.search_file = fsPath(searchFile);
    reader_ = must(ti::IndexReader::open(fsPath(indexPath_), options));
  }

  FileCache& cache(int64_t fileId) {
    auto it = files_cache_.find(fileId);
    if (it != files_cache_.end()) {
      return it->second;
    }
    FileCache fc;
    fc.outputs = must(reader_->outputs(fileId));
    for (size_t i = 0; i < fc.outputs.size(); ++i) {
      if (fc.outputs[i].key_id) {
        fc.outputsByKey[*fc.outputs[i].key_id].push_back(i);
      }
    }
    fc.metrics = must(reader_->compilation_metrics(fileId));
    for (size_t i = 0; i < fc.metrics.size(); ++i) {
      if (fc.metrics[i].event.key_id) {
        fc.metricsByKey[*fc.metrics[i].event.key_id].push_back(i);
      }
    }
    for (ti::EventStack& s : must(reader_->stacks(fileId, ti::StackRole::dynamo_start))) {
      if (s.event.key_id && !s.frames.empty() && !fc.stackByKey.count(*s.event.key_id)) {
        fc.stackByKey.emplace(*s.event.key_id, std::move(s.frames));
      }
    }
    for (ti::RecompileExplained& r : must(reader_->recompiles_explained(fileId))) {
      fc.reasonsByKey[r.key_id].push_back(std::move(r));
    }
    for (ti::GraphBreak& b : must(reader_->graph_breaks(fileId))) {
      fc.breaksByKey[b.key_id].push_back(std::move(b));
    }
    fc.servedByCompile = tlparse::answers::served_by_compile(must(reader_->runtime_facts(fileId)));
    return files_cache_.emplace(fileId, std::move(fc)).first->second;
  }

  const ti::SpanExtent& fileSpanExtent(int64_t fileId) {
    FileCache& fc = cache(fileId);
    if (!fc.spanExtent) {
      fc.spanExtent = must(reader_->span_extent(fileId));
    }
    return *fc.spanExtent;
  }

  const ti::SpanExtent& compileSpanExtent(int64_t fileId, int64_t compileRow) {
    FileCache& fc = cache(fileId);
    auto it = fc.compileSpanExtent.find(compileRow);
    if (it == fc.compileSpanExtent.end()) {
      it = fc.compileSpanExtent.emplace(compileRow, must(reader_->span_extent(fileId, compileRow)))
               .first;
    }
    return it->second;
  }

  // The lines of `text` holding any of `terms` (ASCII case folded), at most 50: scanned as
  // bytes, and only the matching lines become QStrings (payloads run to megabytes).
  static QList<QPair<int, QString>> matchingLines(std::string_view text, const QStringList& terms) {
    constexpr int kMaxLinesPerArtifact = 50;
    QList<QPair<int, QString>> out;
    std::vector<std::string> needles;
    for (const QString& t : terms) {
      needles.push_back(t.toLower().toStdString());
    }
    if (needles.empty()) {
      return out;
    }
    auto fold = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    int lineNo = 0;
    size_t start = 0;
    while (start <= text.size() && out.size() < kMaxLinesPerArtifact) {
      size_t end = text.find('\n', start);
      if (end == std::string_view::npos) {
        end = text.size();
      }
      ++lineNo;
      const std::string_view line = text.substr(start, end - start);
      for (const std::string& n : needles) {
        const auto it = std::search(line.begin(), line.end(), n.begin(), n.end(),
                                    [&](char a, char b) { return fold(a) == b; });
        if (it != line.end()) {
          out.append({lineNo, qs(line.substr(0, 600)).left(300)});
          break;
        }
      }
      start = end + 1;
    }
    return out;
  }

  // One matching payload becomes one hit per matching line, for every event that logged it.
  // Expands the current match use by use until `want` hits are buffered (a payload logged by
  // hundreds of compiles would otherwise make hundreds of hits nobody scrolled to).
  void expandMatch(const QStringList& terms, int want) {
    const ti::PayloadMatch& m = searchMatches_[searchMatch_];
    if (searchUse_ == 0) {
      searchMatchLines_.clear();
      if (!m.uses.empty()) {
        if (const auto payload = must(reader_->payload(m.uses.front().event_id))) {
          searchMatchLines_ = matchingLines(*payload, terms);
          if (searchMatchLines_.isEmpty()) {
            // FTS matched a token the plain text search did not see: point at the payload.
            const std::string_view p = *payload;
            searchMatchLines_.append({1, qs(p.substr(0, std::min<size_t>(p.find('\n'), 300)))});
          }
        }
      }
      if (searchMatchLines_.isEmpty()) {
        searchMatchLines_.append({0, QString()});
      }
    }
    while (searchUse_ < m.uses.size() && searchLines_.size() < want) {
      const ti::PayloadUse& u = m.uses[searchUse_++];
      SearchHit base;
      base.compileLabel = qs(u.compile_display);
      base.compileId = u.key_id ? *u.key_id : -1;
      base.artifactId = u.output_id ? *u.output_id : -1;
      if (u.output_id) {
        if (const auto o = must(reader_->output(*u.output_id))) {
          base.artifactName = qs(o->artifact);
        }
      }
      if (base.artifactName.isEmpty()) {
        base.artifactName = QStringLiteral("event at log line %1").arg(u.line);
      }
      for (const auto& [line, text] : searchMatchLines_) {
        SearchHit h = base;
        h.line = line;
        h.snippet = text;
        searchLines_.append(h);
      }
    }
    if (searchUse_ >= m.uses.size()) {
      ++searchMatch_;
      searchUse_ = 0;
    }
  }

  std::unique_ptr<QTemporaryDir> tempDir_; // the session's files: a built index, a search file
  QString indexPath_;
  QString sourcePath_;
  std::unique_ptr<ti::IndexReader> reader_;
  std::vector<ti::File> files_;
  std::unordered_map<qint64, CompileInfo> compiles_;
  // (file, compile as PyTorch prints it) -> its first compile-directory entry.
  std::map<std::pair<int64_t, std::string>, qint64> keyByCompile_;
  // Compile row id -> its compile-directory entries (attempts), in order.
  std::unordered_map<int64_t, std::vector<qint64>> keysByCompile_;
  std::unordered_map<int64_t, FileCache> files_cache_;
  QString searchQuery_;
  QList<SearchHit> searchLines_;
  int64_t searchCursor_ = 0;                    // FTS rowid of the last payload fetched
  bool searchDone_ = false;                     // no payloads after the cursor
  std::vector<ti::PayloadMatch> searchMatches_; // the last payloads fetched
  size_t searchMatch_ = 0;                      // the one being expanded
  size_t searchUse_ = 0;                        // its next use to expand
  QList<QPair<int, QString>> searchMatchLines_; // its matching lines (1-based, text)
};

std::unique_ptr<IndexBackend> openWithTlparse(const OpenRequest& request,
                                              const ProgressFn& progress,
                                              const std::atomic<bool>& cancel) {
  const QFileInfo info(request.path);
  if (!info.exists()) {
    throw BackendError("No such file or folder: " + request.path.toStdString());
  }
  if (info.isFile() && isIndexFile(request.path)) {
    return std::make_unique<TlparseBackend>(nullptr, request.path, request.path,
                                            must(ti::IndexReader::open(fsPath(request.path))));
  }
  const std::vector<std::filesystem::path> logs =
      must(tlparse::ingest::find_logs(fsPath(request.path)));
  std::unique_ptr<QTemporaryDir> dir;
  QString indexPath = request.indexPath;
  if (indexPath.isEmpty()) {
    dir = makeSessionTempDir();
    if (!dir) {
      throw BackendError("Could not create a temporary folder for the index.");
    }
    indexPath = dir->filePath(QStringLiteral("index.sqlite"));
  }
  // The ingest runs here, on the session's worker thread: it reports progress as it reads and
  // checks `cancel` between lines, so nothing waits on a timer.
  const QString what = QStringLiteral("Indexing %1 log file(s)").arg(logs.size());
  tlparse::ingest::IngestOptions options;
  options.cancel = &cancel;
  options.on_progress = [&](uint64_t done, uint64_t total) {
    progress(qint64(done), qint64(total), what);
  };
  const tlparse::ingest::IngestResult result =
      tlparse::ingest::ingest_files(logs, fsPath(indexPath), options);
  if (result.cancelled || cancel.load()) {
    return nullptr; // the ingest removed its partial index; `dir` goes with this scope
  }
  if (!result.ok) {
    throw BackendError("Indexing failed: " + result.error);
  }
  progress(1, 1, QStringLiteral("Reading the index"));
  return std::make_unique<TlparseBackend>(std::move(dir), indexPath, request.path,
                                          must(ti::IndexReader::open(fsPath(indexPath))));
}

} // namespace

BackendFactory defaultBackendFactory() {
  return &openWithTlparse;
}

} // namespace gui
