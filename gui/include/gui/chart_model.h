// The compile-time chart of the timeline page, without widgets: the window of time in view
// (zoom and pan), the spans the index sent for it, and where each is drawn. Where a bar goes is
// tlparse::answers::layout_chart's, the layout the report's SVG flame charts use
// (tlparse/answers/compile_time_chart.h): this class only stacks one band per rank and turns
// the result into Qt values, so zoom, pan, hit-testing and selection are tested headless and the
// widget only paints what this says.
#pragma once

#include "gui/index_types.h"

#include <QColor>
#include <QList>
#include <QPair>
#include <QString>

namespace gui {

// The visible window of time, zoomed about a point and panned; never smaller than
// `kMinSpanUs` and never outside the data's extent.
class TimelineViewport {
public:
  void setExtent(double startUs, double endUs);
  double extentStartUs() const { return lo_; }
  double extentEndUs() const { return hi_; }
  double visibleStartUs() const { return t0_; }
  double visibleEndUs() const { return t1_; }
  // factor > 1 zooms in; `anchorUs` keeps its place on screen.
  void zoom(double factor, double anchorUs);
  void pan(double deltaUs);
  void showAll();
  void show(double startUs, double endUs);
  // Maps between time and a pixel x in [0, widthPx).
  double xForTime(double us, double widthPx) const;
  double timeForX(double x, double widthPx) const;

  static constexpr double kMinSpanUs = 1.0;

private:
  void clamp();
  double lo_ = 0, hi_ = 1;
  double t0_ = 0, t1_ = 1;
};

class ChartModel {
public:
  // A drawn span: `band` and `span` index bands() and that band's slice spans.
  struct Bar {
    int band = -1;
    int span = -1;
    double x = 0; // pixels from the plot's left edge
    double width = 0;
    int row = 0; // row of the whole chart (each band starts with its header row)
    bool unclosed = false;
    QColor colour;
  };
  struct Tick {
    double x = 0;
    QString label;
  };
  struct Band {
    int rank = -1;
    int headerRow = 0; // the row naming the rank; its spans follow
    bool truncated = false;
  };

  // Forgets everything: the next answer's extent becomes the viewport's.
  void clear();
  // Which compile this chart shows (-1: the whole run); clears the chart when it changes.
  void setCompile(qint64 compileId);
  qint64 compile() const { return compileId_; }
  // The request for the window in view, `widthPx` wide, with a new serial.
  ChartRequest nextRequest(double widthPx);
  // Takes an answer of this chart newer than the one shown; false when it is stale.
  bool setSlice(const ChartSlice& slice);
  // Lays the spans out again for the viewport's window, `widthPx` wide.
  void relayout(double widthPx);

  bool hasSlice() const { return hasSlice_; }
  bool isEmpty() const { return bars_.isEmpty(); }
  const ChartSlice& slice() const { return slice_; }
  TimelineViewport& viewport() { return viewport_; }
  const TimelineViewport& viewport() const { return viewport_; }

  const QList<Band>& bands() const { return bands_; }
  const QList<Bar>& bars() const { return bars_; }
  const QList<Tick>& ticks() const { return ticks_; }
  int rowCount() const { return rows_; }
  // Spans in the window that are not drawn (too short, too deep, past the limits).
  qint64 hiddenCount() const { return hidden_; }
  bool truncated() const;
  const ChartSpan& spanOf(const Bar& bar) const;

  // The bar at pixel x of `row`, within `tolerancePx`; the narrowest when several; -1 if none.
  int barAt(double x, int row, double tolerancePx = 2) const;
  // The first bar of a compile-directory entry, -1 when none is drawn.
  int firstBarOfCompile(qint64 compileId) const;
  // The first span of a compile in the slice (drawn or not), as {band, span}; {-1, -1} if none.
  QPair<int, int> firstSpanOfCompile(qint64 compileId) const;

  // The colour of a phase, the same as in the report's charts.
  static QColor colourOf(const QString& phase);

private:
  TimelineViewport viewport_;
  ChartSlice slice_;
  bool hasSlice_ = false;
  qint64 compileId_ = -1;
  quint64 serial_ = 0;         // of the latest request
  quint64 acceptedSerial_ = 0; // of the answer shown
  QList<Band> bands_;
  QList<Bar> bars_;
  QList<Tick> ticks_;
  int rows_ = 0;
  qint64 hidden_ = 0;
};

} // namespace gui
