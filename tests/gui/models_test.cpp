// The GUI's models, headless: each runs under QAbstractItemModelTester while it is filled,
// paged and reset, and its contents are checked against the fake index.
#include "fake_backend.h"
#include "gui/chart_model.h"
#include "gui/code_highlighter.h"
#include "gui/compile_tree_model.h"
#include "gui/graph_model.h"
#include "gui/index_session.h"
#include "gui/list_models.h"
#include "gui/recent_files.h"
#include "gui/search_results_model.h"
#include "gui/text_diff.h"
#include "gui/untrusted_text.h"
#include "qt_support.h"
#include "support/test_paths.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSettings>
#include <QTextDocument>
#include <QTimer>
#include <algorithm>
#include <catch2/catch.hpp>

using namespace gui;
using gui_test::CheckedModel;
using gui_test::FakeBackend;

namespace {

// What a tooltip shows a person: tooltips are index text escaped as rich text (plainToolTip).
QString shownTip(const QVariant& tip) {
  QTextDocument doc;
  doc.setHtml(tip.toString());
  return doc.toPlainText();
}

IndexOverview bigOverview(int frames) {
  IndexOverview o;
  RankSummary r;
  r.rank = 0;
  for (int f = 0; f < frames; ++f) {
    FrameSummary fs;
    fs.rank = 0;
    fs.frameId = f;
    CompileSummary c;
    c.id = 1000 + f;
    c.frameId = f;
    c.frameCompileId = 0;
    c.display = QStringLiteral("[%1/0]").arg(f);
    c.outcome = CompileOutcome::Ok;
    fs.compiles = {c};
    r.frames.append(fs);
  }
  o.ranks = {r};
  return o;
}

} // namespace

TEST_CASE("compile tree shows ranks, frames and compiles with outcomes and recompile counts",
          "[gui]") {
  gui_test::ensureApp();
  CompileTreeModel model;
  CheckedModel checked(&model);
  model.setOverview(FakeBackend::sampleOverview());
  REQUIRE(model.rowCount() == 2);
  const QModelIndex rank0 = model.index(0, 0);
  CHECK(rank0.data().toString() == "rank 0");
  CHECK(model.rowCount(rank0) == 0); // children come when a view asks for them
  REQUIRE(model.canFetchMore(rank0));
  model.fetchMore(rank0);
  REQUIRE(model.rowCount(rank0) == 2);
  const QModelIndex frame0 = model.index(0, 0, rank0);
  CHECK(frame0.data().toString().contains("model.py:12 in forward"));
  CHECK(model.index(0, CompileTreeModel::DetailColumn, rank0).data().toString() ==
        "2 recompile(s)");
  model.fetchMore(frame0);
  REQUIRE(model.rowCount(frame0) == 3);
  const QModelIndex hit = model.index(2, 0, frame0);
  CHECK(hit.data().toString() == "[0/2]");
  CHECK(model.index(2, CompileTreeModel::OutcomeColumn, frame0).data().toString() == "cache hit");
  CHECK(hit.data(CompileTreeModel::CompileIdRole).toLongLong() == 102);
  CHECK(hit.data(Qt::ForegroundRole).value<QColor>() ==
        CompileTreeModel::outcomeColor(CompileOutcome::CacheHit));
  const QModelIndex failed = model.indexForCompile(104);
  REQUIRE(failed.isValid());
  CHECK(failed.parent().parent().data().toString() == "rank 1");
  CHECK(failed.siblingAtColumn(CompileTreeModel::OutcomeColumn).data().toString() == "failed");
  CHECK_FALSE(model.indexForCompile(999).isValid());
  // A frame's location for a heading is plain text; only its tooltip is escaped rich text.
  CHECK(frame0.data(CompileTreeModel::LocationRole).toString() == "model.py:12 in forward");
  CHECK(frame0.data(Qt::ToolTipRole).toString().startsWith("<p"));
  model.clear();
  CHECK(model.rowCount() == 0);
  CHECK(checked.problems().join("\n").toStdString() == "");
}

TEST_CASE("compile tree hands frames to views in batches", "[gui]") {
  gui_test::ensureApp();
  CompileTreeModel model; // no tester here: it fetches everything as it walks
  model.setOverview(bigOverview(600));
  const QModelIndex rank = model.index(0, 0);
  CHECK(model.rowCount(rank) == 0);
  CHECK(model.hasChildren(rank));
  REQUIRE(model.canFetchMore(rank));
  model.fetchMore(rank);
  CHECK(model.rowCount(rank) == CompileTreeModel::kBatchSize);
  // Finding a compile beyond what was fetched reveals it.
  const QModelIndex last = model.indexForCompile(1599);
  REQUIRE(last.isValid());
  CHECK(model.rowCount(rank) == 600);
  CHECK_FALSE(model.canFetchMore(rank));
  CHECK(last.data().toString() == "[599/0]");
  // The tester walks (and fetches) the whole batched tree without a complaint.
  CompileTreeModel checkedModel;
  CheckedModel checked(&checkedModel);
  checkedModel.setOverview(bigOverview(600));
  CHECK(checked.problems().join("\n").toStdString() == "");
}

TEST_CASE("search results group hits by compile and artifact and page lazily", "[gui]") {
  gui_test::ensureApp();
  SearchResultsModel model;
  CheckedModel checked(&model);
  QList<std::tuple<QString, int, int>> requests;
  QObject::connect(&model, &SearchResultsModel::pageRequested,
                   [&](const QString& q, int offset, int limit) {
                     requests.append({q, offset, limit});
                   });
  model.setQuery("sin");
  REQUIRE(requests.size() == 1);
  CHECK(std::get<1>(requests[0]) == 0);
  CHECK_FALSE(model.canFetchMore({})); // a page is pending
  FakeBackend backend;
  model.appendPage("sin", 0, backend.search("sin", 0, SearchResultsModel::kPageSize));
  // "sin" is on two lines of each of the six graphs.
  CHECK(model.hitCount() == 12);
  REQUIRE(model.rowCount() == 6);
  const QModelIndex compile = model.index(0, 0);
  CHECK(compile.data(SearchResultsModel::CompileIdRole).toLongLong() == 100);
  REQUIRE(model.rowCount(compile) == 1);
  const QModelIndex artifact = model.index(0, 0, compile);
  CHECK(artifact.data().toString() == "dynamo_output_graph (2)");
  const QModelIndex line = model.index(1, 0, artifact);
  CHECK(line.data(SearchResultsModel::LineRole).toInt() == 5);
  CHECK(line.data(SearchResultsModel::ArtifactIdRole).toLongLong() == 1000);
  CHECK_FALSE(model.canFetchMore({})); // fewer than a page: nothing more
  // Stale answers (old query or wrong offset) are ignored.
  model.appendPage("cos", 0, backend.search("sin", 0, 10));
  CHECK(model.hitCount() == 12);

  // A full page leaves more to fetch; fetchMore asks for the next offset.
  model.setQuery("l");
  QList<SearchHit> page;
  for (int i = 0; i < SearchResultsModel::kPageSize; ++i) {
    page.append({100 + i % 3, "[0/0]", 1000 + i % 3, "g", i + 1, "line"});
  }
  model.appendPage("l", 0, page);
  // A full page leaves more to fetch (the tester may have asked already).
  if (model.canFetchMore({})) {
    model.fetchMore({});
  }
  CHECK_FALSE(model.canFetchMore({}));
  CHECK(std::get<1>(requests.back()) == SearchResultsModel::kPageSize);
  model.appendPage("l", SearchResultsModel::kPageSize, page.mid(0, 5));
  CHECK(model.hitCount() == SearchResultsModel::kPageSize + 5);
  CHECK(model.rowCount() == 3);
  CHECK(checked.problems().join("\n").toStdString() == "");
}

TEST_CASE("flat models show artifacts, recompile reasons and health counters", "[gui]") {
  gui_test::ensureApp();
  FakeBackend backend;
  ArtifactListModel artifacts;
  RecompileModel recompiles;
  HealthModel health;
  CheckedModel a(&artifacts);
  CheckedModel r(&recompiles);
  CheckedModel h(&health);
  artifacts.setArtifacts(backend.compileDetail(101).artifacts);
  CHECK(artifacts.rowCount() == 2);
  CHECK(artifacts.index(1).data().toString() == "dynamo_cpp_guards_str");
  QList<RecompileRow> rows;
  for (qint64 id : {100, 101, 102}) {
    const CompileDetail d = backend.compileDetail(id);
    rows.append({d.summary, d.recompileReasons, d.recompileExplained, d.recompileNote, d.served});
  }
  recompiles.setRows(rows);
  // The note the backend read from the read API's rule, as the report's explorer words it.
  CHECK(recompiles.index(0, RecompileModel::ReasonColumn).data().toString() ==
        "first compile of the frame");
  CHECK(recompiles.index(1, RecompileModel::ReasonColumn)
            .data()
            .toString()
            .contains("size mismatch at index 0"));
  // A recompile explained field by field, as the report's explorer shows it.
  RecompileRow explained = rows[1];
  explained.explained = {{QStringLiteral("[0/0]: tensor 'x' size mismatch at index 0"),
                          QStringLiteral("shape"), QStringLiteral("mark_dynamic"),
                          QStringLiteral("model.py:12"),
                          QStringLiteral("model.py:3 in main\nmodel.py:12 in forward")}};
  recompiles.setRows({rows[0], explained});
  CHECK(recompiles.columnCount() == RecompileModel::ColumnCount);
  CHECK(recompiles.index(1, RecompileModel::ReasonColumn).data().toString().startsWith("[0/0]: "));
  // Runtime facts (our compiler's logs) show in the Served column; PyTorch's logs leave it empty.
  CHECK(recompiles.index(0, RecompileModel::ServedColumn).data().toString().isEmpty());
  QList<RecompileRow> served = recompiles.rows();
  served[0].served = QStringLiteral("640 calls, 0.25 ms each");
  recompiles.setRows(served);
  CHECK(recompiles.index(0, RecompileModel::ServedColumn).data().toString() ==
        "640 calls, 0.25 ms each");
  CHECK(recompiles.headerData(RecompileModel::ServedColumn, Qt::Horizontal).toString() == "Served");
  CHECK(recompiles.index(1, RecompileModel::CategoryColumn).data().toString() == "shape");
  CHECK(recompiles.index(1, RecompileModel::SuggestionColumn).data().toString() == "mark_dynamic");
  CHECK(recompiles.index(1, RecompileModel::WhereColumn).data().toString() == "model.py:12");
  CHECK(shownTip(recompiles.index(1, RecompileModel::WhereColumn).data(Qt::ToolTipRole))
            .contains("model.py:3 in main"));
  CHECK(recompiles.index(0, RecompileModel::CategoryColumn).data().toString().isEmpty());
  health.setRows(backend.health());
  CHECK(health.rowCount() == 3);
  CHECK(health.index(1, HealthModel::CountColumn).data().toLongLong() == 1);
  CHECK(a.problems().isEmpty());
  CHECK(r.problems().isEmpty());
  CHECK(h.problems().isEmpty());
}

TEST_CASE("graph-break model shows distinct breaks with their compiles, no rank sentinel",
          "[gui]") {
  gui_test::ensureApp();
  FakeBackend backend;
  GraphBreakModel model;
  CheckedModel checked(&model);
  model.setRows(backend.graphBreaks());
  REQUIRE(model.rowCount() == 2);
  CHECK(model.columnCount() == GraphBreakModel::ColumnCount);
  CHECK(model.index(0, GraphBreakModel::CountColumn).data().toLongLong() == 2);
  CHECK(model.index(0, GraphBreakModel::RankColumn).data().toString() == "0");
  CHECK(model.index(0, GraphBreakModel::WhereColumn).data().toString() == "model.py:15");
  CHECK(model.index(0, GraphBreakModel::CompilesColumn).data().toString() == "[0/0] [0/1]");
  CHECK(shownTip(model.index(0, GraphBreakModel::ReasonColumn).data(Qt::ToolTipRole))
            .contains("model.py:15 in forward"));
  // Activating a row opens the first compile it occurred in.
  CHECK(model.index(0, 0).data(GraphBreakModel::CompileIdRole).toLongLong() == 100);
  // A break the log gave no user location for says so.
  CHECK(model.index(1, GraphBreakModel::WhereColumn).data().toString().contains("no user"));
  // A multi-line reason shows its first line in the table.
  GraphBreakRow multi;
  multi.reason = QStringLiteral("Data-dependent branching\n  Explanation: ...");
  multi.count = 1;
  model.setRows({multi});
  CHECK(model.index(0, GraphBreakModel::ReasonColumn).data().toString() ==
        "Data-dependent branching");
  CHECK(model.index(0, GraphBreakModel::RankColumn).data().toString().isEmpty());
  CHECK(model.index(0, 0).data(GraphBreakModel::CompileIdRole).toLongLong() == -1);
  CHECK(model.index(0, GraphBreakModel::IdColumn).data().toString().isEmpty());
  // PyTorch 2.11's stable id shows in its column, its docs page in the tooltip and a role.
  multi.stableId = QStringLiteral("gb0170");
  multi.docsUrl = QStringLiteral("https://example.org/gb/gb0170.html");
  model.setRows({multi});
  CHECK(model.index(0, GraphBreakModel::IdColumn).data().toString() == "gb0170");
  CHECK(shownTip(model.index(0, GraphBreakModel::IdColumn).data(Qt::ToolTipRole)) ==
        "https://example.org/gb/gb0170.html");
  CHECK(model.index(0, 0).data(GraphBreakModel::DocsUrlRole).toString() ==
        "https://example.org/gb/gb0170.html");
  CHECK(checked.problems().isEmpty());
}

TEST_CASE("health issues list bad lines by counter and reach views in batches", "[gui]") {
  gui_test::ensureApp();
  HealthIssueModel model;
  // The tester fetches by itself; a second model under it checks the model's consistency while
  // this one checks batching.
  HealthIssueModel tested;
  CheckedModel checked(&tested);
  QList<HealthIssue> issues;
  for (int i = 0; i < HealthIssueModel::kBatchSize + 20; ++i) {
    issues.append({i % 2 == 0 ? QStringLiteral("fail_json") : QStringLiteral("invalid_utf8"),
                   QStringLiteral("error"), QStringLiteral("a.log"), qint64(i + 1),
                   QStringLiteral("line %1").arg(i + 1), -1});
  }
  issues.append({QStringLiteral("artifacts_without_compile"), QStringLiteral("warning"),
                 QStringLiteral("a.log"), 9999, QStringLiteral("orphan.txt"), 77});
  model.setIssues(issues);
  tested.setIssues(issues);
  tested.setKindFilter("invalid_utf8");
  tested.setKindFilter(QString());
  CHECK(model.totalCount() == issues.size());
  CHECK(model.rowCount() == HealthIssueModel::kBatchSize);
  REQUIRE(model.canFetchMore({}));
  model.fetchMore({});
  CHECK(model.rowCount() == issues.size());
  CHECK_FALSE(model.canFetchMore({}));
  CHECK(model.index(2, HealthIssueModel::LineColumn).data().toLongLong() == 3);
  CHECK(model.index(2, HealthIssueModel::KindColumn).data().toString() == "fail_json");
  CHECK_FALSE(model.index(2, 0).data(HealthIssueModel::ArtifactIdRole).isValid());
  model.setKindFilter("invalid_utf8");
  CHECK(model.rowCount() == (HealthIssueModel::kBatchSize + 20) / 2);
  CHECK(model.index(0, HealthIssueModel::LineColumn).data().toLongLong() == 2);
  model.setKindFilter("artifacts_without_compile");
  REQUIRE(model.rowCount() == 1);
  CHECK(model.index(0, 0).data(HealthIssueModel::ArtifactIdRole).toLongLong() == 77);
  model.setKindFilter(QString());
  CHECK(model.rowCount() == HealthIssueModel::kBatchSize);
  CHECK(checked.problems().join("\n").toStdString() == "");
}

TEST_CASE("line diff pairs changed lines and keeps common head and tail", "[gui]") {
  const QStringList left = {"a", "b", "c", "d", "e"};
  const QStringList right = {"a", "B", "c", "d", "x", "e"};
  const DiffResult d = diffLines(left, right);
  CHECK(d.removed == 1);
  CHECK(d.added == 2);
  REQUIRE(d.rows.size() == 6);
  CHECK(d.rows[1].kind == DiffRow::Changed);
  CHECK(d.rows[1].leftLine == 1);
  CHECK(d.rows[1].rightLine == 1);
  CHECK(d.rows[4].kind == DiffRow::Added);
  CHECK(d.rows[4].leftLine == -1);
  CHECK(diffLines(left, left).removed == 0);
  CHECK(diffLines({}, right).added == 6);
  CHECK(diffLines(left, {}).removed == 5);
}

TEST_CASE("line diff is minimal on large inputs and never gives up", "[gui]") {
  // 20,000 lines with a 2,000-line block moved: 2,000 removed and 2,000 added, nothing else,
  // where a quadratic table would have been too big to compute.
  QStringList left;
  for (int i = 0; i < 20000; ++i) {
    left.append(QStringLiteral("line %1").arg(i));
  }
  QStringList right = left;
  const QStringList block = right.mid(2000, 2000);
  right.remove(2000, 2000);
  for (int i = 0; i < block.size(); ++i) {
    right.insert(15000 + i, block[i]);
  }
  const DiffResult d = diffLines(left, right);
  CHECK(d.removed == 2000);
  CHECK(d.added == 2000);
  int same = 0;
  for (const DiffRow& r : d.rows) {
    if (r.kind == DiffRow::Same) {
      CHECK(left[r.leftLine] == right[r.rightLine]);
      ++same;
    }
  }
  CHECK(same == 18000);
  // Unrelated texts: everything differs, found without a search.
  QStringList other;
  for (int i = 0; i < 20000; ++i) {
    other.append(QStringLiteral("other %1").arg(i));
  }
  const DiffResult unrelated = diffLines(left, other);
  CHECK(unrelated.removed == 20000);
  CHECK(unrelated.added == 20000);
}

namespace {

ChartSpan span(const char* name, qint64 compile, double start, double duration) {
  ChartSpan s;
  s.name = QString::fromUtf8(name);
  s.compileLabel = QStringLiteral("[0/%1]").arg(compile);
  s.compileId = compile;
  s.startUs = start;
  s.durationUs = duration;
  return s;
}

} // namespace

TEST_CASE("chart model lays out each rank's spans with the report's layout", "[gui]") {
  ChartModel m;
  const ChartRequest first = m.nextRequest(1000);
  CHECK(first.compileId == -1);
  CHECK(first.endUs <= first.startUs); // the whole extent, which the answer says
  ChartSlice slice;
  slice.request = first;
  slice.extentStartUs = 0;
  slice.extentEndUs = 150;
  slice.runEndUs = 150;
  ChartBand r0;
  r0.rank = 0;
  r0.spans = {span("outer", 1, 0, 100), span("inner", 1, 10, 20), span("next", 2, 100, 50)};
  ChartBand r1;
  r1.rank = 1;
  r1.spans = {span("other rank", 3, 20, 10), span("tiny", 3, 40, 0.01)};
  slice.bands = {r0, r1};
  REQUIRE(m.setSlice(slice));
  m.relayout(1000);
  CHECK(m.viewport().visibleStartUs() == 0);
  CHECK(m.viewport().visibleEndUs() == 150);
  // rank 0: header + 2 rows; rank 1: header + 1 row.
  CHECK(m.rowCount() == 5);
  REQUIRE(m.bands().size() == 2);
  CHECK(m.bands()[1].headerRow == 3);
  REQUIRE(m.bars().size() == 4);
  CHECK(m.hiddenCount() == 1); // "tiny" is under half a pixel
  const auto barOf = [&](const QString& name) {
    for (int i = 0; i < m.bars().size(); ++i) {
      if (m.spanOf(m.bars()[i]).name == name) {
        return i;
      }
    }
    return -1;
  };
  CHECK(m.bars()[barOf("outer")].row == 1);
  CHECK(m.bars()[barOf("inner")].row == 2);
  CHECK(m.bars()[barOf("next")].row == 1); // starts where "outer" ends: not nested
  CHECK(m.bars()[barOf("other rank")].row == 4);
  CHECK(m.bars()[barOf("outer")].width == Approx(1000.0 * 100 / 150));
  CHECK(m.barAt(15 * 1000.0 / 150, 2) == barOf("inner"));
  CHECK(m.barAt(15 * 1000.0 / 150, 1) == barOf("outer"));
  CHECK(m.barAt(95 * 1000.0 / 150, 2) == -1);
  CHECK(m.firstBarOfCompile(2) == barOf("next"));
  CHECK(m.firstSpanOfCompile(3) == qMakePair(1, 0));
  // Colours are the report's: one per phase, whatever the rank.
  CHECK(m.bars()[barOf("outer")].colour == ChartModel::colourOf("outer"));
  CHECK(ChartModel::colourOf("outer") != ChartModel::colourOf("inner"));
  CHECK_FALSE(m.ticks().isEmpty());
  CHECK(m.ticks().first().label == "0 us");

  // Zoomed in, the next request names the window, and an older answer is stale.
  m.viewport().zoom(10, 15);
  m.relayout(1000);
  CHECK(m.bars()[barOf("inner")].width == Approx(1000.0).margin(1)); // 20 us of a 15 us view
  const ChartRequest zoomed = m.nextRequest(1000);
  CHECK(zoomed.endUs - zoomed.startUs == Approx(15));
  CHECK(zoomed.serial > first.serial);
  CHECK_FALSE(m.setSlice(slice)); // the first answer again: stale
  // Another compile's chart ignores the run's answers.
  m.setCompile(7);
  CHECK_FALSE(m.hasSlice());
  CHECK(m.nextRequest(500).compileId == 7);
  slice.request.serial = 1000;
  CHECK_FALSE(m.setSlice(slice));
}

TEST_CASE("timeline viewport zooms about the anchor and stays in the data", "[gui]") {
  TimelineViewport v;
  v.setExtent(0, 1000);
  v.zoom(4, 500);
  CHECK(v.visibleStartUs() == Approx(375));
  CHECK(v.visibleEndUs() == Approx(625));
  v.pan(-1000);
  CHECK(v.visibleStartUs() == Approx(0)); // clamped to the data
  v.zoom(1e9, 0);
  CHECK(v.visibleEndUs() - v.visibleStartUs() == Approx(TimelineViewport::kMinSpanUs));
  v.zoom(1e-9, 0);
  CHECK(v.visibleEndUs() - v.visibleStartUs() == Approx(1000));
  CHECK(v.timeForX(v.xForTime(250, 800), 800) == Approx(250));
}

TEST_CASE("recent files keep the latest first without duplicates", "[gui]") {
  gui_test::ensureApp();
  QSettings settings;
  RecentFiles recent(settings);
  recent.clear();
  for (int i = 0; i < 15; ++i) {
    recent.add(QStringLiteral("/tmp/log%1.log").arg(i));
  }
  recent.add("/tmp/log3.log");
  const QStringList paths = recent.paths();
  CHECK(paths.size() == RecentFiles::kMaxEntries);
  CHECK(paths.first() == "/tmp/log3.log");
  CHECK(paths.count("/tmp/log3.log") == 1);
  recent.clear();
  CHECK(recent.paths().isEmpty());
}

TEST_CASE("code highlighter colours tokens across lines", "[gui]") {
  gui_test::ensureApp();
  QTextDocument doc;
  doc.setPlainText("def forward(self, x):\n    s = \"\"\"a\nb\"\"\"\n    return x  # done");
  CodeHighlighter h(&doc);
  h.setLanguage("python");
  CHECK(h.tokenCount() > 4);
  // The first block starts with the keyword `def`, coloured by the highlighter.
  const QList<QTextLayout::FormatRange> formats = doc.firstBlock().layout()->formats();
  REQUIRE_FALSE(formats.isEmpty());
  CHECK(formats.first().start == 0);
  CHECK(formats.first().length == 3);
  CHECK(languageForArtifact("x.json", "{\"a\": 1}") == "json");
  CHECK(languageForArtifact("dynamo_output_graph", "class G:") == "python");
}

TEST_CASE("session answers requests from its worker thread and reports failures", "[gui]") {
  gui_test::ensureApp();
  IndexSession session(gui_test::fakeFactory());
  QList<HealthRow> health;
  ChartSlice chart;
  bool opened = false;
  QObject::connect(&session, &IndexSession::opened, [&] { opened = true; });
  QObject::connect(&session, &IndexSession::healthReady,
                   [&](const QList<HealthRow>& h) { health = h; });
  QObject::connect(&session, &IndexSession::chartReady, [&](const ChartSlice& s) { chart = s; });
  QList<HealthIssue> issues;
  QObject::connect(&session, &IndexSession::healthIssuesReady,
                   [&](const QList<HealthIssue>& i) { issues = i; });
  session.open("fake.log");
  REQUIRE(gui_test::waitFor([&] { return opened && !health.isEmpty() && !issues.isEmpty(); }));
  // The chart's windows: an older request of the same chart still queued is skipped.
  ChartRequest request;
  request.compileId = 101;
  request.serial = 1;
  session.requestChart(request);
  request.serial = 2;
  session.requestChart(request);
  REQUIRE(gui_test::waitFor([&] { return chart.request.serial == 2; }));
  CHECK(chart.title == "[0/1]");
  CHECK(chart.bands.size() == 1);
  CHECK(issues.size() == 3);
  CHECK(session.overview().compileCount == 6);
  CHECK(session.isOpen());

  CompileDiff diff;
  QObject::connect(&session, &IndexSession::diffReady, [&](const CompileDiff& d) { diff = d; });
  session.requestDiff(100, 101);
  REQUIRE(gui_test::waitFor([&] { return !diff.artifacts.isEmpty(); }));
  CHECK(diff.artifacts.size() == 2);
  CHECK(diff.artifacts[0].left != diff.artifacts[0].right);
  CHECK(diff.artifacts[0].removed == 1); // the worker counted the changed lines
  CHECK(diff.artifacts[0].added == 1);

  QList<RecompileRow> rows;
  QObject::connect(&session, &IndexSession::recompilesReady,
                   [&](int, int, const QList<RecompileRow>& r) { rows = r; });
  session.requestRecompiles(0, 0);
  REQUIRE(gui_test::waitFor([&] { return !rows.isEmpty(); }));
  CHECK(rows.size() == 3);
  CHECK(rows[2].reasons.first().startsWith("0/1:"));
  // The first compile restarted, but the explorer says what the report says of it (regression:
  // the restart reason stood where "first compile of the frame" belongs).
  CHECK(rows[0].reasons.isEmpty());
  CHECK(rows[0].note == "first compile of the frame");

  QString failure;
  QObject::connect(&session, &IndexSession::requestFailed,
                   [&](const QString&, const QString& m) { failure = m; });
  session.requestArtifact(424242);
  REQUIRE(gui_test::waitFor([&] { return !failure.isEmpty(); }));
  CHECK(failure.contains("no such artifact"));

  QString openError;
  QObject::connect(&session, &IndexSession::openFailed, [&](const QString& m) { openError = m; });
  session.open("hostile");
  REQUIRE(gui_test::waitFor([&] { return !openError.isEmpty(); }));
  CHECK(openError.contains("damaged"));
  CHECK_FALSE(session.isOpen());
}

TEST_CASE("cancelling a long open stops it and leaves no index open", "[gui]") {
  gui_test::ensureApp();
  IndexSession session(gui_test::fakeFactory());
  bool cancelled = false;
  qint64 lastProgress = -1;
  QObject::connect(&session, &IndexSession::openCancelled, [&] { cancelled = true; });
  QObject::connect(&session, &IndexSession::progress,
                   [&](qint64 done, qint64, const QString&) { lastProgress = done; });
  session.open("slow");
  REQUIRE(gui_test::waitFor([&] { return lastProgress >= 2; }));
  CHECK(session.isOpening());
  session.cancel();
  REQUIRE(gui_test::waitFor([&] { return cancelled; }, 5000));
  CHECK_FALSE(session.isOpening());
  CHECK_FALSE(session.isOpen());
}

TEST_CASE("tooltips show text from the index literally, never as rich text", "[gui][models]") {
  ArtifactListModel artifacts;
  ArtifactRef a;
  a.id = 1;
  a.name = QStringLiteral("a");
  a.kind = QStringLiteral("<img src=\"file:///etc/passwd\"><a href=\"javascript:x\">k</a>");
  a.encoding = QStringLiteral("string");
  a.sizeBytes = 3;
  artifacts.setArtifacts({a});
  const QString tip = artifacts.data(artifacts.index(0), Qt::ToolTipRole).toString();
  CHECK(tip.contains(QStringLiteral("&lt;img")));
  CHECK_FALSE(tip.contains(QStringLiteral("<img")));
  CHECK_FALSE(tip.contains(QStringLiteral("<a ")));
  // What a QToolTip shows of it is the text itself.
  QTextDocument shown;
  shown.setHtml(tip);
  CHECK(shown.toPlainText().contains(a.kind));
  CHECK(plainToolTip(QString()).isEmpty());
}

namespace {

// A printed FX graph as PyTorch logs it (print_readable), `n` chained ops.
QString chainGraph(int n, const QString& extra = QString()) {
  QString t = QStringLiteral("class GraphModule(torch.nn.Module):\n"
                             "    def forward(self, L_x_: \"f32[8, 16][16, 1]cpu\"):\n"
                             "        l_x_ = L_x_\n"
                             "        # File: /tmp/m.py:3 in f, code: y = x.relu()\n");
  QString prev = QStringLiteral("l_x_");
  for (int i = 0; i < n; ++i) {
    const QString name = QStringLiteral("relu_%1").arg(i);
    t += QStringLiteral("        %1: \"f32[8, 16][16, 1]cpu\" = torch.relu(%2)%3;  %2 = None\n")
             .arg(name, prev, extra);
    prev = name;
  }
  return t + QStringLiteral("        return (%1,)\n").arg(prev);
}

} // namespace

TEST_CASE("graph model parses a graph artifact into nodes, edges and a layout", "[gui]") {
  gui_test::ensureApp();
  auto d = buildGraph(7, "dynamo_output_graph", chainGraph(3));
  REQUIRE(d->drawn());
  CHECK(d->note.isEmpty());
  REQUIRE(d->nodeCount() == 6); // the parameter, l_x_, three ops, the output
  CHECK(d->graph.edge_count() == 5);
  CHECK(d->layout.nodes.size() == 6);
  CHECK(d->graph.nodes[0].is_input());
  CHECK(d->graph.nodes.back().is_output());
  const QStringList label = graphNodeLabel(d->graph.nodes[2]);
  CHECK(label.value(0) == "relu_0");
  CHECK(label.join(" ").contains("f32[8, 16]"));
  const QString details = graphNodeDetailsHtml(d->graph, 2);
  CHECK(details.contains("torch.relu"));
  CHECK(details.contains("/tmp/m.py:3"));
  CHECK(graphNodeLine(d->text, d->graph.nodes[2]) == 5);
  CHECK(graphNodeLine(d->text, d->graph.nodes.back()) == 8);
}

TEST_CASE("graph search finds nodes by name or target, case-insensitively", "[gui]") {
  auto d = buildGraph(1, "g", chainGraph(12));
  CHECK(findGraphNodes(d->graph, "relu_1").size() == 3); // relu_1, relu_10, relu_11
  CHECK(findGraphNodes(d->graph, "TORCH.RELU").size() == 12);
  CHECK(findGraphNodes(d->graph, "nothing like it").isEmpty());
  CHECK(findGraphNodes(d->graph, "  ").isEmpty());
}

TEST_CASE("pass stepper lists a compile's graph dumps in log order and diffs each step", "[gui]") {
  QList<ArtifactRef> artifacts;
  const QStringList names = {"dynamo_output_graph",
                             "before_pre_grad_graph",
                             "after_pre_grad_graph",
                             "after_pre_grad_pass_fuse",
                             "inductor_output_code",
                             "aot_joint_graph",
                             "after_joint_graph_pass_dce",
                             "aot_forward_graph",
                             "aot_backward_graph",
                             "before_post_grad_graph",
                             "after_post_grad_pass_cse",
                             "inductor_post_grad_graph",
                             "inductor_provenance_tracking_node_mappings"};
  for (int i = 0; i < names.size(); ++i) {
    artifacts.append({100 + i, names[i], "artifact", "string", 10});
  }
  const QList<ArtifactRef> steps = graphSteps(artifacts);
  QStringList got;
  for (const ArtifactRef& s : steps) {
    got << s.name;
  }
  QStringList want = names;
  want.removeAll("inductor_output_code");
  want.removeAll("inductor_provenance_tracking_node_mappings");
  CHECK(got == want);

  // One op more after the pass: one node added, the output changed (its input differs).
  auto d = buildGraph(2, "after", chainGraph(4), "before", chainGraph(3));
  CHECK(d->previousName == "before");
  CHECK(d->added == 1);
  CHECK(d->removed == 0);
  REQUIRE(d->marks.size() == size_t(d->nodeCount()));
  CHECK(std::count(d->marks.begin(), d->marks.end(), tlparse::graph::NodeMark::added) == 1);
  // The other way: the node the pass removed is named.
  auto back = buildGraph(3, "after", chainGraph(3), "before", chainGraph(4));
  CHECK(back->removed == 1);
  CHECK(back->removedNodes.size() == 1);
}

TEST_CASE("kernel map reads Inductor's provenance node mappings", "[gui]") {
  const KernelMap m = parseKernelMap(
      R"({"preToPost": {"relu": ["relu"]}, "postToPre": {"relu": ["relu"]},
          "cppCodeToPost": {"extern_kernels.mm:1": ["mm"],
                            "triton_per_fused_add_relu_1:3": ["relu", "add"]},
          "postToCppCode": {"mm": ["extern_kernels.mm:1"],
                            "relu": ["triton_per_fused_add_relu_1:3"]}})");
  CHECK(m.kernels == QStringList{"extern_kernels.mm:1", "triton_per_fused_add_relu_1:3"});
  CHECK(m.kernelToNodes.value("triton_per_fused_add_relu_1:3") == QStringList{"relu", "add"});
  CHECK(m.nodeToKernels.value("mm") == QStringList{"extern_kernels.mm:1"});
  CHECK(parseKernelMap("not json").empty());
  CHECK(parseKernelMap("[1, 2]").empty());
  // Only one direction logged: the other is derived.
  const KernelMap one = parseKernelMap(R"({"cppCodeToPost": {"k": ["a", "b"]}})");
  CHECK(one.nodeToKernels.value("b") == QStringList{"k"});
}

TEST_CASE("a hostile graph text is shown as text or drawn, never a crash, laid out off the GUI "
          "thread",
          "[gui]") {
  gui_test::ensureApp();
  // Not a graph at all: text with a note.
  auto none = buildGraph(1, "aot_joint_graph", "<script>alert(1)</script>\x01\x02\xff garbage");
  CHECK_FALSE(none->drawn());
  CHECK_FALSE(none->note.isEmpty());
  // Markup and control bytes in names and annotations: drawn, labels hold no control character.
  const QString nasty = chainGraph(3, QStringLiteral("  # <b>\x01\x1b[31m</b>"))
                            .replace("relu_1", "relu_1<img src=x onerror=alert(1)>\x07");
  auto odd = buildGraph(2, "g", nasty);
  for (const auto& n : odd->graph.nodes) {
    for (const QString& line : graphNodeLabel(n)) {
      for (const QChar c : line) {
        CHECK(c.category() != QChar::Other_Control);
      }
    }
  }
  for (int i = 0; i < odd->nodeCount(); ++i) {
    CHECK_FALSE(graphNodeDetailsHtml(odd->graph, i).contains("<img"));
  }

  // 5,000 nodes: the layouter answers on a worker while the GUI thread keeps turning.
  GraphLayouter layouter;
  std::shared_ptr<const GraphData> got;
  QObject::connect(&layouter, &GraphLayouter::ready,
                   [&](std::shared_ptr<const GraphData> d) { got = std::move(d); });
  const QString big = chainGraph(5000);
  layouter.request(1, "stale", chainGraph(50)); // overtaken: never answered
  layouter.request(2, "big", big);
  int ticks = 0;
  QTimer timer;
  QObject::connect(&timer, &QTimer::timeout, [&] { ++ticks; });
  timer.start(10);
  QElapsedTimer clock;
  clock.start();
  REQUIRE(gui_test::waitFor([&] { return got != nullptr; }, 120000));
  REQUIRE(got->artifactId == 2);
  CHECK(got->drawn());
  CHECK(got->nodeCount() == 5003);
  // The event loop ran while the layout was computed (it would not if the layout blocked it).
  if (clock.elapsed() > 200) {
    CHECK(ticks > 2);
  }
  QCoreApplication::processEvents();
  CHECK(got->artifactId == 2);
  CHECK_FALSE(layouter.busy());
}
