// bench_gui: how long until tlparse-gui shows something, and how long a full-text search
// takes. Usage: bench_gui [LOG-OR-FOLDER ...] (default: tests/data/gui/w12_ddp_cpu).
// For each input it prints: indexing time (ingest, once), time-to-first-screen when opening the
// index (open -> compile tree filled -> first compile and its first artifact shown), and the
// time of a cold (builds the FTS table) and a warm search.
#include "compile_page.h"
#include "fake_backend.h"
#include "gui/index_session.h"
#include "gui/search_results_model.h"
#include "main_window.h"
#include "qt_support.h"
#include "search_page.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTreeView>
#include <cstdio>

using namespace gui;

namespace {

double ms(const QElapsedTimer& t) {
  return double(t.nsecsElapsed()) / 1e6;
}

bool benchOne(const QString& input) {
  QTemporaryDir dir;
  const QString index = dir.filePath(QStringLiteral("index.sqlite"));
  // Index once, keeping the index file.
  QElapsedTimer t;
  t.start();
  {
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
      std::printf("%s: %s\n", qPrintable(input), e.what());
      return false;
    }
  }
  const double indexMs = ms(t);

  MainWindow window;
  window.resize(1300, 850);
  window.show();
  bool opened = false;
  QObject::connect(window.session(), &IndexSession::opened, [&] { opened = true; });
  t.restart();
  window.openPath(index);
  if (!gui_test::waitFor([&] { return opened; }, 600000)) {
    std::printf("%s: the index did not open\n", qPrintable(input));
    return false;
  }
  const double openMs = ms(t);
  // The first compile of the tree, shown with its first artifact: the first useful screen.
  qint64 first = -1;
  for (const RankSummary& r : window.session()->overview().ranks) {
    for (const FrameSummary& f : r.frames) {
      if (!f.compiles.isEmpty() && first < 0) {
        first = f.compiles.first().id;
      }
    }
  }
  if (first >= 0) {
    window.selectCompile(first);
    gui_test::waitFor([&] {
      return window.compilePage()->compileId() == first &&
             (window.compilePage()->detail().artifacts.isEmpty() ||
              window.compilePage()->artifactId() >= 0);
    });
  }
  const double firstScreenMs = ms(t);

  // From pressing Enter to the first page of hits in the model.
  auto timeSearch = [&](const QString& q) {
    int hits = -1;
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
    gui_test::waitFor([&] { return hits >= 0; }, 600000);
    const double elapsed = ms(s);
    QObject::disconnect(c);
    return std::make_pair(elapsed, hits);
  };
  const auto cold = timeSearch(QStringLiteral("GraphModule"));
  const auto warm = timeSearch(QStringLiteral("torch"));
  std::printf("%s\n  compiles %lld, artifacts %lld\n  index (ingest) %.1f ms\n"
              "  open index -> tree %.1f ms\n  time to first screen (tree + compile + artifact)"
              " %.1f ms\n  search 'GraphModule' (cold, builds FTS) %.1f ms, %d line hits\n"
              "  search 'torch' (warm) %.1f ms, %d line hits in the first page\n",
              qPrintable(input), window.session()->overview().compileCount,
              window.session()->overview().artifactCount, indexMs, openMs, firstScreenMs,
              cold.first, cold.second, warm.first, warm.second);
  return true;
}

} // namespace

int main(int argc, char** argv) {
  QStringList inputs;
  for (int i = 1; i < argc; ++i) {
    inputs.append(QString::fromLocal8Bit(argv[i]));
  }
  if (inputs.isEmpty()) {
    inputs.append(QStringLiteral(TORCHSCOPE_SOURCE_DIR "/tests/data/gui/w12_ddp_cpu"));
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  gui_test::ensureApp();
  int failures = 0;
  for (const QString& input : inputs) {
    failures += benchOne(input) ? 0 : 1;
  }
  gui_test::shutdownApp();
  return failures == 0 ? 0 : 1;
}
