// bench_gui: how long until tlparse-gui shows its first screen, and how long a full-text search
// takes, measured through the real main window on the offscreen platform.
// Usage: bench_gui [--runs N] [--no-search] [INPUT ...]   (default: tests/data/gui/w12_ddp_cpu)
// An INPUT that is an index (*.sqlite) is opened as it is; a log or a folder of logs is indexed
// first (the time is printed) into a temporary index. For each input it prints:
//   - first screen: from MainWindow::openPath(index) to (1) the compile tree showing rows,
//     (2) the overview of the first compile on the compile page, (3) its first artifact shown;
//     best and median of N fresh windows;
//   - the compile-time chart: from openPath to the whole run's chart painted (its first window
//     asked for after the first screen, answered with only the spans it can show), then zooming
//     in (+ key, 1.5x a step, 12 steps) and panning (arrow keys): from the key to the new
//     window's spans laid out and painted; best / median / worst, and the most spans an answer
//     carried;
//   - search: the first search builds the session's search file (FTS5 over the payloads, beside
//     the session's temporary files; the index is never written) unless the index has a search
//     table (tlparse index --fts); then each query, from SearchPage::search() to
//     the first page of hits in the model, best and median over N rounds. Queries rotate so that
//     no answer comes from the backend's cache of the previous query.
// scripts/bench-gui.sh builds a 1 GB log and a log with 200 MB of distinct payloads and runs it.
#include "compile_page.h"
#include "gui/compile_tree_model.h"
#include "gui/index_session.h"
#include "gui/search_results_model.h"
#include "main_window.h"
#include "qt_support.h"
#include "search_page.h"
#include "timeline_widget.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <algorithm>
#include <cstdio>
#include <vector>

using namespace gui;

namespace {

double ms(const QElapsedTimer& t) {
  return double(t.nsecsElapsed()) / 1e6;
}

struct Stat {
  std::vector<double> v;
  double best() const { return v.empty() ? -1 : *std::min_element(v.begin(), v.end()); }
  double worst() const { return v.empty() ? -1 : *std::max_element(v.begin(), v.end()); }
  double median() const {
    if (v.empty()) {
      return -1;
    }
    std::vector<double> s = v;
    std::sort(s.begin(), s.end());
    return s[s.size() / 2];
  }
};

bool isIndex(const QString& path) {
  QFile f(path);
  return QFileInfo(path).isFile() && f.open(QIODevice::ReadOnly) &&
         f.read(16) == QByteArray("SQLite format 3\0", 16);
}

// Opens `index` in a fresh window; fills the three first-screen times. False on failure.
bool firstScreen(const QString& index, double& treeMs, double& overviewMs, double& artifactMs,
                 double& chartMs, qint64& compiles, qint64& artifacts) {
  MainWindow window;
  window.resize(1300, 850);
  window.show();
  QString failure;
  bool opened = false;
  QObject::connect(window.session(), &IndexSession::openFailed,
                   [&](const QString& m) { failure = m.isEmpty() ? QStringLiteral("?") : m; });
  QObject::connect(window.session(), &IndexSession::opened, [&] { opened = true; });
  QElapsedTimer t;
  t.start();
  window.openPath(index);
  if (!gui_test::waitFor(
          [&] {
            return !failure.isEmpty() || (opened && window.compileTree()->model()->rowCount() > 0);
          },
          600000)) {
    std::printf("  the index did not open within 10 minutes\n");
    return false;
  }
  if (!failure.isEmpty()) {
    std::printf("  could not open %s: %s\n", qPrintable(index), qPrintable(failure));
    return false;
  }
  treeMs = ms(t);
  const IndexOverview& o = window.session()->overview();
  compiles = o.compileCount;
  artifacts = o.artifactCount;
  qint64 first = -1;
  for (const RankSummary& r : o.ranks) {
    for (const FrameSummary& f : r.frames) {
      if (!f.compiles.isEmpty() && first < 0) {
        first = f.compiles.first().id;
      }
    }
  }
  if (first < 0) {
    overviewMs = artifactMs = treeMs;
    return true;
  }
  // The window selects the first compile by itself when an index opens.
  CompilePage* page = window.compilePage();
  if (!gui_test::waitFor([&] { return page->compileId() == first; }, 600000)) {
    std::printf("  the first compile was not shown\n");
    return false;
  }
  overviewMs = ms(t);
  gui_test::waitFor([&] { return page->detail().artifacts.isEmpty() || page->artifactId() >= 0; },
                    600000);
  artifactMs = ms(t);
  TimelineWidget* chart = window.timeline();
  if (!gui_test::waitFor([&] { return chart->model().hasSlice(); }, 600000)) {
    std::printf("  the compile-time chart did not come\n");
    return false;
  }
  chart->repaint();
  chartMs = ms(t);
  // Let the health answers arrive before the window goes away.
  gui_test::waitFor([&] { return false; }, 50);
  return true;
}

// Zooms and pans the whole run's chart of `index`; prints the times.
bool chartSteps(const QString& index) {
  MainWindow window;
  window.resize(1300, 850);
  window.show();
  window.showPage(MainWindow::TimelineTab);
  window.openPath(index);
  TimelineWidget* chart = window.timeline();
  if (!gui_test::waitFor([&] { return chart->model().hasSlice(); }, 600000)) {
    return false;
  }
  chart->setFocus();
  Stat zoom, pan;
  qsizetype mostSpans = 0;
  int mostBars = 0;
  auto step = [&](Qt::Key key, Stat& stat) {
    const quint64 before = chart->model().slice().request.serial;
    QElapsedTimer s;
    s.start();
    QTest::keyClick(chart, key);
    if (!gui_test::waitFor([&] { return chart->model().slice().request.serial > before; },
                           600000)) {
      return false;
    }
    chart->repaint();
    stat.v.push_back(ms(s));
    for (const ChartBand& b : chart->model().slice().bands) {
      mostSpans = std::max(mostSpans, b.spans.size());
    }
    mostBars = std::max(mostBars, int(chart->model().bars().size()));
    return true;
  };
  for (int i = 0; i < 12; ++i) {
    if (!step(Qt::Key_Plus, zoom)) {
      return false;
    }
  }
  for (int i = 0; i < 8; ++i) {
    if (!step(i % 2 == 0 ? Qt::Key_Left : Qt::Key_Right, pan)) {
      return false;
    }
  }
  const TimelineViewport& v = chart->model().viewport();
  std::printf("  compile-time chart, whole run (%d px wide), best / median / worst:\n"
              "    zoom in (12 steps of 1.5x, to %.2f%% of the run) %6.1f / %6.1f / %6.1f ms\n"
              "    pan (8 steps of a tenth)                     %6.1f / %6.1f / %6.1f ms\n"
              "    most spans in one answer %lld, most bars drawn %d\n",
              chart->width(),
              100 * (v.visibleEndUs() - v.visibleStartUs()) /
                  std::max(1.0, v.extentEndUs() - v.extentStartUs()),
              zoom.best(), zoom.median(), zoom.worst(), pan.best(), pan.median(), pan.worst(),
              qlonglong(mostSpans), mostBars);
  return true;
}

bool benchOne(const QString& input, int runs, bool withSearch) {
  std::printf("%s\n", qPrintable(input));
  QTemporaryDir dir;
  QString index = input;
  if (!isIndex(input)) {
    index = dir.filePath(QStringLiteral("index.sqlite"));
    QElapsedTimer t;
    t.start();
    OpenRequest request;
    request.path = input;
    request.indexPath = index;
    std::atomic<bool> cancel{false};
    try {
      auto backend = defaultBackendFactory()(
          request, [](qint64, qint64, const QString&) {}, cancel);
      if (!backend) {
        return false;
      }
    } catch (const std::exception& e) {
      std::printf("  %s\n", e.what());
      return false;
    }
    std::printf("  index (ingest) %.1f ms\n", ms(t));
  }
  std::printf("  index file %.1f MB\n", double(QFileInfo(index).size()) / 1e6);

  Stat tree, overview, artifact, chart;
  qint64 compiles = 0, artifacts = 0;
  for (int i = 0; i < runs; ++i) {
    double a = 0, b = 0, c = 0, d = 0;
    if (!firstScreen(index, a, b, c, d, compiles, artifacts)) {
      return false;
    }
    tree.v.push_back(a);
    overview.v.push_back(b);
    artifact.v.push_back(c);
    chart.v.push_back(d);
  }
  std::printf("  compiles %lld, artifacts %lld\n", compiles, artifacts);
  std::printf("  first screen over %d window(s), best / median:\n"
              "    compile tree shown          %8.1f / %8.1f ms\n"
              "    + first compile's overview  %8.1f / %8.1f ms\n"
              "    + its first artifact        %8.1f / %8.1f ms\n"
              "    compile-time chart painted  %8.1f / %8.1f ms\n",
              runs, tree.best(), tree.median(), overview.best(), overview.median(), artifact.best(),
              artifact.median(), chart.best(), chart.median());
  if (!chartSteps(index)) {
    std::printf("  the compile-time chart did not answer\n");
    return false;
  }
  if (!withSearch) {
    return true;
  }

  MainWindow window;
  window.resize(1300, 850);
  window.show();
  bool opened = false;
  QObject::connect(window.session(), &IndexSession::opened, [&] { opened = true; });
  window.openPath(index);
  if (!gui_test::waitFor([&] { return opened; }, 600000)) {
    return false;
  }
  // From pressing Enter to the first page of hits in the model.
  QString failed;
  QObject::connect(window.session(), &IndexSession::requestFailed,
                   [&](const QString&, const QString& m) { failed = m; });
  auto timeSearch = [&](const QString& q) {
    int hits = -1;
    failed.clear();
    const auto c =
        QObject::connect(window.session(), &IndexSession::searchReady,
                         [&](const QString& query, int offset, const QList<SearchHit>& page) {
                           if (query == q && offset == 0) {
                             hits = int(page.size());
                           }
                         });
    QElapsedTimer s;
    s.start();
    window.searchPage()->search(q);
    gui_test::waitFor([&] { return hits >= 0 || !failed.isEmpty(); }, 600000);
    const double elapsed = ms(s);
    QObject::disconnect(c);
    if (!failed.isEmpty()) {
      std::printf("  search '%s' failed: %s\n", qPrintable(q), qPrintable(failed));
    }
    return std::make_pair(elapsed, hits);
  };
  const qint64 sizeBefore = QFileInfo(index).size();
  const auto build = timeSearch(QStringLiteral("GraphModule"));
  const qint64 sizeAfter = QFileInfo(index).size();
  std::printf("  first search (builds the search file unless the index has a search table) "
              "%.1f ms; index file %s\n",
              build.first, sizeAfter == sizeBefore ? "unchanged" : "CHANGED");
  const QStringList queries = {QStringLiteral("GraphModule"), QStringLiteral("triton_poi_fused*"),
                               QStringLiteral("torch"), QStringLiteral("\"aten.addmm\""),
                               QStringLiteral("nosuchwordanywhere")};
  std::vector<Stat> times(size_t(queries.size()));
  std::vector<int> hits(size_t(queries.size()), 0);
  for (int round = 0; round < std::max(runs, 3); ++round) {
    for (int q = 0; q < queries.size(); ++q) {
      const auto r = timeSearch(queries[q]);
      times[size_t(q)].v.push_back(r.first);
      hits[size_t(q)] = r.second;
    }
  }
  std::printf("  search, first page of up to %d line hits, best / median:\n",
              SearchResultsModel::kPageSize);
  for (int q = 0; q < queries.size(); ++q) {
    std::printf("    %-22s %8.1f / %8.1f ms  (%d hits in the first page)\n", qPrintable(queries[q]),
                times[size_t(q)].best(), times[size_t(q)].median(), hits[size_t(q)]);
  }
  return failed.isEmpty();
}

} // namespace

int main(int argc, char** argv) {
  QStringList inputs;
  int runs = 3;
  bool withSearch = true;
  for (int i = 1; i < argc; ++i) {
    const QString a = QString::fromLocal8Bit(argv[i]);
    if (a == QLatin1String("--runs") && i + 1 < argc) {
      runs = std::max(1, QString::fromLocal8Bit(argv[++i]).toInt());
    } else if (a == QLatin1String("--no-search")) {
      withSearch = false;
    } else {
      inputs.append(a);
    }
  }
  if (inputs.isEmpty()) {
    inputs.append(QStringLiteral(TORCHSCOPE_SOURCE_DIR "/tests/data/gui/w12_ddp_cpu"));
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  gui_test::ensureApp();
  int failures = 0;
  for (const QString& input : inputs) {
    failures += benchOne(input, runs, withSearch) ? 0 : 1;
  }
  gui_test::shutdownApp();
  return failures == 0 ? 0 : 1;
}
