// TimelineLayout and TimelineViewport: lanes come from nesting by time per rank; the viewport
// keeps zoom and pan inside the data so a wheel spin never loses the spans.
#include "gui/timeline_layout.h"

#include <QMap>
#include <algorithm>
#include <numeric>

namespace gui {

void TimelineLayout::setSpans(const QList<TimelineSpan>& spans) {
  spans_ = spans;
  lanes_.assign(size_t(spans_.size()), 0);
  laneRank_.clear();
  laneHeader_.clear();
  laneCount_ = 0;
  startUs_ = 0;
  endUs_ = 0;
  if (spans_.isEmpty()) {
    return;
  }
  startUs_ = spans_[0].startUs;
  endUs_ = spans_[0].startUs + std::max(0.0, spans_[0].durationUs);
  QMap<int, std::vector<int>> byRank;
  for (int i = 0; i < spans_.size(); ++i) {
    TimelineSpan& s = spans_[i];
    s.durationUs = std::max(0.0, s.durationUs);
    startUs_ = std::min(startUs_, s.startUs);
    endUs_ = std::max(endUs_, s.startUs + s.durationUs);
    byRank[s.rank].push_back(i);
  }
  for (auto it = byRank.begin(); it != byRank.end(); ++it) {
    std::vector<int>& idx = it.value();
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
      if (spans_[a].startUs != spans_[b].startUs) {
        return spans_[a].startUs < spans_[b].startUs;
      }
      return spans_[a].durationUs > spans_[b].durationUs; // the outer span first
    });
    std::vector<double> open; // end times of the enclosing spans
    int maxDepth = 0;
    for (int i : idx) {
      const TimelineSpan& s = spans_[i];
      while (!open.empty() && open.back() <= s.startUs) {
        open.pop_back();
      }
      spans_[i].depth = int(open.size());
      maxDepth = std::max(maxDepth, spans_[i].depth);
      open.push_back(s.startUs + s.durationUs);
    }
    const int header = laneCount_;
    laneRank_.push_back(it.key());
    laneHeader_.push_back(true);
    for (int d = 0; d <= maxDepth; ++d) {
      laneRank_.push_back(it.key());
      laneHeader_.push_back(false);
    }
    laneCount_ += maxDepth + 2;
    for (int i : idx) {
      lanes_[size_t(i)] = header + 1 + spans_[i].depth;
    }
  }
}

int TimelineLayout::rankOfLane(int lane) const {
  return lane >= 0 && lane < laneCount_ ? laneRank_[size_t(lane)] : -1;
}

bool TimelineLayout::isHeaderLane(int lane) const {
  return lane >= 0 && lane < laneCount_ && laneHeader_[size_t(lane)];
}

int TimelineLayout::spanAt(double us, int lane, double toleranceUs) const {
  int best = -1;
  for (int i = 0; i < spans_.size(); ++i) {
    if (lanes_[size_t(i)] != lane) {
      continue;
    }
    const TimelineSpan& s = spans_[i];
    if (us >= s.startUs - toleranceUs && us <= s.startUs + s.durationUs + toleranceUs) {
      // Prefer the shortest: on one lane spans do not overlap unless tolerance joins them.
      if (best < 0 || s.durationUs < spans_[best].durationUs) {
        best = i;
      }
    }
  }
  return best;
}

int TimelineLayout::firstSpanOfCompile(qint64 compileId) const {
  for (int i = 0; i < spans_.size(); ++i) {
    if (spans_[i].compileId == compileId) {
      return i;
    }
  }
  return -1;
}

void TimelineViewport::setExtent(double startUs, double endUs) {
  lo_ = startUs;
  hi_ = std::max(endUs, startUs + kMinSpanUs);
  showAll();
}

void TimelineViewport::showAll() {
  t0_ = lo_;
  t1_ = hi_;
}

void TimelineViewport::show(double startUs, double endUs) {
  t0_ = std::min(startUs, endUs);
  t1_ = std::max(startUs, endUs);
  clamp();
}

void TimelineViewport::zoom(double factor, double anchorUs) {
  if (!(factor > 0)) {
    return;
  }
  const double width = (t1_ - t0_) / factor;
  const double rel = t1_ > t0_ ? (anchorUs - t0_) / (t1_ - t0_) : 0.5;
  t0_ = anchorUs - rel * width;
  t1_ = t0_ + width;
  clamp();
}

void TimelineViewport::pan(double deltaUs) {
  t0_ += deltaUs;
  t1_ += deltaUs;
  clamp();
}

void TimelineViewport::clamp() {
  double width = std::clamp(t1_ - t0_, kMinSpanUs, hi_ - lo_);
  if (!(width > 0)) {
    width = kMinSpanUs;
  }
  t0_ = std::clamp(t0_, lo_, std::max(lo_, hi_ - width));
  t1_ = t0_ + width;
}

double TimelineViewport::xForTime(double us, double widthPx) const {
  return (us - t0_) / (t1_ - t0_) * widthPx;
}

double TimelineViewport::timeForX(double x, double widthPx) const {
  return t0_ + x / std::max(1.0, widthPx) * (t1_ - t0_);
}

} // namespace gui
