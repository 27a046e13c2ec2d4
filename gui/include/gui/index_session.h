// The UI thread's handle on an index: every request runs on one worker thread (so the window
// stays responsive while a 1 GB log is indexed) and every answer comes back as a typed signal.
// Answers carry what was asked for, so a page ignores answers it no longer wants.
#pragma once

#include "gui/index_backend.h"
#include "gui/index_types.h"

#include <QObject>
#include <QThread>
#include <atomic>
#include <memory>

namespace gui {

class IndexWorker;

// The answers of an index, declared once: the worker emits them on its thread and the session
// re-emits them on the UI thread.
class IndexAnswers : public QObject {
  Q_OBJECT
public:
  using QObject::QObject;

Q_SIGNALS:
  void progress(qint64 done, qint64 total, const QString& what);
  void opened(const gui::IndexOverview& overview);
  void chartReady(const gui::ChartSlice& slice);
  void healthReady(const QList<gui::HealthRow>& rows);
  // The bad lines and items behind the health counters (at most kMaxHealthIssues).
  void healthIssuesReady(const QList<gui::HealthIssue>& issues);
  void openFailed(const QString& message);
  void openCancelled();
  void compileReady(const gui::CompileDetail& detail);
  // `line` is the line the request asked to show (0: none).
  void artifactReady(const gui::ArtifactText& artifact, int line);
  // An artifact's text read for a view that does not show it (the graph tab's previous step).
  void artifactTextReady(const gui::ArtifactText& artifact);
  void searchReady(const QString& query, int offset, const QList<gui::SearchHit>& hits);
  void diffReady(const gui::CompileDiff& diff);
  void recompilesReady(int rank, int frameId, const QList<gui::RecompileRow>& rows);
  void graphBreaksReady(const QList<gui::GraphBreakRow>& rows);
  // A request other than open failed; `what` names it for the status bar.
  void requestFailed(const QString& what, const QString& message);
};

class IndexSession : public IndexAnswers {
  Q_OBJECT
public:
  // Bad lines and items listed by the data-health panel (the index keeps 10,000 per file).
  static constexpr int kMaxHealthIssues = 20000;

  explicit IndexSession(BackendFactory factory = defaultBackendFactory(),
                        QObject* parent = nullptr);
  ~IndexSession() override;

  // Opens a log file, a folder of logs or an index; drops the index that was open.
  void open(const QString& path);
  // Asks a running open to stop; `openCancelled` follows.
  void cancel();
  bool isOpening() const { return opening_; }
  bool isOpen() const { return open_; }
  const IndexOverview& overview() const { return overview_; }

  // After `opened`, the graph breaks and the health panel are loaded (graphBreaksReady,
  // healthReady, healthIssuesReady) right away; a window that
  // wants its first screen to come first turns this off and calls requestSecondary() itself.
  void setAutoSecondary(bool on) { autoSecondary_ = on; }
  void requestSecondary();
  void requestCompile(qint64 compileId);
  void requestArtifact(qint64 artifactId, int line = 0);
  void requestArtifactText(qint64 artifactId);
  void requestSearch(const QString& query, int offset, int limit);
  void requestDiff(qint64 leftCompileId, qint64 rightCompileId);
  void requestRecompiles(int rank, int frameId);
  // A window of the compile-time chart. Requests come as fast as a person zooms: one not yet
  // started when a newer one of the same chart (whole run or compile) arrives is skipped.
  void requestChart(const ChartRequest& request);

Q_SIGNALS:
  void openStarted(const QString& path);

private:
  void onOpened(const gui::IndexOverview& overview);

  QThread thread_;
  IndexWorker* worker_ = nullptr; // lives on thread_, deleted when it finishes
  std::shared_ptr<std::atomic<bool>> cancel_;
  IndexOverview overview_;
  bool opening_ = false;
  bool open_ = false;
  bool autoSecondary_ = true;
  // The serial of the latest chart request, per chart kind (whole run, one compile); shared
  // with the worker, which skips older ones.
  std::shared_ptr<std::atomic<quint64>> latestRunChart_, latestCompileChart_;
};

// Runs on the session's thread; owns the backend. Public only so that moc sees it.
class IndexWorker : public IndexAnswers {
  Q_OBJECT
public:
  IndexWorker(BackendFactory factory, std::shared_ptr<std::atomic<bool>> cancel);
  ~IndexWorker() override;

  void open(const QString& path);
  // What the first screen does not need: the graph breaks and the data-health panel.
  void loadSecondary();
  void loadCompile(qint64 compileId);
  void loadArtifact(qint64 artifactId, int line);
  void loadArtifactText(qint64 artifactId);
  void search(const QString& query, int offset, int limit);
  void diff(qint64 leftCompileId, qint64 rightCompileId);
  void recompiles(int rank, int frameId);
  // Answers `request` unless `latest` says a newer request of its chart is queued.
  void chart(const ChartRequest& request, const std::atomic<quint64>& latest);

private:
  // Runs `fn`, turning a backend's exception into requestFailed(what, ...).
  template <typename Fn>
  void guarded(const QString& what, Fn&& fn);

  BackendFactory factory_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::unique_ptr<IndexBackend> backend_;
  IndexOverview overview_;
};

} // namespace gui
