// The production backend: logs are indexed by tlparse's ingest on a thread of its own (so a
// cancel returns at once, even in the middle of a file), then every question is answered by
// tlparse::index::IndexReader and copied into the GUI's value types.
#include "gui/code_highlighter.h"
#include "gui/index_backend.h"
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
#include <QTemporaryDir>
#include <chrono>
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
  QStringList recompileReasons;
  QStringList graphBreakReasons;
};

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
      rank.rank = file.rank             ? int(*file.rank)
                  : file.rank_from_name ? int(*file.rank_from_name)
                                        : -1;
      std::unordered_map<int64_t, QString> locations;
      for (const ti::DynamoStart& s : reader_->dynamo_starts(file.id)) {
        if (s.key_id && !s.stack.empty() && !locations.count(*s.key_id)) {
          locations[*s.key_id] = frameText(s.stack.back());
        }
      }
      std::unordered_map<int64_t, double> seconds;
      std::unordered_map<int64_t, double> starts;
      for (const ti::CompilationMetrics& m : metricsOf(file.id)) {
        if (!m.key_id || m.event_key != "compilation_metrics") {
          continue;
        }
        if (m.entire_frame_compile_time_s) {
          seconds[*m.key_id] += *m.entire_frame_compile_time_s;
        }
        if (m.start_time && !starts.count(*m.key_id)) {
          starts[*m.key_id] = *m.start_time * 1e6;
        }
      }
      QHash<QString, int64_t> keyByDisplay;
      for (const ti::CompileKey& k : reader_->compile_keys(file.id)) {
        keyByDisplay.insert(qs(k.display), k.id);
      }
      QSet<int64_t> cacheHits;
      for (const ti::CacheEvent& c : reader_->cache_events(file.id)) {
        if (c.result == "hit") {
          if (auto it = keyByDisplay.constFind(collapsedDisplay(c.cid));
              it != keyByDisplay.cend()) {
            cacheHits.insert(*it);
          }
        }
      }
      for (const ti::Output& o : outputsOf(file.id)) {
        if (o.kind != ti::OutputKind::payload_copy && o.kind != ti::OutputKind::link) {
          ++out.artifactCount;
        }
      }
      for (const ti::HealthCounter& h : reader_->health(file.id)) {
        if (h.severity != ti::Severity::info) {
          out.badDataCount += qint64(h.count);
        }
      }
      for (const ti::FrameSummary& f : reader_->frames(file.id)) {
        FrameSummary frame;
        frame.rank = rank.rank;
        frame.frameId = f.frame_id ? int(*f.frame_id) : -1;
        for (const ti::CompileSummary& c : f.compiles) {
          CompileInfo info;
          info.fileId = file.id;
          info.display = qs(c.display);
          CompileSummary& s = info.summary;
          s.id = c.key_id;
          s.rank = rank.rank;
          s.frameId = c.frame_id ? int(*c.frame_id) : -1;
          s.frameCompileId = c.frame_compile_id ? int(*c.frame_compile_id) : -1;
          // The attempt and compiled-autograd id are only in the display ("[1/0_1]",
          // "[!0/1/0]"): the key keeps restarts apart, so the label must too.
          static const QRegularExpression idPattern(
              QStringLiteral("^\\[(?:!(\\d+)/)?(?:-|\\d+)/(?:-|\\d+)(?:_(\\d+))?\\]$"));
          if (const auto m = idPattern.match(info.display); m.hasMatch()) {
            if (m.hasCaptured(1)) {
              s.compiledAutogradId = m.captured(1).toInt();
            }
            if (m.hasCaptured(2)) {
              s.attempt = m.captured(2).toInt();
            }
          }
          switch (c.status) {
          case ti::CompileStatus::ok:
            s.outcome =
                cacheHits.contains(c.key_id) ? CompileOutcome::CacheHit : CompileOutcome::Ok;
            break;
          case ti::CompileStatus::restart:
            s.outcome = CompileOutcome::GraphBreak;
            break;
          case ti::CompileStatus::empty:
            s.outcome = CompileOutcome::EmptyGraph;
            break;
          case ti::CompileStatus::error:
            s.outcome = CompileOutcome::Failed;
            break;
          case ti::CompileStatus::missing:
            s.outcome = CompileOutcome::Unknown;
            break;
          }
          if (auto it = seconds.find(c.key_id); it != seconds.end()) {
            s.durationSeconds = it->second;
          }
          if (auto it = starts.find(c.key_id); it != starts.end()) {
            s.startUs = it->second;
          }
          if (auto it = locations.find(c.key_id); it != locations.end()) {
            info.location = it->second;
          }
          for (const std::string& r : c.recompile_reasons) {
            info.recompileReasons.append(qs(r));
          }
          for (const std::string& r : c.graph_break_reasons) {
            info.graphBreakReasons.append(qs(r));
          }
          if (frame.location.isEmpty()) {
            frame.location = info.location;
          }
          frame.compiles.append(s);
          compiles_[c.key_id] = info;
          ++out.compileCount;
        }
        rank.frames.append(frame);
      }
      out.ranks.append(rank);
    }
    return out;
  }

  CompileDetail compileDetail(qint64 compileId) override {
    const CompileInfo& info = compile(compileId);
    CompileDetail d;
    d.summary = info.summary;
    d.location = info.location;
    d.recompileReasons = info.recompileReasons;
    d.restartReasons = info.graphBreakReasons;
    for (const ti::CompilationMetrics& m : metricsOf(info.fileId)) {
      if (m.key_id != compileId) {
        continue;
      }
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
    // The chromium spans of this compile, summed per name: the finer-grained breakdown.
    QMap<QString, double> spanSeconds;
    QStringList spanOrder;
    for (const ti::ChromiumSpan& s : spansOf(info.fileId)) {
      if (collapsedDisplay(s.cid) != info.display) {
        continue;
      }
      const QString name = qs(s.name);
      if (!spanSeconds.contains(name)) {
        spanOrder.append(name);
      }
      spanSeconds[name] += s.duration_us / 1e6;
    }
    for (const QString& name : spanOrder) {
      d.phaseSeconds.append({name + QStringLiteral(" (trace)"), spanSeconds.value(name)});
    }
    for (const ti::DynamoStart& s : reader_->dynamo_starts(info.fileId)) {
      if (s.key_id == compileId) {
        for (const ti::Frame& f : s.stack) {
          d.userStack.append(frameText(f));
        }
        break;
      }
    }
    for (const ti::Output& o : outputsOf(info.fileId)) {
      if (o.key_id != compileId || o.kind == ti::OutputKind::payload_copy) {
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
      const int rank = file.rank             ? int(*file.rank)
                       : file.rank_from_name ? int(*file.rank_from_name)
                                             : -1;
      for (const ti::ChromiumSpan& s : spansOf(file.id)) {
        TimelineSpan t;
        t.rank = rank;
        t.name = qs(s.name);
        t.startUs = s.start_us;
        t.durationUs = s.duration_us;
        t.depth = s.depth;
        t.compileId = byDisplay.value(QString::number(file.id) + collapsedDisplay(s.cid), -1);
        out.append(t);
      }
    }
    return out;
  }

  QList<SearchHit> search(const QString& query, int offset, int limit) override {
    if (!reader_->has_search_index()) {
      // Built on first use: most sessions never search, and building costs a pass over
      // every payload.
      reader_.reset();
      std::string error;
      const bool built = ti::IndexReader::build_search_index(fsPath(indexPath_), &error);
      reopen();
      if (!built) {
        throw BackendError("Could not build the search index: " + error);
      }
    }
    if (query != searchQuery_) {
      searchQuery_ = query;
      searchLines_.clear();
      searchRows_ = 0;
      searchDone_ = false;
    }
    const QStringList terms = queryTerms(query);
    while (!searchDone_ && searchLines_.size() < offset + limit) {
      const int64_t want = std::max<int64_t>(200, searchRows_ * 2);
      const std::vector<ti::SearchHit> rows = reader_->search(query.toStdString(), want);
      for (size_t i = size_t(searchRows_); i < rows.size(); ++i) {
        expandHit(rows[i], terms);
      }
      searchDone_ = int64_t(rows.size()) < want;
      searchRows_ = int64_t(rows.size());
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
      for (const ti::Output& o : outputsOf(file.id)) {
        if (!o.key_id && o.kind != ti::OutputKind::payload_copy && o.in_directory) {
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

private:
  const CompileInfo& compile(qint64 id) const {
    auto it = compiles_.find(id);
    if (it == compiles_.end()) {
      throw BackendError("The index has no compile " + std::to_string(id) + ".");
    }
    return it->second;
  }

  void reopen() {
    std::string error;
    reader_ = ti::IndexReader::open(fsPath(indexPath_), &error);
    if (!reader_) {
      throw BackendError("Could not reopen the index: " + error);
    }
  }

  const std::vector<ti::Output>& outputsOf(int64_t fileId) {
    auto it = outputs_.find(fileId);
    if (it == outputs_.end()) {
      it = outputs_.emplace(fileId, reader_->outputs(fileId)).first;
    }
    return it->second;
  }
  const std::vector<ti::CompilationMetrics>& metricsOf(int64_t fileId) {
    auto it = metrics_.find(fileId);
    if (it == metrics_.end()) {
      it = metrics_.emplace(fileId, reader_->compilation_metrics(fileId)).first;
    }
    return it->second;
  }
  const std::vector<ti::ChromiumSpan>& spansOf(int64_t fileId) {
    auto it = spans_.find(fileId);
    if (it == spans_.end()) {
      it = spans_.emplace(fileId, reader_->chromium_spans(fileId)).first;
    }
    return it->second;
  }

  // One FTS row (an event) becomes one hit per matching line of its payload.
  void expandHit(const ti::SearchHit& row, const QStringList& terms) {
    SearchHit base;
    base.compileLabel = qs(row.compile_display);
    base.artifactId = row.output_id ? *row.output_id : -1;
    if (const auto ev = reader_->event(row.event_id); ev && ev->key_id) {
      base.compileId = *ev->key_id;
    }
    if (row.output_id) {
      if (const auto o = reader_->output(*row.output_id)) {
        base.artifactName = baseName(*o);
      }
    }
    if (base.artifactName.isEmpty()) {
      base.artifactName = QStringLiteral("event at log line %1").arg(row.line);
    }
    constexpr int kMaxLinesPerArtifact = 50;
    int found = 0;
    if (const auto payload = reader_->payload(row.event_id); payload && !terms.isEmpty()) {
      const QStringList lines = qs(*payload).split(QLatin1Char('\n'));
      for (int i = 0; i < lines.size() && found < kMaxLinesPerArtifact; ++i) {
        for (const QString& t : terms) {
          if (lines[i].contains(t, Qt::CaseInsensitive)) {
            SearchHit h = base;
            h.line = i + 1;
            h.snippet = lines[i].left(300);
            searchLines_.append(h);
            ++found;
            break;
          }
        }
      }
    }
    if (found == 0) {
      SearchHit h = base;
      h.snippet = qs(row.snippet);
      searchLines_.append(h);
    }
  }

  std::shared_ptr<QTemporaryDir> tempDir_; // holds a built index; null for an opened one
  QString indexPath_;
  QString sourcePath_;
  std::unique_ptr<ti::IndexReader> reader_;
  std::vector<ti::FileInfo> files_;
  std::unordered_map<qint64, CompileInfo> compiles_;
  std::unordered_map<int64_t, std::vector<ti::Output>> outputs_;
  std::unordered_map<int64_t, std::vector<ti::CompilationMetrics>> metrics_;
  std::unordered_map<int64_t, std::vector<ti::ChromiumSpan>> spans_;
  QString searchQuery_;
  QList<SearchHit> searchLines_;
  int64_t searchRows_ = 0;
  bool searchDone_ = false;
};

// The state an ingest thread shares with the worker that waits for it. The thread keeps it
// (and the temporary folder it writes into) alive after a cancel, until the ingest returns.
struct IngestJob {
  std::shared_ptr<QTemporaryDir> dir;
  std::atomic<uint64_t> done{0};
  std::atomic<bool> finished{false};
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
  std::thread([job, logs, indexPath] {
    tlparse::ingest::IngestOptions options;
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
  }).detach();
  const QString what = QStringLiteral("Indexing %1 log file(s) (%2 MB)")
                           .arg(logs.size())
                           .arg(double(total) / 1e6, 0, 'f', 1);
  while (!job->finished.load()) {
    if (cancel.load()) {
      return nullptr; // the ingest thread finishes on its own and frees what it holds
    }
    progress(qint64(job->done.load()), qint64(total), what);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
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
