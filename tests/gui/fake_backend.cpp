// FakeBackend: compile ids are 100 + n, artifact ids are compileId * 10 + k; search scans the
// artifact texts line by line, the way the real backend reports hits.
#include "fake_backend.h"

#include <QMap>
#include <algorithm>
#include <chrono>
#include <thread>

namespace gui_test {

using namespace gui;

namespace {

CompileSummary compile(qint64 id, int rank, int frame, int fc, CompileOutcome outcome) {
  CompileSummary c;
  c.id = id;
  c.rank = rank;
  c.frameId = frame;
  c.frameCompileId = fc;
  c.display = QStringLiteral("[%1/%2]").arg(frame).arg(fc);
  c.outcome = outcome;
  c.durationSeconds = 0.25 * double(fc + 1);
  c.startUs = double(id) * 1000;
  return c;
}

QString graphText(qint64 compileId) {
  // Compiles 100 and 101 differ in one line: what the diff test expects to see.
  QString size = compileId == 101 ? QStringLiteral("16") : QStringLiteral("8");
  return QStringLiteral("class GraphModule(torch.nn.Module):\n"
                        "    def forward(self, L_x_: \"f32[%1, 4]\"):\n"
                        "        l_x_ = L_x_\n"
                        "        sin = torch.sin(l_x_)\n"
                        "        return (sin,)")
      .arg(size);
}

QString guardsText(qint64 compileId) {
  return QStringLiteral("TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
                        "| +- TENSOR_MATCH: check_tensor(L['x'], size=[%1, 4])\n"
                        "| +- GLOBAL_STATE: ___check_global_state()")
      .arg(compileId == 101 ? 16 : 8);
}

} // namespace

FakeBackend::FakeBackend(bool failAll) : failAll_(failAll) {}

void FakeBackend::check() const {
  if (failAll_) {
    throw BackendError("the index is damaged (test)");
  }
}

IndexOverview FakeBackend::sampleOverview() {
  IndexOverview o;
  o.sourcePath = QStringLiteral("fake.log");
  o.indexPath = QStringLiteral("fake.sqlite");
  RankSummary r0;
  r0.rank = 0;
  FrameSummary f0;
  f0.rank = 0;
  f0.frameId = 0;
  f0.location = QStringLiteral("model.py:12 in forward");
  f0.compiles = {compile(100, 0, 0, 0, CompileOutcome::Ok),
                 compile(101, 0, 0, 1, CompileOutcome::Ok),
                 compile(102, 0, 0, 2, CompileOutcome::CacheHit)};
  FrameSummary f1;
  f1.rank = 0;
  f1.frameId = 1;
  f1.location = QStringLiteral("model.py:20 in torch_dynamo_resume_in_forward_at_15");
  f1.compiles = {compile(103, 0, 1, 0, CompileOutcome::GraphBreak)};
  r0.frames = {f0, f1};
  RankSummary r1;
  r1.rank = 1;
  FrameSummary f2;
  f2.rank = 1;
  f2.frameId = 0;
  f2.location = QStringLiteral("model.py:12 in forward");
  f2.compiles = {compile(104, 1, 0, 0, CompileOutcome::Failed),
                 compile(105, 1, 0, 1, CompileOutcome::EmptyGraph)};
  r1.frames = {f2};
  o.ranks = {r0, r1};
  o.compileCount = 6;
  o.artifactCount = 12;
  o.badDataCount = 2;
  return o;
}

IndexOverview FakeBackend::overview() {
  check();
  return sampleOverview();
}

CompileDetail FakeBackend::compileDetail(qint64 compileId) {
  check();
  for (const RankSummary& r : sampleOverview().ranks) {
    for (const FrameSummary& f : r.frames) {
      for (const CompileSummary& c : f.compiles) {
        if (c.id != compileId) {
          continue;
        }
        CompileDetail d;
        d.summary = c;
        d.location = f.location;
        d.phaseSeconds = {{QStringLiteral("entire_frame_compile"), c.durationSeconds},
                          {QStringLiteral("backend_compile"), c.durationSeconds / 2}};
        d.metrics = {{QStringLiteral("co_name"), QStringLiteral("forward")},
                     {QStringLiteral("graph_op_count"), QStringLiteral("1")}};
        if (c.frameCompileId > 0) {
          d.recompileReasons = {
              QStringLiteral("0/%1: tensor 'x' size mismatch at index 0. expected 8, actual 16")
                  .arg(c.frameCompileId - 1)};
        } else {
          d.recompileNote = QStringLiteral("first compile of the frame");
        }
        if (c.id == 100) {
          // A first compile that restarted: its restart is not why the frame compiled.
          d.restartReasons = {QStringLiteral("Graph break: call to print")};
        }
        if (c.outcome == CompileOutcome::Failed) {
          d.failType = QStringLiteral("Unsupported");
          d.failReason = QStringLiteral("data-dependent branching <script>alert(1)</script>");
        }
        d.userStack = {QStringLiteral("train.py:40 in main"), f.location};
        d.artifacts = {{c.id * 10, QStringLiteral("dynamo_output_graph"),
                        QStringLiteral("dynamo_output_graph"), QStringLiteral("payload_text"), 200},
                       {c.id * 10 + 1, QStringLiteral("dynamo_cpp_guards_str"),
                        QStringLiteral("dynamo_cpp_guards_str"), QStringLiteral("payload_text"),
                        100}};
        return d;
      }
    }
  }
  throw BackendError("no such compile");
}

ArtifactText FakeBackend::artifactText(qint64 artifactId) {
  check();
  const qint64 compileId = artifactId / 10;
  if (compileId < 100 || compileId > 105) {
    throw BackendError("no such artifact");
  }
  ArtifactText a;
  a.id = artifactId;
  if (artifactId % 10 == 0) {
    a.name = QStringLiteral("dynamo_output_graph");
    a.language = QStringLiteral("python");
    a.text = graphText(compileId);
  } else {
    a.name = QStringLiteral("dynamo_cpp_guards_str");
    a.language = QStringLiteral("text");
    a.text = guardsText(compileId);
  }
  return a;
}

ChartSlice FakeBackend::chart(const ChartRequest& request) {
  check();
  // Two nested spans per compile, one band per rank; filtered the way the index filters: the
  // request's compile, the window, half a pixel.
  ChartSlice out;
  out.request = request;
  QMap<int, QList<ChartSpan>> byRank;
  bool any = false;
  for (const RankSummary& r : sampleOverview().ranks) {
    for (const FrameSummary& f : r.frames) {
      for (const CompileSummary& c : f.compiles) {
        if (request.compileId >= 0 && c.id != request.compileId) {
          continue;
        }
        if (request.compileId >= 0) {
          out.title = c.display;
        }
        for (const ChartSpan& s :
             {ChartSpan{QStringLiteral("entire_frame_compile"), c.display, c.id, c.startUs, 800},
              ChartSpan{QStringLiteral("backend_compile"), c.display, c.id, c.startUs + 100,
                        500}}) {
          out.extentStartUs = any ? std::min(out.extentStartUs, s.startUs) : s.startUs;
          out.extentEndUs =
              any ? std::max(out.extentEndUs, s.startUs + s.durationUs) : s.startUs + s.durationUs;
          any = true;
          byRank[c.rank].append(s);
        }
      }
    }
  }
  out.runEndUs = out.extentEndUs;
  const bool whole = !(request.endUs > request.startUs);
  const double t0 = whole ? out.extentStartUs : request.startUs;
  const double t1 = whole ? out.extentEndUs : request.endUs;
  const double minUs = (t1 - t0) / std::max(1.0, request.widthPx) / 2;
  for (auto it = byRank.begin(); it != byRank.end(); ++it) {
    ChartBand band;
    band.rank = it.key();
    for (const ChartSpan& s : it.value()) {
      if (s.startUs <= t1 && s.startUs + s.durationUs >= t0 && s.durationUs >= minUs) {
        band.spans.append(s);
      }
    }
    out.bands.append(band);
  }
  return out;
}

QList<SearchHit> FakeBackend::search(const QString& query, int offset, int limit) {
  check();
  QList<SearchHit> all;
  for (qint64 c = 100; c <= 105; ++c) {
    for (qint64 k = 0; k < 2; ++k) {
      const ArtifactText a = artifactText(c * 10 + k);
      const QStringList lines = a.text.split(QLatin1Char('\n'));
      for (int i = 0; i < lines.size(); ++i) {
        if (lines[i].contains(query, Qt::CaseInsensitive)) {
          all.append({c, QStringLiteral("[%1/%2]").arg(c >= 104 ? 0 : (c == 103 ? 1 : 0)).arg(c),
                      a.id, a.name, i + 1, lines[i]});
        }
      }
    }
  }
  return all.mid(offset, limit);
}

QList<GraphBreakRow> FakeBackend::graphBreaks() {
  check();
  GraphBreakRow item;
  item.rank = 0;
  item.reason = QStringLiteral("Unsupported Tensor.item() call with capture_scalar_outputs=False");
  item.location = QStringLiteral("model.py:15");
  item.userStack = QStringLiteral("model.py:12 in forward\nmodel.py:15 in forward");
  item.count = 2;
  item.compiles = {{QStringLiteral("[0/0]"), 100}, {QStringLiteral("[0/1]"), 101}};
  GraphBreakRow print;
  print.rank = 1;
  print.reason = QStringLiteral("builtin: print");
  print.count = 1;
  print.compiles = {{QStringLiteral("[0/0]"), 104}};
  return {item, print};
}

QList<HealthRow> FakeBackend::health() {
  check();
  return {{QStringLiteral("ok"), QStringLiteral("info"), 120, QStringLiteral("Envelopes parsed.")},
          {QStringLiteral("fail_payload_md5"), QStringLiteral("error"), 1,
           QStringLiteral("Payloads whose MD5 differs.")},
          {QStringLiteral("fail_glog"), QStringLiteral("error"), 1,
           QStringLiteral("Lines without a glog prefix.")}};
}

QList<HealthIssue> FakeBackend::healthIssues(int limit) {
  check();
  const QList<HealthIssue> all = {
      {QStringLiteral("fail_glog"), QStringLiteral("error"), QStringLiteral("rank0.log"), 7,
       QStringLiteral("no glog prefix: garbage"), -1},
      {QStringLiteral("fail_payload_md5"), QStringLiteral("error"), QStringLiteral("rank0.log"), 12,
       QStringLiteral("payload MD5 differs from the declared has_payload"), -1},
      {QStringLiteral("artifacts_without_compile"), QStringLiteral("warning"),
       QStringLiteral("rank1.log"), 40, QStringLiteral("orphan.txt has no compile id"), 1031},
  };
  return all.mid(0, limit);
}

BackendFactory fakeFactory() {
  return [](const OpenRequest& request, const ProgressFn& progress,
            const std::atomic<bool>& cancel) -> std::unique_ptr<IndexBackend> {
    if (request.path == QLatin1String("missing")) {
      throw BackendError("No such file or folder: missing");
    }
    if (request.path == QLatin1String("slow")) {
      // Stands for a long ingest: reports progress until cancelled.
      for (int i = 0; i < 500 && !cancel.load(); ++i) {
        progress(i, 500, QStringLiteral("Indexing"));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      return cancel.load() ? nullptr : std::make_unique<FakeBackend>();
    }
    progress(1, 1, QStringLiteral("Indexing"));
    return std::make_unique<FakeBackend>(request.path == QLatin1String("hostile"));
  };
}

} // namespace gui_test
