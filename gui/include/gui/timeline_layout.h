// Where each chromium span of each rank sits on the timeline, and which part of time is in
// view. Pure geometry without widgets, so zoom, pan and hit-testing are tested headless; the
// timeline widget only paints what this says.
#pragma once

#include "gui/index_types.h"

#include <QList>
#include <vector>

namespace gui {

class TimelineLayout {
public:
  // Spans may come in any order; nesting depth is recomputed per rank from the times, since
  // B/E pairs and X events nest by time whatever depth a source claims.
  void setSpans(const QList<TimelineSpan>& spans);

  const QList<TimelineSpan>& spans() const { return spans_; }
  bool isEmpty() const { return spans_.isEmpty(); }
  double startUs() const { return startUs_; }
  double endUs() const { return endUs_; }

  // Lanes: each rank has a header lane, then one lane per nesting depth.
  int laneCount() const { return laneCount_; }
  int laneOf(int spanIndex) const { return lanes_[size_t(spanIndex)]; }
  // The rank shown on `lane` and whether the lane is the rank's header.
  int rankOfLane(int lane) const;
  bool isHeaderLane(int lane) const;

  // The innermost span on `lane` covering time `us` (within `toleranceUs`), or -1.
  int spanAt(double us, int lane, double toleranceUs = 0) const;
  // The first span that belongs to `compileId`, or -1.
  int firstSpanOfCompile(qint64 compileId) const;

private:
  QList<TimelineSpan> spans_;
  std::vector<int> lanes_;
  std::vector<int> laneRank_;
  std::vector<bool> laneHeader_;
  double startUs_ = 0;
  double endUs_ = 0;
  int laneCount_ = 0;
};

// The visible window of time, zoomed about a point and panned; never smaller than
// `minSpanUs` and never outside the data's extent.
class TimelineViewport {
public:
  void setExtent(double startUs, double endUs);
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

} // namespace gui
