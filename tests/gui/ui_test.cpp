// UI tests: the real main window, driven by QTest on the offscreen platform, over the fake
// index (exact expectations) and over a PyTorch 2.11 log committed under tests/data/gui/
// (indexed by the real tlparse ingest).
#include "code_view.h"
#include "compile_page.h"
#include "diff_page.h"
#include "fake_backend.h"
#include "graph_break_page.h"
#include "graph_view.h"
#include "gui/compile_tree_model.h"
#include "gui/graph_model.h"
#include "gui/index_session.h"
#include "gui/list_models.h"
#include "gui/recent_files.h"
#include "gui/search_results_model.h"
#include "health_page.h"
#include "main_window.h"
#include "qt_support.h"
#include "recompile_page.h"
#include "search_page.h"
#include "support/test_paths.h"
#include "timeline_widget.h"
#include "tlparse/ingest/ingest.h"
#include "tlparse/ingest/log_files.h"

#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QListView>
#include <QListWidget>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTimer>
#include <QTreeView>
#include <QUrl>
#include <QWheelEvent>
#include <catch2/catch.hpp>
#include <csignal>

using namespace gui;
using gui_test::waitFor;

namespace {

struct Window {
  explicit Window(BackendFactory factory) : w(std::move(factory)) {
    w.resize(1300, 850);
    w.show();
    // Shortcuts only reach an active window.
    w.activateWindow();
    (void)QTest::qWaitForWindowActive(&w);
  }
  bool open(const QString& path) {
    bool done = false;
    QObject::connect(w.session(), &IndexSession::opened, &w, [&] { done = true; });
    QObject::connect(w.session(), &IndexSession::openFailed, &w, [&] { done = true; });
    w.openPath(path);
    return waitFor([&] { return done; }, 120000) && w.session()->isOpen();
  }
  // Selects a compile and waits until its detail and first artifact are shown.
  bool select(qint64 compileId) {
    if (!w.selectCompile(compileId)) {
      return false;
    }
    return waitFor([&] {
      return w.compilePage()->compileId() == compileId &&
             (w.compilePage()->detail().artifacts.isEmpty() || w.compilePage()->artifactId() >= 0);
    });
  }
  MainWindow w;
};

QString corpusFolder() {
  return QString::fromStdString(
      (test_support::source_dir() / "tests" / "data" / "gui" / "w12_ddp_cpu").string());
}

QString recompileLog() {
  return QString::fromStdString(
      (test_support::source_dir() / "tests" / "data" / "pytorch-2.11" / "w02_recompile").string());
}

// Every compile id in tree order.
QList<qint64> compilesWithArtifacts(const IndexOverview& o) {
  QList<qint64> out;
  for (const RankSummary& r : o.ranks) {
    for (const FrameSummary& f : r.frames) {
      for (const CompileSummary& c : f.compiles) {
        out.append(c.id);
      }
    }
  }
  return out;
}

struct ChartTimes {
  double start = 0;
  double end = 0;
};

} // namespace

TEST_CASE("main window opens an index, lists its compiles and shows a compile's graph", "[gui]") {
  gui_test::ensureApp();
  Window win(gui_test::fakeFactory());
  REQUIRE(win.open("fake.log"));
  QTreeView* tree = win.w.compileTree();
  REQUIRE(tree->model()->rowCount() == 2);
  REQUIRE(win.select(101));
  CompilePage* page = win.w.compilePage();
  CHECK(page->overview()->toPlainText().contains("size mismatch at index 0"));
  CHECK(page->overview()->toPlainText().contains("model.py:12 in forward"));
  // The Dynamo graph opens first, highlighted, with its text.
  REQUIRE(waitFor([&] { return page->codeView()->text().contains("GraphModule"); }));
  CHECK(page->artifactId() == 1010);
  // Another artifact through the list, by keyboard.
  page->artifactList()->setFocus();
  QTest::keyClick(page->artifactList(), Qt::Key_Down);
  REQUIRE(waitFor([&] { return page->codeView()->text().contains("TENSOR_MATCH"); }));
  CHECK(page->artifactId() == 1011);
  // The recompile explorer followed the selection to the frame.
  RecompilePage* recompiles = win.w.recompilePage();
  REQUIRE(waitFor([&] { return recompiles->model()->rowCount() == 3; }));
  CHECK(win.w.timeline()->selectedCompile() == 101);
  // Health counters arrived too.
  CHECK(waitFor([&] { return win.w.healthPage()->model()->rowCount() == 3; }));
}

TEST_CASE("code view finds text and jumps to lines", "[gui]") {
  gui_test::ensureApp();
  CodeView view;
  view.resize(600, 400);
  view.show();
  view.activateWindow();
  REQUIRE(QTest::qWaitForWindowActive(&view));
  view.setText("alpha\nbeta\ngamma\nbeta again", "text");
  CHECK(view.find("beta"));
  CHECK(view.currentLine() == 2);
  CHECK(view.find("beta"));
  CHECK(view.currentLine() == 4);
  CHECK(view.find("beta")); // wraps around
  CHECK(view.currentLine() == 2);
  CHECK_FALSE(view.find("delta"));
  view.goToLine(3);
  CHECK(view.currentLine() == 3);
  view.editor()->setFocus();
  QTest::keyClick(view.editor(), Qt::Key_F, Qt::ControlModifier);
  auto* findEdit = view.findChild<QLineEdit*>("findEdit");
  REQUIRE(findEdit != nullptr);
  CHECK(findEdit->isVisible());
  QTest::keyClicks(findEdit, "gamma");
  CHECK(view.currentLine() == 3);
  CHECK(view.editor()->textCursor().selectedText() == "gamma");
}

TEST_CASE("a damaged or missing index shows an error in the window, never a crash", "[gui]") {
  gui_test::ensureApp();
  Window win(gui_test::fakeFactory());
  CHECK_FALSE(win.open("hostile"));
  CHECK(win.w.errorText().contains("damaged"));
  CHECK(win.w.compileTree()->model()->rowCount() == 0);
  CHECK_FALSE(win.open("missing"));
  CHECK(win.w.errorText().contains("No such file"));
  // A good open afterwards clears the error.
  REQUIRE(win.open("fake.log"));
  CHECK(win.w.errorText().isEmpty());
  // A request the index cannot answer also lands in the banner.
  win.w.session()->requestArtifact(5);
  REQUIRE(waitFor([&] { return !win.w.errorText().isEmpty(); }));
  CHECK(win.w.errorText().contains("no such artifact"));
}

TEST_CASE("recompile explorer diffs two compiles of a frame side by side", "[gui]") {
  gui_test::ensureApp();
  Window win(gui_test::fakeFactory());
  REQUIRE(win.open("fake.log"));
  REQUIRE(win.select(101));
  RecompilePage* page = win.w.recompilePage();
  REQUIRE(waitFor([&] { return page->model()->rowCount() == 3; }));
  // The heading names the frame's location as plain text (regression: it showed the tooltip's
  // rich-text markup), and the first compile's row reads the report's rule.
  CHECK(page->title() == "Frame 0 on rank 0: model.py:12 in forward: 3 compile(s)");
  CHECK(page->model()->index(0, RecompileModel::ReasonColumn).data().toString() ==
        "first compile of the frame");
  win.w.showPage(MainWindow::RecompilesTab);
  // [0/1] against the one before it, [0/0].
  page->table()->selectionModel()->select(
      page->model()->index(1, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  CHECK(page->diffPair() == qMakePair(qint64(100), qint64(101)));
  QTest::mouseClick(page->findChild<QWidget*>("diffButton"), Qt::LeftButton);
  DiffPage* diff = win.w.diffPage();
  REQUIRE(waitFor([&] { return diff->diff().artifacts.size() == 2; }));
  CHECK(win.w.tabs()->currentWidget() == diff);
  CHECK(diff->diff().artifacts[0].name == "dynamo_output_graph");
  REQUIRE(diff->currentPair() != nullptr);
  CHECK(diff->currentPair()->removed == 1);
  CHECK(diff->currentPair()->added == 1);
  CHECK_FALSE(diff->currentPair()->rows.isEmpty());
  CHECK(diff->leftView()->text().contains("f32[8, 4]"));
  CHECK(diff->rightView()->text().contains("f32[16, 4]"));
  diff->pairList()->setCurrentRow(1);
  CHECK(diff->rightView()->text().contains("size=[16, 4]"));
}

TEST_CASE("search opens the artifact at the matching line", "[gui]") {
  gui_test::ensureApp();
  Window win(gui_test::fakeFactory());
  REQUIRE(win.open("fake.log"));
  win.w.showPage(MainWindow::SearchTab);
  SearchPage* search = win.w.searchPage();
  search->queryEdit()->setFocus();
  QTest::keyClicks(search->queryEdit(), "TENSOR_MATCH");
  QTest::keyClick(search->queryEdit(), Qt::Key_Return);
  REQUIRE(waitFor([&] { return search->model()->hitCount() == 6; }));
  const QModelIndex compile = search->model()->index(3, 0);
  const QModelIndex hit = search->model()->index(0, 0, search->model()->index(0, 0, compile));
  REQUIRE(hit.isValid());
  CHECK(hit.data(SearchResultsModel::LineRole).toInt() == 3);
  search->view()->setCurrentIndex(hit);
  QTest::keyClick(search->view(), Qt::Key_Return);
  CompilePage* page = win.w.compilePage();
  REQUIRE(waitFor([&] { return page->artifactId() == 1031; }));
  CHECK(win.w.tabs()->currentWidget() == page);
  CHECK(page->compileId() == 103);
  CHECK(page->codeView()->currentLine() == 3);
}

TEST_CASE("clicking a span on the timeline selects its compile", "[gui]") {
  gui_test::ensureApp();
  Window win(gui_test::fakeFactory());
  REQUIRE(win.open("fake.log"));
  win.w.showPage(MainWindow::TimelineTab);
  TimelineWidget* timeline = win.w.timeline();
  REQUIRE(waitFor([&] { return !timeline->model().isEmpty(); }));
  // Two ranks, each a header row and its nesting rows.
  CHECK(timeline->model().bands().size() == 2);
  CHECK(timeline->model().rowCount() == 6);
  const int bar = timeline->model().firstBarOfCompile(104);
  REQUIRE(bar >= 0);
  const QRect r = timeline->rectOfBar(bar);
  REQUIRE_FALSE(r.isNull());
  CHECK(timeline->barAtPosition(r.center()) == bar);
  // Hover: phase, compile and duration, as plain text.
  CHECK(timeline->toolTipOfBar(bar) == "entire_frame_compile\n[0/0]\n0.800 ms");
  QTest::mouseClick(timeline, Qt::LeftButton, {}, r.center());
  REQUIRE(waitFor([&] { return win.w.compilePage()->compileId() == 104; }));
  const QModelIndex current = win.w.compileTree()->currentIndex();
  CHECK(current.data(CompileTreeModel::CompileIdRole).toLongLong() == 104);
  CHECK(timeline->selectedCompile() == 104);
  // The compile's flame chart follows the selection.
  TimelineWidget* compileChart = win.w.compileChart();
  REQUIRE(waitFor(
      [&] { return compileChart->model().compile() == 104 && !compileChart->model().isEmpty(); }));
  CHECK(compileChart->model().slice().title == "[0/0]");
  CHECK(compileChart->model().bars().size() == 2);
  CHECK(compileChart->model().viewport().visibleStartUs() == Approx(104000));
  CHECK(compileChart->model().viewport().visibleEndUs() == Approx(104800));
  // Keyboard zoom asks the index for the new window and keeps the spans reachable.
  const ChartTimes whole{timeline->model().viewport().extentStartUs(),
                         timeline->model().viewport().extentEndUs()};
  const quint64 serial = timeline->model().slice().request.serial;
  timeline->setFocus();
  QTest::keyClick(timeline, Qt::Key_Plus);
  CHECK(timeline->model().viewport().visibleEndUs() -
            timeline->model().viewport().visibleStartUs() <
        whole.end - whole.start);
  REQUIRE(waitFor([&] { return timeline->model().slice().request.serial > serial; }));
  CHECK(timeline->model().slice().request.endUs > timeline->model().slice().request.startUs);
  QTest::keyClick(timeline, Qt::Key_Home);
  CHECK(timeline->model().viewport().visibleStartUs() == Approx(whole.start));
  // Wheel zoom about the mouse, drag pans.
  const double before =
      timeline->model().viewport().visibleEndUs() - timeline->model().viewport().visibleStartUs();
  QWheelEvent wheel(QPointF(r.center()), timeline->mapToGlobal(QPointF(r.center())), {},
                    QPoint(0, 240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
  QCoreApplication::sendEvent(timeline, &wheel);
  const double after =
      timeline->model().viewport().visibleEndUs() - timeline->model().viewport().visibleStartUs();
  CHECK(after < before);
  const double start = timeline->model().viewport().visibleStartUs();
  QTest::mousePress(timeline, Qt::LeftButton, {}, QPoint(300, 30));
  QTest::mouseMove(timeline, QPoint(200, 30));
  QTest::mouseRelease(timeline, Qt::LeftButton, {}, QPoint(200, 30));
  CHECK(timeline->model().viewport().visibleStartUs() > start);
}

TEST_CASE("keyboard shortcuts switch pages and focus the search box", "[gui]") {
  gui_test::ensureApp();
  Window win(gui_test::fakeFactory());
  QTest::keyClick(&win.w, Qt::Key_2, Qt::ControlModifier);
  CHECK(win.w.tabs()->currentIndex() == MainWindow::RecompilesTab);
  QTest::keyClick(&win.w, Qt::Key_7, Qt::ControlModifier);
  CHECK(win.w.tabs()->currentIndex() == MainWindow::GraphBreaksTab);
  QTest::keyClick(&win.w, Qt::Key_F, Qt::ControlModifier | Qt::ShiftModifier);
  CHECK(win.w.tabs()->currentIndex() == MainWindow::SearchTab);
}

TEST_CASE("a two-rank PyTorch 2.11 log folder opens with one tree branch per rank", "[gui]") {
  gui_test::ensureApp();
  Window win(defaultBackendFactory());
  REQUIRE(win.open(corpusFolder()));
  const IndexOverview& o = win.w.session()->overview();
  REQUIRE(o.ranks.size() == 2);
  CHECK(o.ranks[0].rank == 0);
  CHECK(o.ranks[1].rank == 1);
  CHECK(win.w.compileTree()->model()->index(1, 0).data().toString() == "rank 1");
  CHECK(o.compileCount > 0);
  // The chart and health arrive after the first screen; the chart has a band per rank.
  CHECK(waitFor([&] { return !win.w.timeline()->model().isEmpty(); }));
  CHECK(waitFor([&] { return win.w.healthPage()->model()->rowCount() > 0; }));
  CHECK(win.w.timeline()->model().bands().size() == 2);
  CHECK(win.w.timeline()->model().rowCount() > 2);
}

TEST_CASE("a recompiling PyTorch 2.11 log: select a compile, open an artifact, search, diff",
          "[gui]") {
  gui_test::ensureApp();
  Window win(defaultBackendFactory());
  REQUIRE(win.open(recompileLog()));
  const IndexOverview& o = win.w.session()->overview();
  REQUIRE(o.ranks.size() == 1);
  // The frame with the most compiles: the recompiled one.
  const FrameSummary* frame = nullptr;
  for (const FrameSummary& f : o.ranks[0].frames) {
    if (frame == nullptr || f.compiles.size() > frame->compiles.size()) {
      frame = &f;
    }
  }
  REQUIRE(frame != nullptr);
  REQUIRE(frame->recompileCount() >= 1);
  // The last compile of the frame says why it recompiled.
  REQUIRE(win.select(frame->compiles.last().id));
  CompilePage* page = win.w.compilePage();
  REQUIRE_FALSE(page->detail().artifacts.isEmpty());
  CHECK_FALSE(page->detail().recompileReasons.isEmpty());
  CHECK(page->overview()->toPlainText().contains("Recompile reasons"));
  // The Dynamo graph opens first.
  REQUIRE(waitFor([&] { return page->codeView()->text().contains("GraphModule"); }));

  // Search for a word every Dynamo graph holds, then open the first hit at its line.
  SearchPage* search = win.w.searchPage();
  search->search("GraphModule");
  const bool found = waitFor([&] { return search->model()->hitCount() > 0; }, 60000);
  INFO("error banner: " << win.w.errorText().toStdString());
  REQUIRE(found);
  QModelIndex hit = search->model()->index(0, 0);
  while (search->model()->rowCount(hit) > 0) {
    hit = search->model()->index(0, 0, hit);
  }
  const qint64 artifact = hit.data(SearchResultsModel::ArtifactIdRole).toLongLong();
  const int line = hit.data(SearchResultsModel::LineRole).toInt();
  REQUIRE(artifact >= 0);
  REQUIRE(line > 0);
  win.w.openArtifact(hit.data(SearchResultsModel::CompileIdRole).toLongLong(), artifact, line);
  REQUIRE(waitFor([&] { return page->artifactId() == artifact; }));
  CHECK(page->codeView()->currentLine() == line);
  CHECK(page->codeView()->editor()->document()->findBlockByNumber(line - 1).text().contains(
      "GraphModule"));

  // The recompile explorer of the frame, then a diff of two of its compiles.
  const qint64 second = frame->compiles[1].id;
  REQUIRE(win.select(second));
  RecompilePage* recompiles = win.w.recompilePage();
  REQUIRE(waitFor([&] { return recompiles->model()->rowCount() == frame->compiles.size(); }));
  // Each recompile: the failed guard, its category, the user line and a suggestion.
  const QAbstractItemModel* rm = recompiles->model();
  // The rows of the `recompiles` query golden test (tests/data/answers-golden).
  REQUIRE(rm->rowCount() == 4);
  CHECK(rm->index(0, RecompileModel::ReasonColumn).data().toString() ==
        "first compile of the frame");
  CHECK_FALSE(recompiles->title().contains('<'));
  CHECK(rm->index(1, RecompileModel::ReasonColumn).data().toString().contains("size mismatch"));
  CHECK(rm->index(1, RecompileModel::CategoryColumn).data().toString() == "shape");
  CHECK(rm->index(1, RecompileModel::SuggestionColumn).data().toString().contains("mark_dynamic"));
  CHECK(rm->index(1, RecompileModel::WhereColumn).data().toString().isEmpty());
  CHECK(rm->index(3, RecompileModel::CategoryColumn).data().toString() == "dtype; value; value");
  CHECK(rm->index(3, RecompileModel::WhereColumn).data().toString().contains("w02_recompile.py:6"));
  win.w.showPage(MainWindow::RecompilesTab);
  // Through the selection model: selectRow() would extend with a modifier another test left.
  recompiles->table()->selectionModel()->select(recompiles->model()->index(1, 0),
                                                QItemSelectionModel::ClearAndSelect |
                                                    QItemSelectionModel::Rows);
  const auto pair = recompiles->diffPair();
  CHECK(pair.first == frame->compiles[0].id);
  CHECK(pair.second == second);
  QTest::mouseClick(recompiles->findChild<QWidget*>("diffButton"), Qt::LeftButton);
  DiffPage* diff = win.w.diffPage();
  REQUIRE(waitFor([&] { return !diff->diff().artifacts.isEmpty(); }, 60000));
  CHECK(diff->diff().left.id == frame->compiles[0].id);
  CHECK(diff->diff().artifacts[0].name.startsWith("dynamo_output_graph"));
  CHECK_FALSE(diff->leftView()->text().isEmpty());
  CHECK(win.w.errorText().isEmpty());
}

TEST_CASE("graph-break summary of a PyTorch 2.11 log opens the compile a break occurred in",
          "[gui]") {
  gui_test::ensureApp();
  Window win(defaultBackendFactory());
  REQUIRE(win.open(recompileLog()));
  // The log's one graph break: `print` at line 15 of the user's code, in compile [1/0]
  // (the same row `tlparse query` answers in tests/data/answers-golden).
  GraphBreakPage* page = win.w.graphBreakPage();
  REQUIRE(waitFor([&] { return page->model()->rowCount() == 1; }));
  const GraphBreakRow& row = page->model()->rows()[0];
  CHECK(row.count == 1);
  CHECK(row.location.endsWith(":15"));
  CHECK(row.reason.contains("builtin operator `print`"));
  REQUIRE(row.compiles.size() == 1);
  CHECK(row.compiles[0].first == "[1/0]");
  qint64 expected = -1;
  for (const FrameSummary& f : win.w.session()->overview().ranks[0].frames) {
    for (const CompileSummary& c : f.compiles) {
      if (c.display == "[1/0]" && expected < 0) {
        expected = c.id;
      }
    }
  }
  REQUIRE(expected >= 0);
  CHECK(row.compiles[0].second == expected);
  // The first row is selected: its detail and its compiles are shown.
  CHECK(page->detail()->toPlainText().contains("print"));
  REQUIRE(page->compileList()->count() == 1);
  win.w.showPage(MainWindow::GraphBreaksTab);
  Q_EMIT page->compileList()->itemActivated(page->compileList()->item(0));
  REQUIRE(waitFor([&] { return win.w.compilePage()->compileId() == expected; }));
  CHECK(win.w.tabs()->currentWidget() == win.w.compilePage());
  CHECK(win.w.errorText().isEmpty());
}

TEST_CASE("a compile without output code says why: a failure, an AOTAutograd cache hit", "[gui]") {
  gui_test::ensureApp();
  // The same explanations as the report's "Artifacts explained" (one rule, in tlparse/answers).
  const QList<QPair<QString, QString>> cases = {
      {"w04_failure", "The compile failed (BackendCompilerFailed)"},
      {"w13_cache_run2", "AOTAutograd cache hit"}};
  for (const auto& [log, expected] : cases) {
    INFO(log.toStdString());
    IndexSession session(defaultBackendFactory());
    QList<CompileDetail> details;
    QObject::connect(&session, &IndexSession::compileReady,
                     [&](const CompileDetail& d) { details.append(d); });
    session.open(QString::fromStdString(
        (test_support::source_dir() / "tests" / "data" / "pytorch-2.11" / log.toStdString())
            .string()));
    REQUIRE(waitFor([&] { return session.isOpen(); }, 120000));
    const QList<qint64> ids = compilesWithArtifacts(session.overview());
    REQUIRE_FALSE(ids.isEmpty());
    for (const qint64 id : ids) {
      session.requestCompile(id);
    }
    REQUIRE(waitFor([&] { return details.size() == ids.size(); }, 60000));
    const auto explained =
        std::find_if(details.begin(), details.end(),
                     [&](const CompileDetail& d) { return d.artifactNote.contains(expected); });
    REQUIRE(explained != details.end());
    CHECK(CompilePage::overviewHtml(*explained).contains("Missing artifacts"));
    // A compile that ended well with its generated code and no cache hit has nothing to
    // explain.
    for (const CompileDetail& d : details) {
      auto has = [&](const QString& prefix) {
        return std::any_of(d.artifacts.begin(), d.artifacts.end(),
                           [&](const ArtifactRef& a) { return a.name.startsWith(prefix); });
      };
      if (d.summary.outcome == CompileOutcome::Ok && has("inductor_output_code") &&
          !has("aotautograd_cache")) {
        CHECK(d.artifactNote.isEmpty());
      }
    }
  }
}

TEST_CASE("screenshots of the main views are saved", "[gui]") {
  gui_test::ensureApp();
  // TORCHSCOPE_SCREENSHOTS=1 writes into docs/screenshots/; otherwise a temporary folder.
  QTemporaryDir temp;
  const bool intoDocs = qEnvironmentVariableIntValue("TORCHSCOPE_SCREENSHOTS") == 1;
  const QString dir =
      intoDocs
          ? QString::fromStdString((test_support::source_dir() / "docs" / "screenshots").string())
          : temp.path();
  QDir().mkpath(dir);
  Window win(defaultBackendFactory());
  REQUIRE(win.open(recompileLog()));
  QList<qint64> ids = compilesWithArtifacts(win.w.session()->overview());
  REQUIRE(ids.size() >= 2);
  // Show the most recompiled frame: its diff is the interesting one.
  for (const RankSummary& r : win.w.session()->overview().ranks) {
    for (const FrameSummary& f : r.frames) {
      if (f.compiles.size() > 2) {
        ids = {f.compiles[0].id, f.compiles[1].id};
      }
    }
  }
  win.w.compileTree()->expandAll();
  REQUIRE(win.select(ids[1]));
  REQUIRE(waitFor([&] { return !win.w.timeline()->model().isEmpty(); }));
  REQUIRE(waitFor([&] { return !win.w.compileChart()->model().isEmpty(); }));
  REQUIRE(waitFor([&] { return win.w.healthPage()->model()->rowCount() > 0; }));
  REQUIRE(waitFor([&] { return win.w.graphBreakPage()->model()->rowCount() > 0; }));
  bool diffed = false;
  QObject::connect(win.w.session(), &IndexSession::diffReady, [&] { diffed = true; });
  win.w.session()->requestDiff(ids[0], ids[1]);
  REQUIRE(waitFor([&] { return diffed; }));
  win.w.searchPage()->search("GraphModule");
  REQUIRE(waitFor([&] { return win.w.searchPage()->model()->hitCount() > 0; }));

  const QList<QPair<MainWindow::Page, QString>> pages = {
      {MainWindow::CompileTab, "compile"},
      {MainWindow::RecompilesTab, "recompiles"},
      {MainWindow::DiffTab, "diff"},
      {MainWindow::TimelineTab, "timeline"},
      {MainWindow::SearchTab, "search"},
      {MainWindow::HealthTab, "health"},
      {MainWindow::GraphBreaksTab, "graph-breaks"}};
  for (const auto& [page, name] : pages) {
    win.w.showPage(page);
    QCoreApplication::processEvents();
    const QString file = QDir(dir).filePath(name + ".png");
    const QPixmap shot = win.w.grab();
    REQUIRE_FALSE(shot.isNull());
    REQUIRE(shot.save(file));
    CHECK(QFileInfo(file).size() > 1000);
  }
}

TEST_CASE("opening shows progress with a cancel button that stops the open", "[gui]") {
  gui_test::ensureApp();
  Window win(gui_test::fakeFactory());
  auto* cancel = win.w.findChild<QPushButton*>("cancelOpen");
  REQUIRE(cancel != nullptr);
  bool cancelled = false;
  QObject::connect(win.w.session(), &IndexSession::openCancelled, [&] { cancelled = true; });
  win.w.openPath("slow");
  REQUIRE(waitFor([&] { return cancel->isVisible(); }));
  // The window keeps handling events while the worker indexes.
  QTest::keyClick(&win.w, Qt::Key_3, Qt::ControlModifier);
  CHECK(win.w.tabs()->currentIndex() == MainWindow::DiffTab);
  QTest::mouseClick(cancel, Qt::LeftButton);
  REQUIRE(waitFor([&] { return cancelled; }, 5000));
  CHECK_FALSE(cancel->isVisible());
  CHECK_FALSE(win.w.session()->isOpen());
}

TEST_CASE("dropping a file opens it and remembers it in the recent files", "[gui]") {
  gui_test::ensureApp();
  {
    QSettings settings;
    RecentFiles(settings).clear();
  }
  Window win(gui_test::fakeFactory());
  bool opened = false;
  QObject::connect(win.w.session(), &IndexSession::opened, [&] { opened = true; });
  QMimeData mime;
  const QString path = QDir::temp().filePath("dropped.log");
  mime.setUrls({QUrl::fromLocalFile(path)});
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QCoreApplication::sendEvent(&win.w, &enter);
  CHECK(enter.isAccepted());
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QCoreApplication::sendEvent(&win.w, &drop);
  REQUIRE(waitFor([&] { return opened; }));
  QSettings settings;
  CHECK(RecentFiles(settings).paths().value(0) == QFileInfo(path).absoluteFilePath());
}

TEST_CASE("a hostile log opens with its damage counted, a fake index is refused", "[gui]") {
  gui_test::ensureApp();
  QTemporaryDir dir;
  const QString log = dir.filePath("dedicated_log_torch_trace_hostile.log");
  {
    QFile f(log);
    REQUIRE(f.open(QIODevice::WriteOnly));
    f.write("not a glog line at all\n"
            "V1122 02:58:46.243000 539 torch/_dynamo/x.py:1] {\"dynamo_start\": {\"stack\": 3}\n"
            "V1122 02:58:46.243000 539 torch/_dynamo/x.py:1] {\"artifact\": {\"name\": "
            "\"../../etc/passwd\", \"encoding\": \"string\"}, \"frame_id\": 0, "
            "\"frame_compile_id\": 0, \"has_payload\": \"00000000000000000000000000000000\"}\n"
            "\tpayload whose md5 is wrong\n"
            "\tstray\xff\xfe bytes\n"
            "V1122 02:58:46.243000 539 torch/_dynamo/x.py:1] {\"chromium_event\": {}, "
            "\"has_payload\": \"x\"}\n"
            "\t{\"ph\": \"B\", \"ts\": \"oops\"}\n"
            "V1122 02:58:46");
  }
  Window win(defaultBackendFactory());
  REQUIRE(win.open(log));
  REQUIRE(waitFor([&] { return win.w.healthPage()->model()->rowCount() > 0; }));
  qint64 problems = 0;
  auto* health = win.w.healthPage()->model();
  for (int r = 0; r < health->rowCount(); ++r) {
    const QString severity = health->index(r, HealthModel::SeverityColumn).data().toString();
    if (severity != "info") {
      problems += health->index(r, HealthModel::CountColumn).data().toLongLong();
    }
  }
  CHECK(problems > 0);
  // The panel lists the bad lines themselves: line numbers and what was wrong.
  HealthPage* page = win.w.healthPage();
  REQUIRE(waitFor([&] { return page->issueModel()->totalCount() > 0; }));
  auto issueAt = [&](const QString& kind, qint64 line) -> QString {
    for (const HealthIssue& i : page->issueModel()->issues()) {
      if (i.kind == kind && i.line == line) {
        return i.detail;
      }
    }
    return {};
  };
  CHECK(issueAt("fail_glog", 1).contains("no glog prefix"));
  CHECK(issueAt("fail_payload_md5", 3).contains("MD5"));
  CHECK(issueAt("invalid_utf8", 5).contains("not valid UTF-8"));
  CHECK(issueAt("truncated_last_line", 8).contains("without a newline"));
  // Selecting a counter lists only its lines.
  QTableView* counters = page->counterTable();
  for (int r = 0; r < counters->model()->rowCount(); ++r) {
    if (counters->model()->index(r, HealthModel::NameColumn).data().toString() ==
        "fail_payload_md5") {
      counters->selectionModel()->setCurrentIndex(counters->model()->index(r, 0),
                                                  QItemSelectionModel::ClearAndSelect |
                                                      QItemSelectionModel::Rows);
    }
  }
  REQUIRE(page->issueModel()->kindFilter() == "fail_payload_md5");
  REQUIRE(page->issueModel()->rowCount() >= 1);
  for (int r = 0; r < page->issueModel()->rowCount(); ++r) {
    CHECK(page->issueModel()->index(r, HealthIssueModel::KindColumn).data().toString() ==
          "fail_payload_md5");
  }
  // Every compile of the damaged log can be shown.
  for (const RankSummary& r : win.w.session()->overview().ranks) {
    for (const FrameSummary& f : r.frames) {
      for (const CompileSummary& c : f.compiles) {
        CHECK(win.select(c.id));
      }
    }
  }

  const QString fakeIndex = dir.filePath("broken.sqlite");
  {
    QFile f(fakeIndex);
    REQUIRE(f.open(QIODevice::WriteOnly));
    f.write(QByteArray("SQLite format 3\0", 16) + QByteArray(4096, 'x'));
  }
  CHECK_FALSE(win.open(fakeIndex));
  CHECK_FALSE(win.w.errorText().isEmpty());
}

TEST_CASE("the health panel opens an artifact that has no compile", "[gui]") {
  gui_test::ensureApp();
  Window win(gui_test::fakeFactory());
  REQUIRE(win.open("fake.log"));
  HealthPage* page = win.w.healthPage();
  REQUIRE(waitFor([&] { return page->issueModel()->rowCount() == 3; }));
  CHECK(page->issueModel()->index(1, HealthIssueModel::LineColumn).data().toLongLong() == 12);
  win.w.showPage(MainWindow::HealthTab);
  page->issueTable()->setFocus();
  page->issueTable()->setCurrentIndex(page->issueModel()->index(2, 0));
  QTest::keyClick(page->issueTable(), Qt::Key_Return);
  REQUIRE(waitFor([&] { return win.w.compilePage()->artifactId() == 1031; }));
  CHECK(win.w.tabs()->currentWidget() == win.w.compilePage());
}

TEST_CASE("cancel stops a real ingest and removes its partial index before reporting", "[gui]") {
  gui_test::ensureApp();
  QTemporaryDir dir;
  const QString log = dir.filePath("dedicated_log_torch_trace_big.log");
  {
    QFile f(log);
    REQUIRE(f.open(QIODevice::WriteOnly));
    QByteArray chunk;
    for (int i = 0; i < 400000; ++i) { // ~48 MB: the first progress report comes at 16 MB
      chunk += "V1122 02:46:30.969000 452 torch/_dynamo/utils.py:2126] {\"str\": "
               "[\"torch/_dynamo/some/long/path/file_" +
               QByteArray::number(i) + ".py\", " + QByteArray::number(i) + "]}\n";
      if (chunk.size() > (1 << 20)) {
        f.write(chunk);
        chunk.clear();
      }
    }
    f.write(chunk);
  }
  // The backend writes its index under the temporary folder: point it at one we can look into.
  QTemporaryDir temp;
  const QByteArray oldTmp = qgetenv("TMPDIR");
  qputenv("TMPDIR", temp.path().toLocal8Bit());
  Window win(defaultBackendFactory());
  auto* cancel = win.w.findChild<QPushButton*>("cancelOpen");
  bool cancelled = false;
  bool opened = false;
  qint64 done = 0;
  QObject::connect(win.w.session(), &IndexSession::openCancelled, [&] { cancelled = true; });
  QObject::connect(win.w.session(), &IndexSession::opened, [&] { opened = true; });
  QObject::connect(win.w.session(), &IndexSession::progress,
                   [&](qint64 d, qint64, const QString&) { done = d; });
  win.w.openPath(log);
  const bool started = waitFor([&] { return done > 0 || opened; }, 60000);
  const bool indexing = QDir(temp.path()).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size() == 1;
  QElapsedTimer t;
  t.start();
  QTest::mouseClick(cancel, Qt::LeftButton);
  const bool stopped = waitFor([&] { return cancelled || opened; }, 60000);
  const qint64 cancelMs = t.elapsed();
  // What is left of the index: nothing, once the cancel is reported.
  const QStringList left = QDir(temp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot);
  qputenv("TMPDIR", oldTmp);
  REQUIRE(started);
  CHECK(indexing);
  REQUIRE(stopped);
  REQUIRE(cancelled);
  CHECK_FALSE(opened);
  CHECK_FALSE(win.w.session()->isOpen());
  CHECK(left.isEmpty());
  INFO("cancel took " << cancelMs << " ms");
  CHECK(cancelMs < 5000);
}

namespace {
// Runs the tlparse-gui executable on the offscreen platform with its own temporary folder.
struct GuiProcess {
  explicit GuiProcess(const QString& path) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("TMPDIR"), temp.path());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), temp.path());
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(TORCHSCOPE_GUI_BINARY), {path});
  }
  QStringList sessionFolders() const {
    return QDir(temp.path()).entryList({QStringLiteral("tlparse-gui-*")}, QDir::Dirs);
  }
  QTemporaryDir temp;
  QProcess process;
};
} // namespace

TEST_CASE("tlparse-gui quits on SIGTERM and removes its temporary folder", "[gui]") {
  GuiProcess gui(recompileLog());
  REQUIRE(gui.process.waitForStarted());
  // The index of the log is built in the session folder.
  REQUIRE(waitFor([&] { return !gui.sessionFolders().isEmpty(); }, 60000));
  const QString folder = gui.temp.filePath(gui.sessionFolders().first());
  REQUIRE(
      waitFor([&] { return QFileInfo::exists(folder + QStringLiteral("/index.sqlite")); }, 60000));
  ::kill(pid_t(gui.process.processId()), SIGTERM);
  REQUIRE(gui.process.waitForFinished(30000));
  CHECK(gui.process.exitStatus() == QProcess::NormalExit);
  CHECK(gui.process.exitCode() == 0);
  CHECK(gui.sessionFolders().isEmpty());
}

TEST_CASE("tlparse-gui given a damaged index says so and exits 1", "[gui]") {
  QTemporaryDir dir;
  const QString index = dir.filePath(QStringLiteral("index.sqlite"));
  const auto logs = tlparse::ingest::find_logs(recompileLog().toStdString());
  REQUIRE(logs.ok());
  const auto result = tlparse::ingest::ingest_files(*logs, index.toStdString(), {});
  REQUIRE(result.ok);
  QFile f(index);
  REQUIRE(f.resize(f.size() / 2)); // cut short
  GuiProcess gui(index);
  REQUIRE(gui.process.waitForStarted());
  // Give it time to try; then quit it the way a person's session manager would.
  QTest::qWait(1500);
  ::kill(pid_t(gui.process.processId()), SIGTERM);
  REQUIRE(gui.process.waitForFinished(30000));
  CHECK(gui.process.exitStatus() == QProcess::NormalExit);
  CHECK(gui.process.exitCode() == 1);
}

TEST_CASE("graph tab draws a PyTorch 2.11 compile's graph dumps, steps through them with diffs, "
          "searches and maps kernels to nodes",
          "[gui]") {
  gui_test::ensureApp();
  Window win(defaultBackendFactory());
  REQUIRE(win.open(QString::fromStdString(
      (test_support::source_dir() / "tests" / "data" / "pytorch-2.11" / "w11_provenance")
          .string())));
  // The compile with the most graph dumps.
  qint64 best = -1;
  int most = 0;
  for (const qint64 id : compilesWithArtifacts(win.w.session()->overview())) {
    REQUIRE(win.select(id));
    const int n = int(graphSteps(win.w.compilePage()->detail().artifacts).size());
    if (n > most) {
      most = n;
      best = id;
    }
  }
  REQUIRE(most >= 4);
  REQUIRE(win.select(best));
  CompilePage* page = win.w.compilePage();
  GraphView* graph = page->graphView();
  page->artifactTabs()->setCurrentWidget(graph);
  // In log order: the pre-grad graphs before the joint graph, the post-grad graph last of them.
  QStringList names;
  for (const ArtifactRef& s : graph->steps()) {
    names << s.name;
  }
  INFO(names.join(", ").toStdString());
  CHECK(names.indexOf("before_pre_grad_graph") < names.indexOf("after_pre_grad_graph"));
  CHECK(names.indexOf("after_pre_grad_graph") < names.indexOf("before_post_grad_graph"));
  CHECK(names.indexOf("before_post_grad_graph") < names.indexOf("inductor_post_grad_graph"));

  // Step to the first dump: it is drawn, nodes and edges from the parsed text.
  graph->goToStep(0);
  REQUIRE(waitFor(
      [&] { return graph->graph() && graph->graph()->artifactId == graph->steps()[0].id; }));
  CHECK(page->artifactId() == graph->steps()[0].id);
  REQUIRE(graph->graph()->drawn());
  CHECK(graph->canvas()->nodeItemCount() == graph->graph()->nodeCount());
  CHECK(graph->graph()->graph.edge_count() > 0);

  // Next: drawn with the diff against the step before.
  const int post = int(names.indexOf("inductor_post_grad_graph"));
  REQUIRE(post > 0);
  graph->goToStep(post);
  REQUIRE(waitFor(
      [&] { return graph->graph() && graph->graph()->artifactId == graph->steps()[post].id; }));
  CHECK(graph->graph()->previousName == names[post - 1]);
  CHECK(graph->graph()->marks.size() == size_t(graph->graph()->nodeCount()));
  CHECK(page->artifactId() == graph->steps()[post].id);

  // Search highlights; clicking a node shows its details and selects its line in the text.
  auto* search = graph->findChild<QLineEdit*>("graphSearch");
  REQUIRE(search != nullptr);
  search->setText("relu");
  CHECK_FALSE(findGraphNodes(graph->graph()->graph, "relu").isEmpty());
  int relu = -1;
  for (int i = 0; i < graph->graph()->nodeCount(); ++i) {
    if (graph->graph()->graph.nodes[size_t(i)].name == "relu") {
      relu = i;
    }
  }
  REQUIRE(relu >= 0);
  graph->selectNode(relu);
  auto* details = graph->findChild<QTextBrowser*>("graphNodeDetails");
  CHECK(details->toPlainText().contains("relu"));
  CHECK(page->codeView()->editor()->textCursor().block().text().contains("relu"));

  // Kernels to nodes: the provenance map names the kernels that fused relu.
  REQUIRE(waitFor([&] { return !graph->kernels().empty(); }));
  graph->selectNode(relu);
  CHECK(details->toPlainText().contains("triton_per_fused"));
  auto* kernels = graph->findChild<QListWidget*>("graphKernelList");
  REQUIRE(kernels->count() >= 2);

  // The screenshot, with the other views' (ui_test's screenshot test).
  QTemporaryDir temp;
  const QString dir =
      qEnvironmentVariableIntValue("TORCHSCOPE_SCREENSHOTS") == 1
          ? QString::fromStdString((test_support::source_dir() / "docs" / "screenshots").string())
          : temp.path();
  win.w.showPage(MainWindow::CompileTab);
  QCoreApplication::processEvents();
  const QPixmap shot = win.w.grab();
  REQUIRE_FALSE(shot.isNull());
  CHECK(shot.save(QDir(dir).filePath("graph.png")));
}

TEST_CASE("graph tab: a 5,000-node hostile graph is laid out off the GUI thread, a stale layout "
          "is dropped, text that is no graph is shown as text",
          "[gui]") {
  gui_test::ensureApp();
  GraphView view;
  view.resize(1000, 700);
  view.show();
  const QList<ArtifactRef> artifacts = {{1, "aot_joint_graph", "artifact", "string", 1},
                                        {2, "after_joint_graph_pass_dce", "artifact", "string", 1},
                                        {3, "inductor_post_grad_graph", "artifact", "string", 1}};
  view.setCompile(artifacts);
  REQUIRE(view.steps().size() == 3);
  // Every node reads the two before it; names and comments carry markup and control bytes.
  QString big = "class GraphModule(torch.nn.Module):\n"
                "    def forward(self, x: \"f32[4][1]cpu\", y: \"f32[4][1]cpu\"):\n";
  QString a = "x", b = "y";
  for (int i = 0; i < 5000; ++i) {
    const QString n = QStringLiteral("n%1_<b>").arg(i).replace("<b>", "b");
    big += QStringLiteral("        # File: <script>alert(%1)</script>\x1b[31m\x01.py:1\n"
                          "        %2: \"f32[4][1]cpu\" = torch.ops.aten.add.Tensor(%3, %4)\n")
               .arg(i)
               .arg(n, a, b);
    a = b;
    b = n;
  }
  big += "        return (" + b + ",)\n";

  // The previous step's text, for the diff, as the session answers it: later, from the loop.
  QObject::connect(&view, &GraphView::textWanted, &view, [&](qint64 id) {
    QTimer::singleShot(0, &view, [&view, id, big] {
      view.setArtifactText({id, "after_joint_graph_pass_dce", "python", big});
    });
  });
  int shown = 0;
  QObject::connect(&view, &GraphView::graphShown, [&] { ++shown; });
  // Step 1 asked, then step 2 before it is drawn: only step 2 is drawn.
  view.showArtifact({1, "aot_joint_graph", "python", big});
  view.showArtifact({3, "inductor_post_grad_graph", "python", big});
  int ticks = 0;
  QTimer timer;
  QObject::connect(&timer, &QTimer::timeout, [&] { ++ticks; });
  timer.start(5);
  QElapsedTimer clock;
  clock.start();
  REQUIRE(waitFor([&] { return shown > 0 && !view.layoutPending(); }, 120000));
  INFO("layout took " << clock.elapsed() << " ms, " << ticks << " ticks");
  CHECK(shown == 1);
  REQUIRE(view.graph() != nullptr);
  CHECK(view.graph()->artifactId == 3);
  CHECK(view.graph()->nodeCount() == 5003);
  CHECK(view.canvas()->nodeItemCount() == 5003);
  CHECK(view.graph()->previousName == "after_joint_graph_pass_dce"); // diffed, nothing changed
  CHECK(view.graph()->added + view.graph()->removed + view.graph()->changed == 0);
  // The event loop turned while the worker laid out (a blocked loop would not tick).
  CHECK(ticks >= 1);
  view.search("n4999");
  view.selectNode(findGraphNodes(view.graph()->graph, "n4999_b").value(0, -1));
  CHECK(view.selectedNode() >= 0);
  auto* details = view.findChild<QTextBrowser*>("graphNodeDetails");
  CHECK(details->toHtml().contains("&lt;script&gt;"));
  view.canvas()->zoomBy(2);
  view.canvas()->fit();

  // Text that holds no graph: shown as text with a note, never an error.
  view.showArtifact({2, "after_joint_graph_pass_dce", "python", "<b>not a graph</b>\x01"});
  REQUIRE(waitFor([&] { return view.graph() && view.graph()->artifactId == 2; }));
  CHECK_FALSE(view.graph()->drawn());
  auto* text = view.findChild<QPlainTextEdit*>("graphText");
  REQUIRE(text != nullptr);
  CHECK(text->isVisible());
  CHECK(text->toPlainText().contains("not a graph"));
}
