// Value types the GUI shows: plain copies of what the index's read API returns, so that models
// and widgets never hold a database handle and results can cross from the worker thread to the
// UI thread inside queued signals.
#pragma once

#include "gui/text_diff.h"

#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>
#include <QStringList>

namespace gui {

// How a compile ended, in the order of how urgently a person wants to see it.
enum class CompileOutcome {
  Ok,
  GraphBreak, // a restart or a graph break: the frame was split
  Failed,
  EmptyGraph,
  CacheHit,
  Unknown,
};

QString outcomeName(CompileOutcome outcome);

// One entry of the compile directory: a compile id with its attempt ("[1/0]", "[1/0_1]").
struct CompileSummary {
  qint64 id = -1; // the index's own id for the entry: what later requests name
  int rank = -1;  // -1: no rank in the log
  int frameId = -1;
  int frameCompileId = -1;
  int attempt = 0;
  // "[0/1]", "[0/1_1]", "[!2/0/1]", "[-/-]": as the index spells it (the way PyTorch does).
  QString display;
  CompileOutcome outcome = CompileOutcome::Unknown; // of its compile, all attempts together
  double durationSeconds = -1;                      // < 0: unknown
  double startUs = -1; // < 0: unknown; used to order compiles on the timeline

  const QString& label() const { return display; }
};

struct FrameSummary {
  int rank = -1;
  int frameId = -1;
  QString location; // "file:line in function", empty when the log did not say
  QList<CompileSummary> compiles;

  // Distinct compiles of the frame after the first one; restarts (attempts) do not count.
  int recompileCount() const;
};

struct RankSummary {
  int rank = -1;
  QList<FrameSummary> frames;
};

struct IndexOverview {
  QString sourcePath; // what the person opened
  QString indexPath;  // the SQLite index that is being read
  QList<RankSummary> ranks;
  qint64 compileCount = 0;
  qint64 artifactCount = 0;
  qint64 badDataCount = 0; // sum of the data-health counters
};

struct ArtifactRef {
  qint64 id = -1;
  QString name;     // e.g. "dynamo_output_graph", "inductor_output_code", "recompile_reasons"
  QString kind;     // the event key it came from
  QString encoding; // "string", "json", ...
  qint64 sizeBytes = -1;
};

struct ArtifactText {
  qint64 id = -1;
  QString name;
  QString language; // a highlighter language: "python", "json", "cpp", "text"
  QString text;
};

// One failed guard of a recompile, as the read API's `recompiles` view explains it.
struct RecompileReason {
  QString guard;      // the guard that failed, after the cached compile it failed on
  QString category;   // shape, dtype, value, object identity, global state, ...
  QString suggestion; // mark_dynamic, dynamic=True, the recompile limit, ...
  QString location;   // "file:line" of the user code that created the guard; empty if unknown
  QString userStack;  // that code's stack, as logged; empty if unknown
};

struct CompileDetail {
  CompileSummary summary;
  QString location;
  QList<QPair<QString, double>> phaseSeconds; // compile-time breakdown, in order
  QList<QPair<QString, QString>> metrics;     // the compilation_metrics fields that were set
  QString failType;
  QString failReason;
  QStringList restartReasons;
  QStringList recompileReasons;              // each names the guard that failed
  QList<RecompileReason> recompileExplained; // the same reasons, field by field
  // What the recompile explorers say when there is no recompile reason (the read API's rule,
  // tlparse/answers/recompile_explanation.h): "first compile of the frame", or that the log
  // recorded none. Empty when recompileReasons is not.
  QString recompileNote;
  // How its cache entries served their calls ("640 calls, 0.25 ms each", "no call"); empty when
  // the log has no runtime facts (PyTorch's logs): answers::served_text, the report's rule.
  QString served;
  QStringList userStack; // outermost first, "file:line in function"
  QList<ArtifactRef> artifacts;
  // Why the compile has no generated code, or lacks the later stages' graphs (a cache hit, a
  // failure, an empty graph, a backend that writes none...); empty when nothing is missing.
  QString artifactNote;
};

// The compile-time chart (docs/ANSWERS.md): a window of time asked of the index, for the whole
// run or for one compile. The index sends only the spans the window can show (those at least
// half a pixel wide that overlap it), never every span of a large log.
struct ChartRequest {
  qint64 compileId = -1; // a compile-directory entry: that compile's spans; -1: the whole run
  // The window; endUs <= startUs asks for the whole extent (of the run or the compile).
  double startUs = 0;
  double endUs = 0;
  double widthPx = 1000;
  quint64 serial = 0; // echoed in the answer, so a chart keeps only the latest
};

struct ChartSpan {
  QString name;          // the phase
  QString compileLabel;  // [0/1] as PyTorch prints it, or "(outside any compile)"
  qint64 compileId = -1; // its compile-directory entry, -1 when none
  double startUs = 0;
  double durationUs = 0;
  bool unclosed = false; // never closed: it runs to the end of the run
};

// One rank's spans in the window, the longest first (an answer that hits the limit leaves out
// the shortest).
struct ChartBand {
  int rank = -1; // -1: the log has no rank
  QList<ChartSpan> spans;
  bool truncated = false; // more spans in the window than one answer carries: zoom in
};

struct ChartSlice {
  ChartRequest request;
  QString title;            // the compile charted, empty for the whole run
  double extentStartUs = 0; // everything there is to chart (of the run or the compile)
  double extentEndUs = 0;
  double runEndUs = 0; // where an unclosed span ends
  QList<ChartBand> bands;
};

struct SearchHit {
  qint64 compileId = -1;
  QString compileLabel;
  qint64 artifactId = -1;
  QString artifactName;
  int line = 0; // 1-based line of the match within the artifact
  QString snippet;
};

struct HealthRow {
  QString name;
  QString severity; // "info", "warning", "error"
  qint64 count = 0;
  QString description;
};

// One line or item behind a health counter: a bad line (with what was wrong), an MD5 failure,
// an unknown event kind (its first line), an artifact logged outside any compile.
struct HealthIssue {
  QString kind;           // the counter it belongs to: "fail_json", "unknown_event_kinds", ...
  QString severity;       // "info", "warning" or "error"
  QString file;           // log file name
  qint64 line = 0;        // 1-based physical line in that file
  QString detail;         // what was wrong, with an excerpt of the line when there is one
  qint64 artifactId = -1; // artifacts_without_compile: the artifact, which can be opened
};

// Both sides of one artifact kind of two compiles, for the side-by-side diff, with the diff
// itself: it is computed on the worker thread (large outputs make it costly), never by a page.
struct ArtifactPair {
  QString name;
  QString left;
  QString right;
  QList<DiffRow> rows; // aligned rows of left and right lines
  int removed = 0;     // lines only on the left
  int added = 0;       // lines only on the right
};

struct CompileDiff {
  CompileSummary left;
  CompileSummary right;
  QList<ArtifactPair> artifacts;
};

// A frame's compiles in order, each with why it happened.
struct RecompileRow {
  CompileSummary compile;
  QStringList reasons;              // its recompile reasons; empty for the first compile
  QList<RecompileReason> explained; // its failed guards, when it is a recompile
  QString note;                     // shown when `reasons` is empty (CompileDetail::recompileNote)
  QString served;                   // CompileDetail::served
};

// One distinct graph break of a log (the read API's graph_break_summary): the same reason at
// the same user line, however many times and in however many compiles it happened.
struct GraphBreakRow {
  int rank = -1; // -1: no rank in the log
  QString reason;
  QString location; // "file:line" of the user's code, empty when the log did not say
  QString userStack;
  // PyTorch 2.11's stable id of the kind of break ("gb0170") and the docs page the reason links;
  // empty when the reason names none (answers::graph_break_id, the report's rule).
  QString stableId;
  QString docsUrl;
  qint64 count = 0;
  // The compiles it occurred in, as PyTorch prints them, each with the entry a request names
  // (-1 when the compile is not in the compile tree).
  QList<QPair<QString, qint64>> compiles;
};

} // namespace gui

Q_DECLARE_METATYPE(gui::IndexOverview)
Q_DECLARE_METATYPE(gui::CompileDetail)
Q_DECLARE_METATYPE(gui::ArtifactText)
Q_DECLARE_METATYPE(gui::CompileDiff)
Q_DECLARE_METATYPE(gui::ChartRequest)
Q_DECLARE_METATYPE(gui::ChartSlice)
Q_DECLARE_METATYPE(gui::SearchHit)
Q_DECLARE_METATYPE(gui::HealthRow)
Q_DECLARE_METATYPE(gui::HealthIssue)
Q_DECLARE_METATYPE(gui::RecompileRow)
Q_DECLARE_METATYPE(gui::GraphBreakRow)
