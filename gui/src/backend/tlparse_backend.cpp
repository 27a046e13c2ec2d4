// The production backend: logs are indexed by tlparse's ingest on a thread of its own (Cancel
// raises the ingest's cancel flag, which stops it between lines and removes the partial index),
// then every question is answered by tlparse::index::IndexReader (and GuiQueries for paged
// search) and copied into the GUI's value types.
//
// Speed on large indexes: the first screen is built from whole-file reads that each cost one
// indexed query (compile keys, metrics, outputs, stacks); IndexReader::frames() is not used
// because it runs one unindexed scan of `events` per compile (~0.1 s each on a 1 GB log).
// Per-file results are cached, and per-compile lookups go through maps built once.
#include "gui/code_highlighter.h"
#include "gui/index_backend.h"
#include "tlparse/index/gui_queries.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/ingest/ingest.h"
#include "tlparse/model/compile_id.h"

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <algorithm>
#include <chrono>
#include <map>
#include <thread>
#include <unordered_map>

namespace gui {

namespace {

namespace ti = tlparse::index;
namespace tm = tlparse::model;

QString qs(const std::string& s) {
  return QString::fromUtf8(s.data(), qsizetype(s.size()));
}
std::filesystem::path fsPath(const QString& p) {
  return std::filesystem::path(p.toStdString());
}

bool isIndexFile(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    return false;
  }
  return f.read(16) == QByteArray("SQLite format 3\0", 16);
}

QString frameText(const ti::Frame& f) {
  QString file = f.filename              ? qs(*f.filename)
                 : f.uninterned_filename ? qs(*f.uninterned_filename)
                                         : QStringLiteral("?");
  return QStringLiteral("%1:%2 in %3").arg(file).arg(f.line).arg(qs(f.name));
}

QString collapsedDisplay(const std::optional<tm::CompileId>& cid) {
  return cid ? qs(tm::display_name(tm::collapsed_key(*cid))) : QString();
}

// "dynamo_output_graph_3.txt" -> "dynamo_output_graph": what pairs artifacts across compiles.
QString baseName(const ti::Output& o) {
  if (o.event_key == "inductor_output_code") {
    return QStringLiteral("inductor_output_code"); // its file name carries a code hash
  }
  QString n = qs(o.name);
  static const QRegularExpression ext(QStringLiteral("\\.(txt|html|json)$"));
  n.remove(ext);
  static const QRegularExpression number(QStringLiteral("_\\d+$"));
  n.remove(number);
  return n;
}

QString jsonValueText(const QJsonValue& v) {
  switch (v.type()) {
  case QJsonValue::Bool:
    return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
  case QJsonValue::Double:
    return QString::number(v.toDouble(), 'g', 10);
  case QJsonValue::String:
    return v.toString();
  case QJsonValue::Array:
    return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
  case QJsonValue::Object:
    return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
  default:
    return {};
  }
}

QString prettyJson(const std::string& text) {
  QJsonParseError err{};
  const QJsonDocument doc =
      QJsonDocument::fromJson(QByteArray(text.data(), qsizetype(text.size())), &err);
  if (err.error != QJsonParseError::NoError || doc.isNull()) {
    return qs(text);
  }
  return QString::fromUtf8(doc.toJson(QJsonDocument::Indented));
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
  QString display;
};

// What one file's compiles need, read once: metrics, stacks, outputs and spans by compile.
struct FileCache {
  std::vector<ti::Output> outputs;
  std::unordered_map<int64_t, std::vector<size_t>> outputsByKey; // indexes into `outputs`
  std::vector<ti::CompilationMetrics> metrics;
  std::unordered_map<int64_t, std::vector<size_t>> metricsByKey; // indexes into `metrics`
  std::unordered_map<int64_t, ti::Stack> stackByKey;             // first dynamo_start stack
  bool spansLoaded = false;
  std::vector<ti::ChromiumSpan> spans;
  QHash<QString, QList<int>> spansByDisplay; // collapsed display -> indexes into `spans`
};

// tlparse's status of a compile (§3.2) as the tree's outcome; a cache hit is an ok compile
// whose artifacts came from the cache.
CompileOutcome outcomeOf(const std::vector<const ti::CompilationMetrics*>& ms, bool cacheHit) {
  switch (ti::compile_status(ms)) {
  case ti::CompileStatus::ok:
    return cacheHit ? CompileOutcome::CacheHit : CompileOutcome::Ok;
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

class TlparseBackend final : public IndexBackend {
public:
  TlparseBackend(std::shared_ptr<QTemporaryDir> tempDir, QString indexPath, QString sourcePath,
                 std::unique_ptr<ti::IndexReader> reader)
      : tempDir_(std::move(tempDir)), indexPath_(std::move(indexPath)),
        sourcePath_(std::move(sourcePath)), reader_(std::move(reader)) {}

  IndexOverview overview() override {
    IndexOverview out;
    out.sourcePath = sourcePath_;
    out.indexPath = indexPath_;
    compiles_.clear();
    files_ = reader_->files();
    for (const ti::FileInfo& file : files_) {
      RankSummary rank;
      rank.rank = rankOf(file);
      const FileCache& fc = cache(file.id);
      QSet<int64_t> cacheHits;
      {
        QHash<QString, int64_t> keyByDisplay;
        for (const ti::CompileKey& k : reader_->compile_keys(file.id)) {
          keyByDisplay.insert(qs(k.display), k.id);
        }
        for (const ti::CacheEvent& c : reader_->cache_events(file.id)) {
          if (c.result == "hit") {
            if (auto it = keyByDisplay.constFind(collapsedDisplay(c.cid));
                it != keyByDisplay.cend()) {
              cacheHits.insert(*it);
            }
          }
        }
      }
      for (const ti::Output& o : fc.outputs) {
        if (o.kind != ti::OutputKind::payload_copy && o.kind != ti::OutputKind::link) {
          ++out.artifactCount;
        }
      }
      for (const ti::HealthCounter& h : reader_->health(file.id)) {
        if (h.severity != ti::Severity::info) {
          out.badDataCount += qint64(h.count);
        }
      }
      // Frames in first-seen order of their compiles, like IndexReader::frames().
      std::map<std::optional<uint32_t>, int> framePos;
      for (const ti::CompileKey& key : reader_->compile_keys(file.id)) {
        CompileInfo info;
        info.fileId = file.id;
        info.display = qs(key.display);
        CompileSummary& s = info.summary;
        s.id = key.id;
        s.rank = rank.rank;
        std::optional<uint32_t> frameId;
        if (key.cid) {
          frameId = key.cid->frame_id;
          s.frameId = key.cid->frame_id ? int(*key.cid->frame_id) : -1;
          s.frameCompileId = key.cid->frame_compile_id ? int(*key.cid->frame_compile_id) : -1;
          s.attempt = key.cid->attempt ? int(*key.cid->attempt) : 0;
          s.compiledAutogradId =
              key.cid->compiled_autograd_id ? int(*key.cid->compiled_autograd_id) : -1;
        }
        std::vector<const ti::CompilationMetrics*> ms;
        if (auto it = fc.metricsByKey.find(key.id); it != fc.metricsByKey.end()) {
          for (size_t i : it->second) {
            const ti::CompilationMetrics& m = fc.metrics[i];
            if (m.event_key != "compilation_metrics") {
              continue;
            }
            ms.push_back(&m);
            if (m.entire_frame_compile_time_s) {
              s.durationSeconds = std::max(0.0, s.durationSeconds) + *m.entire_frame_compile_time_s;
            }
            if (m.start_time && s.startUs < 0) {
              s.startUs = *m.start_time * 1e6;
            }
          }
        }
        s.outcome = outcomeOf(ms, cacheHits.contains(key.id));
        if (auto it = fc.stackByKey.find(key.id);
            it != fc.stackByKey.end() && !it->second.empty()) {
          info.location = frameText(it->second.back());
        }
        auto [pos, inserted] = framePos.emplace(frameId, int(rank.frames.size()));
        if (inserted) {
          FrameSummary frame;
          frame.rank = rank.rank;
          frame.frameId = frameId ? int(*frameId) : -1;
          rank.frames.append(frame);
        }
        FrameSummary& frame = rank.frames[pos->second];
        if (frame.location.isEmpty()) {
          frame.location = info.location;
        }
        frame.compiles.append(s);
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
    const std::vector<size_t> noOutputs;
    const auto outIt = fc.outputsByKey.find(compileId);
    const std::vector<size_t>& outputs = outIt == fc.outputsByKey.end() ? noOutputs : outIt->second;
    // Recompile and graph-break reasons are artifacts of the compile: read them when shown.
    for (size_t i : outputs) {
      const ti::Output& o = fc.outputs[i];
      const QString base = baseName(o);
      if (base == QLatin1String("recompile_reasons")) {
        if (const auto p = reader_->payload(o.event_id)) {
          const QJsonArray arr =
              QJsonDocument::fromJson(QByteArray(p->data(), qsizetype(p->size()))).array();
          for (const QJsonValue& v : arr) {
            if (v.isString()) {
              d.recompileReasons.append(v.toString());
            }
          }
        }
      } else if (base == QLatin1String("dynamo_graph_break_reason")) {
        if (const auto p = reader_->payload(o.event_id)) {
          d.restartReasons.append(qs(*p));
        }
      }
    }
    if (auto it = fc.metricsByKey.find(compileId); it != fc.metricsByKey.end()) {
      for (size_t i : it->second) {
        addMetrics(fc.metrics[i], d);
      }
    }
    // The chromium spans of this compile, summed per name: the finer-grained breakdown. Reading
    // a file's spans takes ~1 s on a 1 GB log, so the first screen does not wait for it: the
    // timeline reads them next, and the window then asks for this compile again.
    if (fc.spansLoaded) {
      QMap<QString, double> spanSeconds;
      QStringList spanOrder;
      for (int i : fc.spansByDisplay.value(info.display)) {
        const ti::ChromiumSpan& s = fc.spans[size_t(i)];
        const QString name = qs(s.name);
        if (!spanSeconds.contains(name)) {
          spanOrder.append(name);
        }
        spanSeconds[name] += s.duration_us / 1e6;
      }
      for (const QString& name : spanOrder) {
        d.phaseSeconds.append({name + QStringLiteral(" (trace)"), spanSeconds.value(name)});
      }
    } else {
      d.tracePending = true;
    }
    if (auto it = fc.stackByKey.find(compileId); it != fc.stackByKey.end()) {
      for (const ti::Frame& f : it->second) {
        d.userStack.append(frameText(f));
      }
    }
    for (size_t i : outputs) {
      const ti::Output& o = fc.outputs[i];
      if (o.kind == ti::OutputKind::payload_copy) {
        continue;
      }
      ArtifactRef a;
      a.id = o.id;
      a.name = baseName(o);
      a.kind = qs(o.event_key);
      a.encoding = qs(std::string(ti::to_string(o.kind)));
      d.artifacts.append(a);
    }
    return d;
  }

  ArtifactText artifactText(qint64 artifactId) override {
    const std::optional<ti::Output> o = reader_->output(artifactId);
    if (!o) {
      throw BackendError("The index has no artifact " + std::to_string(artifactId) + ".");
    }
    ArtifactText a;
    a.id = o->id;
    a.name = baseName(*o);
    if (o->kind == ti::OutputKind::link) {
      a.text = qs(o->path);
      a.language = QStringLiteral("text");
      return a;
    }
    const std::optional<std::string> payload = reader_->payload(o->event_id);
    if (!payload) {
      a.text = prettyJson(reader_->output_metadata_json(o->id));
      a.language = QStringLiteral("json");
      return a;
    }
    a.text = o->kind == ti::OutputKind::json_pretty ? prettyJson(*payload) : qs(*payload);
    a.language = o->event_key == "inductor_output_code" ? QStringLiteral("python")
                                                        : languageForArtifact(a.name, a.text);
    return a;
  }

  QList<TimelineSpan> timeline() override {
    QList<TimelineSpan> out;
    QHash<QString, qint64> byDisplay;
    for (const auto& [id, info] : compiles_) {
      byDisplay.insert(QString::number(info.fileId) + info.display, id);
    }
    for (const ti::FileInfo& file : files_) {
      const int rank = rankOf(file);
      const FileCache& fc = spans(file.id);
      out.reserve(out.size() + qsizetype(fc.spans.size()));
      for (auto it = fc.spansByDisplay.cbegin(); it != fc.spansByDisplay.cend(); ++it) {
        const qint64 compileId = byDisplay.value(QString::number(file.id) + it.key(), -1);
        for (int i : it.value()) {
          const ti::ChromiumSpan& s = fc.spans[size_t(i)];
          out.append({rank, qs(s.name), s.start_us, s.duration_us, s.depth, compileId});
        }
      }
    }
    std::stable_sort(out.begin(), out.end(), [](const TimelineSpan& a, const TimelineSpan& b) {
      return a.rank != b.rank ? a.rank < b.rank : a.startUs < b.startUs;
    });
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
      std::string error;
      searchMatches_ = queries_->search(query.toStdString(), searchCursor_, kPayloadsPerStep,
                                        kMaxUsesPerPayload, &error, /*snippets=*/false);
      searchMatch_ = 0;
      searchUse_ = 0;
      if (!error.empty()) {
        searchDone_ = true;
        searchMatches_.clear();
        throw BackendError("Search failed: " + error);
      }
      if (!searchMatches_.empty()) {
        searchCursor_ = searchMatches_.back().fts_rowid;
      }
      searchDone_ = int64_t(searchMatches_.size()) < kPayloadsPerStep;
    }
    return searchLines_.mid(offset, limit);
  }

  QList<HealthRow> health() override {
    QMap<QString, HealthRow> rows;
    QStringList order;
    QStringList unknown;
    qint64 orphans = 0;
    for (const ti::FileInfo& file : files_) {
      for (const ti::HealthCounter& h : reader_->health(file.id)) {
        const QString name = qs(h.name);
        if (!rows.contains(name)) {
          order.append(name);
          rows[name] = {name, qs(std::string(ti::to_string(h.severity))), 0, qs(h.description)};
        }
        rows[name].count += qint64(h.count);
      }
      for (const std::string& k : reader_->unknown_keys(file.id)) {
        if (!unknown.contains(qs(k))) {
          unknown.append(qs(k));
        }
      }
      for (const ti::Output& o : cache(file.id).outputs) {
        if (isOrphan(o)) {
          ++orphans;
        }
      }
    }
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
    const std::unique_ptr<ti::GuiQueries>& queries = guiQueries();
    for (const ti::FileInfo& file : files_) {
      const QString name = qs(file.name);
      QHash<QString, QString> severities; // by counter, as the index recorded them
      for (const ti::HealthCounter& h : reader_->health(file.id)) {
        severities.insert(qs(h.name), qs(std::string(ti::to_string(h.severity))));
      }
      // The ingest keeps the first 10,000 bad lines of a file (bad_lines table).
      for (const ti::BadLine& b : reader_->bad_lines(file.id, limit)) {
        HealthIssue i;
        i.kind = qs(b.counter);
        i.severity = severities.value(i.kind, QStringLiteral("error"));
        i.file = name;
        i.line = b.line;
        i.detail = badLineDetail(i.kind, qs(b.excerpt));
        out.append(i);
      }
      for (const ti::UnknownKeyRow& u : queries->unknown_keys(file.id)) {
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
  static int rankOf(const ti::FileInfo& file) {
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

  void addMetrics(const ti::CompilationMetrics& m, CompileDetail& d) {
    if (m.fail_type) {
      d.failType = qs(*m.fail_type);
    }
    if (m.fail_reason) {
      d.failReason = qs(*m.fail_reason);
    }
    if (m.restart_reasons) {
      for (const std::string& r : *m.restart_reasons) {
        if (!d.restartReasons.contains(qs(r))) {
          d.restartReasons.append(qs(r));
        }
      }
    }
    auto phase = [&](const char* name, const std::optional<double>& v) {
      if (v) {
        d.phaseSeconds.append({QString::fromLatin1(name), *v});
      }
    };
    if (m.event_key == "compilation_metrics") {
      phase("entire_frame_compile", m.entire_frame_compile_time_s);
      phase("dynamo before restart", m.dynamo_time_before_restart_s);
      phase("backend_compile", m.backend_compile_time_s);
      phase("inductor_compile", m.inductor_compile_time_s);
      phase("code_gen", m.code_gen_time_s);
    }
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(m.metadata_json));
    const QJsonObject obj = doc.object();
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      const QString v = jsonValueText(it.value());
      if (!v.isEmpty() && v != QLatin1String("[]") && v != QLatin1String("{}")) {
        d.metrics.append({m.event_key == "compilation_metrics"
                              ? it.key()
                              : QStringLiteral("%1.%2").arg(qs(m.event_key), it.key()),
                          v});
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

  const std::unique_ptr<ti::GuiQueries>& guiQueries() {
    if (!queries_) {
      std::string error;
      queries_ = ti::GuiQueries::open(fsPath(indexPath_), &error);
      if (!queries_) {
        throw BackendError("Could not open the index: " + error);
      }
    }
    return queries_;
  }

  // The search table and its lookup indexes are written into the index once (the first search
  // of an index pays for it; later sessions find them there).
  void prepareSearch() {
    if (guiQueries()->search_ready()) {
      return;
    }
    reader_.reset();
    queries_.reset();
    std::string error;
    const bool built = ti::GuiQueries::prepare_search(fsPath(indexPath_), &error);
    reader_ = ti::IndexReader::open(fsPath(indexPath_), &error);
    if (!reader_) {
      throw BackendError("Could not reopen the index: " + error);
    }
    if (!built) {
      throw BackendError("Could not build the search index (is the index file writable?): " +
                         error);
    }
    guiQueries();
  }

  FileCache& cache(int64_t fileId) {
    auto it = files_cache_.find(fileId);
    if (it != files_cache_.end()) {
      return it->second;
    }
    FileCache& fc = files_cache_[fileId];
    fc.outputs = reader_->outputs(fileId);
    for (size_t i = 0; i < fc.outputs.size(); ++i) {
      if (fc.outputs[i].key_id) {
        fc.outputsByKey[*fc.outputs[i].key_id].push_back(i);
      }
    }
    fc.metrics = reader_->compilation_metrics(fileId);
    for (size_t i = 0; i < fc.metrics.size(); ++i) {
      if (fc.metrics[i].key_id) {
        fc.metricsByKey[*fc.metrics[i].key_id].push_back(i);
      }
    }
    for (ti::DynamoStart& s : reader_->dynamo_starts(fileId)) {
      if (s.key_id && !s.stack.empty() && !fc.stackByKey.count(*s.key_id)) {
        fc.stackByKey.emplace(*s.key_id, std::move(s.stack));
      }
    }
    return fc;
  }

  const FileCache& spans(int64_t fileId) {
    FileCache& fc = cache(fileId);
    if (!fc.spansLoaded) {
      fc.spans = reader_->chromium_spans(fileId);
      for (size_t i = 0; i < fc.spans.size(); ++i) {
        fc.spansByDisplay[collapsedDisplay(fc.spans[i].cid)].append(int(i));
      }
      fc.spansLoaded = true;
    }
    return fc;
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
          out.append({lineNo, qs(std::string(line.substr(0, 600))).left(300)});
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
        if (const auto payload = reader_->payload(m.uses.front().event_id)) {
          searchMatchLines_ = matchingLines(*payload, terms);
          if (searchMatchLines_.isEmpty()) {
            // FTS matched a token the plain text search did not see: point at the payload.
            const std::string_view p = *payload;
            searchMatchLines_.append(
                {1, qs(std::string(p.substr(0, std::min<size_t>(p.find('\n'), 300))))});
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
        if (const auto o = reader_->output(*u.output_id)) {
          base.artifactName = baseName(*o);
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

  std::shared_ptr<QTemporaryDir> tempDir_; // holds a built index; null for an opened one
  QString indexPath_;
  QString sourcePath_;
  std::unique_ptr<ti::IndexReader> reader_;
  std::unique_ptr<ti::GuiQueries> queries_;
  std::vector<ti::FileInfo> files_;
  std::unordered_map<qint64, CompileInfo> compiles_;
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

// The state an ingest thread shares with the worker that waits for it.
struct IngestJob {
  std::shared_ptr<QTemporaryDir> dir;
  std::atomic<uint64_t> done{0};
  std::atomic<bool> finished{false};
  std::atomic<bool> cancel{false}; // the ingest polls it between lines
  tlparse::ingest::IngestResult result;
};

std::vector<std::filesystem::path> logsFor(const QString& path) {
  std::vector<std::filesystem::path> logs;
  const QFileInfo info(path);
  if (info.isDir()) {
    QDirIterator it(path, {QStringLiteral("*.log")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
      logs.push_back(fsPath(it.next()));
    }
    std::sort(logs.begin(), logs.end());
  } else {
    logs.push_back(fsPath(path));
  }
  return logs;
}

std::unique_ptr<IndexBackend> openWithTlparse(const OpenRequest& request,
                                              const ProgressFn& progress,
                                              const std::atomic<bool>& cancel) {
  const QFileInfo info(request.path);
  if (!info.exists()) {
    throw BackendError("No such file or folder: " + request.path.toStdString());
  }
  std::string error;
  if (info.isFile() && isIndexFile(request.path)) {
    auto reader = ti::IndexReader::open(fsPath(request.path), &error);
    if (!reader) {
      throw BackendError("Not a readable index: " + error);
    }
    return std::make_unique<TlparseBackend>(nullptr, request.path, request.path, std::move(reader));
  }
  const std::vector<std::filesystem::path> logs = logsFor(request.path);
  if (logs.empty()) {
    throw BackendError("No trace logs (*.log) under " + request.path.toStdString());
  }
  uint64_t total = 0;
  for (const auto& l : logs) {
    std::error_code ec;
    total += std::filesystem::file_size(l, ec);
  }
  auto job = std::make_shared<IngestJob>();
  QString indexPath = request.indexPath;
  if (indexPath.isEmpty()) {
    job->dir = std::make_shared<QTemporaryDir>();
    if (!job->dir->isValid()) {
      throw BackendError("Could not create a temporary folder for the index.");
    }
    indexPath = job->dir->filePath(QStringLiteral("index.sqlite"));
  }
  std::thread ingest([job, logs, indexPath] {
    tlparse::ingest::IngestOptions options;
    options.cancel = &job->cancel;
    // Progress comes per file; files are ingested in order, so a drop means the next file.
    auto base = std::make_shared<uint64_t>(0);
    auto last = std::make_shared<std::pair<uint64_t, uint64_t>>(0, 0);
    options.on_progress = [job, base, last](uint64_t done, uint64_t fileTotal) {
      if (done < last->first) {
        *base += last->second;
      }
      *last = {done, fileTotal};
      job->done.store(*base + done);
    };
    try {
      job->result = tlparse::ingest::ingest_files(logs, fsPath(indexPath), options);
    } catch (const std::exception& e) {
      job->result.ok = false;
      job->result.error = e.what();
    }
    job->finished.store(true);
  });
  const QString what = QStringLiteral("Indexing %1 log file(s) (%2 MB)")
                           .arg(logs.size())
                           .arg(double(total) / 1e6, 0, 'f', 1);
  while (!job->finished.load()) {
    if (cancel.load()) {
      // The ingest stops at its next line and deletes the partial index; waiting for it keeps
      // a cancelled ingest from competing with whatever is opened next.
      job->cancel.store(true);
      ingest.join();
      return nullptr;
    }
    progress(qint64(job->done.load()), qint64(total), what);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  ingest.join();
  if (job->result.cancelled || cancel.load()) {
    return nullptr;
  }
  if (!job->result.ok) {
    throw BackendError("Indexing failed: " + job->result.error);
  }
  progress(qint64(total), qint64(total), QStringLiteral("Reading the index"));
  auto reader = ti::IndexReader::open(fsPath(indexPath), &error);
  if (!reader) {
    throw BackendError("Could not read the index just built: " + error);
  }
  return std::make_unique<TlparseBackend>(job->dir, indexPath, request.path, std::move(reader));
}

} // namespace

BackendFactory defaultBackendFactory() {
  return &openWithTlparse;
}

} // namespace gui
