// IndexSession and its worker: requests go to the worker thread as queued calls, answers come
// back as queued signals; a backend's failure becomes a signal the window shows, never a crash.
#include "gui/index_session.h"

#include "gui/text_diff.h"

#include <QHash>
#include <QMetaObject>
#include <QSet>
#include <exception>

namespace gui {

namespace {

void registerTypes() {
  static const bool done = [] {
    qRegisterMetaType<gui::IndexOverview>();
    qRegisterMetaType<gui::CompileDetail>();
    qRegisterMetaType<gui::ArtifactText>();
    qRegisterMetaType<gui::CompileDiff>();
    qRegisterMetaType<gui::ChartRequest>();
    qRegisterMetaType<gui::ChartSlice>();
    qRegisterMetaType<QList<gui::SearchHit>>();
    qRegisterMetaType<QList<gui::HealthRow>>();
    qRegisterMetaType<QList<gui::HealthIssue>>();
    qRegisterMetaType<QList<gui::RecompileRow>>();
    qRegisterMetaType<QList<gui::GraphBreakRow>>();
    return true;
  }();
  (void)done;
}

} // namespace

IndexSession::IndexSession(BackendFactory factory, QObject* parent)
    : IndexAnswers(parent), cancel_(std::make_shared<std::atomic<bool>>(false)),
      latestRunChart_(std::make_shared<std::atomic<quint64>>(0)),
      latestCompileChart_(std::make_shared<std::atomic<quint64>>(0)) {
  registerTypes();
  worker_ = new IndexWorker(std::move(factory), cancel_);
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
  connect(worker_, &IndexWorker::progress, this, &IndexSession::progress);
  connect(worker_, &IndexWorker::opened, this, &IndexSession::onOpened);
  connect(worker_, &IndexWorker::chartReady, this, &IndexSession::chartReady);
  connect(worker_, &IndexWorker::healthReady, this, &IndexSession::healthReady);
  connect(worker_, &IndexWorker::healthIssuesReady, this, &IndexSession::healthIssuesReady);
  connect(worker_, &IndexWorker::openFailed, this, [this](const QString& message) {
    opening_ = false;
    Q_EMIT openFailed(message);
  });
  connect(worker_, &IndexWorker::openCancelled, this, [this] {
    opening_ = false;
    Q_EMIT openCancelled();
  });
  connect(worker_, &IndexWorker::compileReady, this, &IndexSession::compileReady);
  connect(worker_, &IndexWorker::artifactReady, this, &IndexSession::artifactReady);
  connect(worker_, &IndexWorker::artifactTextReady, this, &IndexSession::artifactTextReady);
  connect(worker_, &IndexWorker::searchReady, this, &IndexSession::searchReady);
  connect(worker_, &IndexWorker::diffReady, this, &IndexSession::diffReady);
  connect(worker_, &IndexWorker::recompilesReady, this, &IndexSession::recompilesReady);
  connect(worker_, &IndexWorker::graphBreaksReady, this, &IndexSession::graphBreaksReady);
  connect(worker_, &IndexWorker::requestFailed, this, &IndexSession::requestFailed);
  thread_.setObjectName(QStringLiteral("index-worker"));
  thread_.start();
}

IndexSession::~IndexSession() {
  cancel_->store(true);
  thread_.quit();
  thread_.wait();
}

void IndexSession::open(const QString& path) {
  cancel_->store(false);
  opening_ = true;
  open_ = false;
  Q_EMIT openStarted(path);
  QMetaObject::invokeMethod(worker_, [w = worker_, path] { w->open(path); });
}

void IndexSession::cancel() {
  if (opening_) {
    cancel_->store(true);
  }
}

void IndexSession::onOpened(const IndexOverview& overview) {
  opening_ = false;
  open_ = true;
  overview_ = overview;
  Q_EMIT opened(overview_);
  if (autoSecondary_) {
    requestSecondary();
  }
}

void IndexSession::requestSecondary() {
  QMetaObject::invokeMethod(worker_, [w = worker_] { w->loadSecondary(); });
}

void IndexSession::requestCompile(qint64 compileId) {
  QMetaObject::invokeMethod(worker_, [w = worker_, compileId] { w->loadCompile(compileId); });
}

void IndexSession::requestArtifact(qint64 artifactId, int line) {
  QMetaObject::invokeMethod(worker_,
                            [w = worker_, artifactId, line] { w->loadArtifact(artifactId, line); });
}

void IndexSession::requestArtifactText(qint64 artifactId) {
  QMetaObject::invokeMethod(worker_,
                            [w = worker_, artifactId] { w->loadArtifactText(artifactId); });
}

void IndexSession::requestSearch(const QString& query, int offset, int limit) {
  QMetaObject::invokeMethod(
      worker_, [w = worker_, query, offset, limit] { w->search(query, offset, limit); });
}

void IndexSession::requestDiff(qint64 leftCompileId, qint64 rightCompileId) {
  QMetaObject::invokeMethod(worker_, [w = worker_, leftCompileId, rightCompileId] {
    w->diff(leftCompileId, rightCompileId);
  });
}

void IndexSession::requestRecompiles(int rank, int frameId) {
  QMetaObject::invokeMethod(worker_,
                            [w = worker_, rank, frameId] { w->recompiles(rank, frameId); });
}

void IndexSession::requestChart(const ChartRequest& request) {
  std::shared_ptr<std::atomic<quint64>> latest =
      request.compileId < 0 ? latestRunChart_ : latestCompileChart_;
  latest->store(request.serial);
  QMetaObject::invokeMethod(
      worker_, [w = worker_, request, serial = std::move(latest)] { w->chart(request, *serial); });
}

IndexWorker::IndexWorker(BackendFactory factory, std::shared_ptr<std::atomic<bool>> cancel)
    : factory_(std::move(factory)), cancel_(std::move(cancel)) {}

IndexWorker::~IndexWorker() = default;

template <typename Fn>
void IndexWorker::guarded(const QString& what, Fn&& fn) {
  if (!backend_) {
    Q_EMIT requestFailed(what, tr("No index is open."));
    return;
  }
  try {
    fn();
  } catch (const std::exception& e) {
    Q_EMIT requestFailed(what, QString::fromUtf8(e.what()));
  }
}

void IndexWorker::open(const QString& path) {
  backend_.reset();
  overview_ = {};
  try {
    OpenRequest request;
    request.path = path;
    ProgressFn progressFn = [this](qint64 done, qint64 total, const QString& what) {
      Q_EMIT progress(done, total, what);
    };
    backend_ = factory_(request, progressFn, *cancel_);
    if (!backend_ || cancel_->load()) {
      backend_.reset();
      Q_EMIT openCancelled();
      return;
    }
    overview_ = backend_->overview();
    if (overview_.sourcePath.isEmpty()) {
      overview_.sourcePath = path;
    }
  } catch (const std::exception& e) {
    backend_.reset();
    Q_EMIT openFailed(QString::fromUtf8(e.what()));
    return;
  }
  Q_EMIT opened(overview_);
}

void IndexWorker::loadSecondary() {
  // Not needed for the first screen: each follows in its own signal.
  guarded(tr("graph breaks"), [&] { Q_EMIT graphBreaksReady(backend_->graphBreaks()); });
  guarded(tr("data health"), [&] {
    Q_EMIT healthReady(backend_->health());
    Q_EMIT healthIssuesReady(backend_->healthIssues(IndexSession::kMaxHealthIssues));
  });
}

void IndexWorker::chart(const ChartRequest& request, const std::atomic<quint64>& latest) {
  if (request.serial != latest.load()) {
    return; // a newer window of this chart is queued behind this one
  }
  guarded(tr("compile-time chart"), [&] { Q_EMIT chartReady(backend_->chart(request)); });
}

void IndexWorker::loadCompile(qint64 compileId) {
  guarded(tr("compile"), [&] { Q_EMIT compileReady(backend_->compileDetail(compileId)); });
}

void IndexWorker::loadArtifact(qint64 artifactId, int line) {
  guarded(tr("artifact"), [&] { Q_EMIT artifactReady(backend_->artifactText(artifactId), line); });
}

void IndexWorker::loadArtifactText(qint64 artifactId) {
  guarded(tr("artifact"), [&] { Q_EMIT artifactTextReady(backend_->artifactText(artifactId)); });
}

void IndexWorker::search(const QString& query, int offset, int limit) {
  guarded(tr("search"),
          [&] { Q_EMIT searchReady(query, offset, backend_->search(query, offset, limit)); });
}

void IndexWorker::diff(qint64 leftCompileId, qint64 rightCompileId) {
  guarded(tr("diff"), [&] {
    const CompileDetail left = backend_->compileDetail(leftCompileId);
    const CompileDetail right = backend_->compileDetail(rightCompileId);
    CompileDiff result;
    result.left = left.summary;
    result.right = right.summary;
    // Pair artifacts by name; the n-th artifact of a name on one side meets the n-th on the
    // other, so repeated artifacts (one per pass) line up in order.
    auto keyed = [](const QList<ArtifactRef>& refs) {
      QList<QPair<QString, qint64>> out;
      QHash<QString, int> seen;
      for (const ArtifactRef& a : refs) {
        const int n = seen[a.name]++;
        out.append({n == 0 ? a.name : QStringLiteral("%1 #%2").arg(a.name).arg(n + 1), a.id});
      }
      return out;
    };
    const auto l = keyed(left.artifacts);
    const auto r = keyed(right.artifacts);
    QHash<QString, qint64> rightIds;
    for (const auto& [name, id] : r) {
      rightIds.insert(name, id);
    }
    QSet<QString> done;
    for (const auto& [name, id] : l) {
      ArtifactPair pair;
      pair.name = name;
      pair.left = backend_->artifactText(id).text;
      if (auto it = rightIds.constFind(name); it != rightIds.constEnd()) {
        pair.right = backend_->artifactText(*it).text;
      }
      done.insert(name);
      result.artifacts.append(pair);
    }
    for (const auto& [name, id] : r) {
      if (!done.contains(name)) {
        ArtifactPair pair;
        pair.name = name;
        pair.right = backend_->artifactText(id).text;
        result.artifacts.append(pair);
      }
    }
    for (ArtifactPair& pair : result.artifacts) {
      DiffResult d = diffLines(pair.left.isEmpty() ? QStringList() : pair.left.split('\n'),
                               pair.right.isEmpty() ? QStringList() : pair.right.split('\n'));
      pair.rows = std::move(d.rows);
      pair.removed = d.removed;
      pair.added = d.added;
    }
    Q_EMIT diffReady(result);
  });
}

void IndexWorker::recompiles(int rank, int frameId) {
  guarded(tr("recompiles"), [&] {
    QList<RecompileRow> rows;
    for (const RankSummary& r : overview_.ranks) {
      if (r.rank != rank) {
        continue;
      }
      for (const FrameSummary& f : r.frames) {
        if (f.frameId != frameId) {
          continue;
        }
        for (const CompileSummary& c : f.compiles) {
          RecompileRow row;
          row.compile = c;
          const CompileDetail d = backend_->compileDetail(c.id);
          row.reasons = d.recompileReasons;
          row.explained = d.recompileExplained;
          row.note = d.recompileNote;
          row.served = d.served;
          rows.append(row);
        }
      }
    }
    Q_EMIT recompilesReady(rank, frameId, rows);
  });
}

} // namespace gui
