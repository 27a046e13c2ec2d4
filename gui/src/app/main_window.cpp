// MainWindow: wiring only. Pages show, models hold, the session fetches; this file connects
// them and keeps the window's state (layout, recent files) across runs.
#include "main_window.h"

#include "compile_page.h"
#include "diff_page.h"
#include "graph_break_page.h"
#include "graph_view.h"
#include "gui/compile_tree_model.h"
#include "gui/index_session.h"
#include "gui/recent_files.h"
#include "gui/search_results_model.h"
#include "health_page.h"
#include "recompile_page.h"
#include "search_page.h"
#include "timeline_widget.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

namespace gui {

MainWindow::MainWindow(BackendFactory factory, QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("mainWindow"));
  setWindowTitle(tr("tlparse-gui"));
  setAcceptDrops(true);
  session_ = new IndexSession(std::move(factory), this);
  // The first screen (tree, first compile, its first artifact) comes before the charts and
  // the health panel: see requestSecondaryOnce().
  session_->setAutoSecondary(false);

  treeModel_ = new CompileTreeModel(this);
  tree_ = new QTreeView(this);
  tree_->setObjectName(QStringLiteral("compileTree"));
  tree_->setModel(treeModel_);
  tree_->setUniformRowHeights(true);
  tree_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  tree_->header()->setStretchLastSection(false);
  tree_->header()->setSectionResizeMode(QHeaderView::Interactive);
  tree_->header()->resizeSection(CompileTreeModel::NameColumn, 300);
  auto* dock = new QDockWidget(tr("Compiles"), this);
  dock->setObjectName(QStringLiteral("compilesDock"));
  dock->setWidget(tree_);
  addDockWidget(Qt::LeftDockWidgetArea, dock);

  compilePage_ = new CompilePage(this);
  recompilePage_ = new RecompilePage(this);
  diffPage_ = new DiffPage(this);
  // The Timeline page: the compile-time chart of the whole run above, the selected compile's
  // flame chart below.
  timeline_ = new TimelineWidget(this);
  timeline_->setObjectName(QStringLiteral("runChart"));
  compileChart_ = new TimelineWidget(this);
  compileChart_->setObjectName(QStringLiteral("compileChart"));
  compileChartTitle_ = new QLabel(this);
  compileChartTitle_->setTextFormat(Qt::PlainText); // a compile id from the index
  auto* timelinePage = new QSplitter(Qt::Vertical, this);
  for (auto [chart, title] :
       {std::pair<TimelineWidget*, QLabel*>{timeline_, nullptr},
        std::pair<TimelineWidget*, QLabel*>{compileChart_, compileChartTitle_}}) {
    auto* pane = new QWidget(timelinePage);
    auto* paneLayout = new QVBoxLayout(pane);
    paneLayout->setContentsMargins(0, 0, 0, 0);
    paneLayout->addWidget(title != nullptr ? title : new QLabel(tr("The whole run"), pane));
    auto* scroll = new QScrollArea(pane);
    scroll->setWidget(chart);
    scroll->setWidgetResizable(true);
    paneLayout->addWidget(scroll, 1);
    timelinePage->addWidget(pane);
  }
  showCompileChartTitle();
  searchPage_ = new SearchPage(this);
  healthPage_ = new HealthPage(this);
  graphBreakPage_ = new GraphBreakPage(this);
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName(QStringLiteral("pages"));
  tabs_->addTab(compilePage_, tr("&Compile"));
  tabs_->addTab(recompilePage_, tr("&Recompiles"));
  tabs_->addTab(diffPage_, tr("D&iff"));
  tabs_->addTab(timelinePage, tr("&Timeline"));
  tabs_->addTab(searchPage_, tr("&Search"));
  tabs_->addTab(healthPage_, tr("Data &health"));
  tabs_->addTab(graphBreakPage_, tr("Graph &breaks"));

  banner_ = new QLabel(this);
  banner_->setObjectName(QStringLiteral("errorBanner"));
  banner_->setWordWrap(true);
  banner_->setTextFormat(Qt::PlainText);
  banner_->setStyleSheet(
      QStringLiteral("QLabel { background: #ffebee; color: #b71c1c; padding: 6px; }"));
  banner_->hide();
  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(banner_);
  layout->addWidget(tabs_, 1);
  setCentralWidget(central);

  status_ = new QLabel(tr("Open a log file, a folder of logs or an index (File > Open, or drop "
                          "it here)."),
                       this);
  progress_ = new QProgressBar(this);
  progress_->setMaximumWidth(240);
  progress_->hide();
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setObjectName(QStringLiteral("cancelOpen"));
  cancel_->hide();
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);

  buildMenus();

  connect(cancel_, &QPushButton::clicked, session_, &IndexSession::cancel);
  connect(session_, &IndexSession::openStarted, this, [this](const QString& path) {
    banner_->hide();
    status_->setText(tr("Opening %1 ...").arg(path));
    progress_->setRange(0, 0);
    progress_->show();
    cancel_->show();
  });
  connect(session_, &IndexSession::progress, this,
          [this](qint64 done, qint64 total, const QString& what) {
            if (total > 0) {
              // Scaled to per-mille: QProgressBar holds ints, logs can exceed 2 GB.
              progress_->setRange(0, 1000);
              progress_->setValue(int(1000.0 * double(done) / double(total)));
            }
            if (!what.isEmpty()) {
              status_->setText(what);
            }
          });
  auto finishOpen = [this] {
    progress_->hide();
    cancel_->hide();
  };
  connect(session_, &IndexSession::opened, this, [this, finishOpen](const IndexOverview& o) {
    finishOpen();
    treeModel_->setOverview(o);
    if (treeModel_->rowCount() > 0) {
      tree_->expand(treeModel_->index(0, 0));
    }
    // Long code locations would push the outcome off screen; the tooltip has them whole.
    tree_->resizeColumnToContents(CompileTreeModel::NameColumn);
    tree_->header()->resizeSection(
        CompileTreeModel::NameColumn,
        std::min(tree_->header()->sectionSize(CompileTreeModel::NameColumn), 260));
    tree_->resizeColumnToContents(CompileTreeModel::OutcomeColumn);
    compilePage_->clear();
    recompilePage_->clear();
    diffPage_->clear();
    searchPage_->clear();
    setWindowTitle(tr("%1 - tlparse-gui").arg(o.sourcePath));
    status_->setText(tr("%1: %2 compile(s), %3 artifact(s), %4 data-health issue(s)")
                         .arg(o.sourcePath)
                         .arg(o.compileCount)
                         .arg(o.artifactCount)
                         .arg(o.badDataCount));
    QSettings settings;
    RecentFiles(settings).add(openingPath_);
    rebuildRecentMenu();
    // The first screen shows the first compile; the timeline and the health panel are asked
    // for after it (IndexSession queues them behind this request).
    secondaryPending_ = true;
    for (const RankSummary& r : o.ranks) {
      for (const FrameSummary& f : r.frames) {
        if (!f.compiles.isEmpty() && selectCompile(f.compiles.first().id)) {
          return;
        }
      }
    }
    requestSecondaryOnce();
  });
  connect(session_, &IndexSession::openFailed, this, [this, finishOpen](const QString& m) {
    finishOpen();
    status_->setText(tr("Could not open %1").arg(openingPath_));
    showError(tr("Could not open %1: %2").arg(openingPath_, m));
  });
  connect(session_, &IndexSession::openCancelled, this, [this, finishOpen] {
    finishOpen();
    status_->setText(tr("Opening %1 was cancelled.").arg(openingPath_));
  });
  connect(session_, &IndexSession::chartReady, this, [this](const ChartSlice& slice) {
    if (slice.request.compileId < 0) {
      timeline_->setSlice(slice);
      return;
    }
    const bool first = !compileChart_->model().hasSlice();
    compileChart_->setSlice(slice);
    if (first && compileChart_->model().hasSlice()) {
      showCompileChartTitle();
      // The run's chart follows: the selected compile comes into view there too.
      timeline_->reveal(slice.extentStartUs, slice.extentEndUs);
    }
  });
  for (TimelineWidget* chart : {timeline_, compileChart_}) {
    connect(chart, &TimelineWidget::chartRequested, session_, &IndexSession::requestChart);
    connect(chart, &TimelineWidget::compileClicked, this, [this](qint64 id) { selectCompile(id); });
  }
  connect(session_, &IndexSession::healthReady, healthPage_, &HealthPage::setRows);
  connect(session_, &IndexSession::graphBreaksReady, graphBreakPage_, &GraphBreakPage::setRows);
  connect(graphBreakPage_, &GraphBreakPage::compileActivated, this, [this](qint64 id) {
    selectCompile(id);
    showPage(CompileTab);
  });
  connect(session_, &IndexSession::healthIssuesReady, healthPage_, &HealthPage::setIssues);
  connect(healthPage_, &HealthPage::artifactActivated, this,
          [this](qint64 artifactId) { openArtifact(-1, artifactId, 0); });
  connect(session_, &IndexSession::compileReady, this, &MainWindow::onCompileReady);
  connect(session_, &IndexSession::artifactReady, this, [this](const ArtifactText& a, int line) {
    // Drop an answer for a compile the person has left (the page shows another one).
    const QList<ArtifactRef>& shown = compilePage_->detail().artifacts;
    const bool belongs =
        shown.isEmpty() ||
        std::any_of(shown.begin(), shown.end(), [&](const ArtifactRef& r) { return r.id == a.id; });
    if (belongs) {
      compilePage_->showArtifact(a, line);
    }
  });
  connect(session_, &IndexSession::recompilesReady, recompilePage_, &RecompilePage::setRows);
  connect(session_, &IndexSession::diffReady, this, [this](const CompileDiff& d) {
    diffPage_->setDiff(d);
    showPage(DiffTab);
  });
  connect(session_, &IndexSession::searchReady, searchPage_->model(),
          &SearchResultsModel::appendPage);
  connect(session_, &IndexSession::requestFailed, this,
          [this](const QString& what, const QString& m) {
            showError(tr("Could not load the %1: %2").arg(what, m));
            requestSecondaryOnce();
          });

  connect(tree_->selectionModel(), &QItemSelectionModel::currentChanged, this,
          &MainWindow::onTreeCurrentChanged);
  connect(compilePage_, &CompilePage::artifactRequested, session_, &IndexSession::requestArtifact);
  connect(compilePage_, &CompilePage::artifactTextWanted, session_,
          &IndexSession::requestArtifactText);
  connect(session_, &IndexSession::artifactTextReady, compilePage_->graphView(),
          &GraphView::setArtifactText);
  connect(recompilePage_, &RecompilePage::compileActivated, this, [this](qint64 id) {
    selectCompile(id);
    showPage(CompileTab);
  });
  connect(recompilePage_, &RecompilePage::diffRequested, session_, &IndexSession::requestDiff);
  connect(searchPage_->model(), &SearchResultsModel::pageRequested, session_,
          &IndexSession::requestSearch);
  connect(searchPage_, &SearchPage::hitActivated, this, &MainWindow::openArtifact);

  QSettings settings;
  resizeDocks({dock}, {480}, Qt::Horizontal); // the first run's layout; a saved one wins
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
  tabs_->setCurrentIndex(settings.value(QStringLiteral("window/page"), 0).toInt());
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* openFile = file->addAction(tr("&Open log or index..."));
  openFile->setShortcut(QKeySequence::Open);
  connect(openFile, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open a trace log or an index"), QString(),
        tr("Trace logs and indexes (*.log *.txt *.sqlite *.db);;All files (*)"));
    if (!path.isEmpty()) {
      openPath(path);
    }
  });
  QAction* openDir = file->addAction(tr("Open &folder of logs..."));
  openDir->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  connect(openDir, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open a TORCH_TRACE folder"));
    if (!path.isEmpty()) {
      openPath(path);
    }
  });
  recentMenu_ = file->addMenu(tr("Open &recent"));
  rebuildRecentMenu();
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"));
  quit->setShortcut(QKeySequence::Quit);
  connect(quit, &QAction::triggered, this, &QWidget::close);

  QMenu* go = menuBar()->addMenu(tr("&Go"));
  QAction* focusTree = go->addAction(tr("Compile &tree"));
  focusTree->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
  connect(focusTree, &QAction::triggered, this, [this] { tree_->setFocus(); });
  const QStringList names = {tr("Compile"), tr("Recompiles"),  tr("Diff"),        tr("Timeline"),
                             tr("Search"),  tr("Data health"), tr("Graph breaks")};
  for (int i = 0; i < names.size(); ++i) {
    QAction* a = go->addAction(names[i]);
    a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    connect(a, &QAction::triggered, this, [this, i] { showPage(Page(i)); });
  }
  QAction* search = go->addAction(tr("&Search payloads"));
  search->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
  connect(search, &QAction::triggered, this, [this] {
    showPage(SearchTab);
    searchPage_->focusQuery();
  });
  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* d : findChildren<QDockWidget*>()) {
    view->addAction(d->toggleViewAction());
  }
}

void MainWindow::rebuildRecentMenu() {
  if (recentMenu_ == nullptr) {
    return;
  }
  recentMenu_->clear();
  QSettings settings;
  const QStringList paths = RecentFiles(settings).paths();
  for (const QString& p : paths) {
    connect(recentMenu_->addAction(p), &QAction::triggered, this, [this, p] { openPath(p); });
  }
  recentMenu_->setEnabled(!paths.isEmpty());
}

void MainWindow::openPath(const QString& path) {
  openingPath_ = path;
  wantedCompile_ = wantedArtifact_ = -1;
  secondaryPending_ = false;
  treeModel_->clear();
  timeline_->reset();
  compileChart_->reset();
  showCompileChartTitle();
  healthPage_->setRows({});
  healthPage_->setIssues({});
  graphBreakPage_->clear();
  session_->open(path);
}

void MainWindow::showError(const QString& message) {
  banner_->setText(message);
  banner_->show();
}

QString MainWindow::errorText() const {
  return banner_->isVisible() ? banner_->text() : QString();
}

void MainWindow::showPage(Page page) {
  tabs_->setCurrentIndex(int(page));
}

bool MainWindow::selectCompile(qint64 compileId) {
  const QModelIndex i = treeModel_->indexForCompile(compileId);
  if (!i.isValid()) {
    return false;
  }
  tree_->scrollTo(i);
  tree_->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect |
                                                  QItemSelectionModel::Rows);
  return true;
}

void MainWindow::openArtifact(qint64 compileId, qint64 artifactId, int line) {
  showPage(CompileTab);
  if (artifactId < 0) {
    // A payload the report lists no file for (e.g. a raw stack): show its compile.
    selectCompile(compileId);
    return;
  }
  if (compilePage_->compileId() == compileId && compileId >= 0) {
    session_->requestArtifact(artifactId, line);
    return;
  }
  wantedArtifact_ = artifactId;
  wantedLine_ = line;
  if (!selectCompile(compileId)) {
    // An artifact with no compile: show it on its own.
    wantedArtifact_ = -1;
    compilePage_->clear();
    session_->requestArtifact(artifactId, line);
  }
}

void MainWindow::onTreeCurrentChanged(const QModelIndex& current) {
  if (!current.isValid()) {
    return;
  }
  const auto kind =
      CompileTreeModel::NodeKind(current.data(CompileTreeModel::NodeKindRole).toInt());
  if (kind == CompileTreeModel::NodeKind::Rank) {
    return;
  }
  const int rank = current.data(CompileTreeModel::RankRole).toInt();
  const int frameId = current.data(CompileTreeModel::FrameIdRole).toInt();
  if (rank != recompilePage_->rank() || frameId != recompilePage_->frameId()) {
    const QModelIndex frameIndex =
        kind == CompileTreeModel::NodeKind::Frame ? current : current.parent();
    // The location as plain text: the tooltip is the same text escaped as rich text.
    recompilePage_->setFrame(rank, frameId,
                             frameIndex.data(CompileTreeModel::LocationRole).toString());
    session_->requestRecompiles(rank, frameId);
  }
  if (kind == CompileTreeModel::NodeKind::Compile) {
    wantedCompile_ = current.data(CompileTreeModel::CompileIdRole).toLongLong();
    timeline_->selectCompile(wantedCompile_);
    session_->requestCompile(wantedCompile_);
    showCompileChart(wantedCompile_);
  }
}

void MainWindow::onCompileReady(const CompileDetail& detail) {
  if (detail.summary.id != wantedCompile_) {
    return; // the person has moved on
  }
  compilePage_->setDetail(detail);
  qint64 artifact = wantedArtifact_;
  int line = wantedLine_;
  wantedArtifact_ = -1;
  wantedLine_ = 0;
  if (artifact < 0 && !detail.artifacts.isEmpty()) {
    // Open the most telling artifact: the Dynamo graph when there is one.
    artifact = detail.artifacts.first().id;
    for (const ArtifactRef& a : detail.artifacts) {
      if (a.name.startsWith(QLatin1String("dynamo_output_graph"))) {
        artifact = a.id;
        break;
      }
    }
  }
  if (artifact >= 0) {
    session_->requestArtifact(artifact, line);
  }
  requestSecondaryOnce(); // queued behind the artifact
}

void MainWindow::requestSecondaryOnce() {
  if (secondaryPending_) {
    secondaryPending_ = false;
    timeline_->requestWindow();
    if (compileChart_->model().compile() >= 0) {
      compileChart_->requestWindow();
    }
    session_->requestSecondary();
  }
}

void MainWindow::showCompileChart(qint64 compileId) {
  if (compileId < 0 || compileChart_->model().compile() == compileId) {
    return;
  }
  compileChart_->reset(compileId); // every bar is the compile's: none is outlined
  showCompileChartTitle();
  if (!secondaryPending_) { // after the first screen
    compileChart_->requestWindow();
  }
}

void MainWindow::showCompileChartTitle() {
  const ChartModel& m = compileChart_->model();
  if (m.compile() < 0) {
    compileChartTitle_->setText(tr("Select a compile to see its flame chart."));
  } else if (m.hasSlice()) {
    compileChartTitle_->setText(tr("Compile %1").arg(m.slice().title));
  } else {
    compileChartTitle_->setText(tr("Reading the compile's spans..."));
  }
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
  settings.setValue(QStringLiteral("window/page"), tabs_->currentIndex());
  session_->cancel();
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) {
    event->acceptProposedAction();
  }
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile()) {
      openPath(url.toLocalFile());
      event->acceptProposedAction();
      return;
    }
  }
}

} // namespace gui
