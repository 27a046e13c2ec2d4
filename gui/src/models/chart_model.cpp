// ChartModel and TimelineViewport: the viewport keeps zoom and pan inside the data so a wheel
// spin never loses the spans; the bars are answers::layout_chart's, band by band.
#include "gui/chart_model.h"

#include "tlparse/answers/compile_time_chart.h"

#include <algorithm>
#include <cmath>

namespace gui {

namespace ta = tlparse::answers;

void ChartModel::clear() {
  slice_ = {};
  hasSlice_ = false;
  bands_.clear();
  bars_.clear();
  ticks_.clear();
  rows_ = 0;
  hidden_ = 0;
  viewport_ = {};
  acceptedSerial_ = serial_; // answers to what was asked before are stale
}

void ChartModel::setCompile(qint64 compileId) {
  if (compileId != compileId_) {
    compileId_ = compileId;
    clear();
  }
}

ChartRequest ChartModel::nextRequest(double widthPx) {
  ChartRequest r;
  r.compileId = compileId_;
  if (hasSlice_) {
    r.startUs = viewport_.visibleStartUs();
    r.endUs = viewport_.visibleEndUs();
  } // else: the whole extent, which the answer says
  r.widthPx = std::max(1.0, widthPx);
  r.serial = ++serial_;
  return r;
}

bool ChartModel::setSlice(const ChartSlice& slice) {
  if (slice.request.compileId != compileId_ || slice.request.serial <= acceptedSerial_) {
    return false;
  }
  acceptedSerial_ = slice.request.serial;
  if (!hasSlice_) {
    viewport_.setExtent(slice.extentStartUs, slice.extentEndUs);
    if (slice.request.endUs > slice.request.startUs) {
      viewport_.show(slice.request.startUs, slice.request.endUs);
    }
  }
  slice_ = slice;
  hasSlice_ = true;
  return true;
}

void ChartModel::relayout(double widthPx) {
  bands_.clear();
  bars_.clear();
  ticks_.clear();
  rows_ = 0;
  hidden_ = 0;
  if (!hasSlice_) {
    return;
  }
  ta::ChartWindow window;
  window.start_us = viewport_.visibleStartUs();
  window.end_us = viewport_.visibleEndUs();
  window.width_px = std::max(1.0, widthPx);
  window.origin_us = slice_.extentStartUs;
  window.run_end_us = slice_.runEndUs;
  std::vector<ta::ChartInterval> intervals;
  for (int b = 0; b < slice_.bands.size(); ++b) {
    const ChartBand& band = slice_.bands[b];
    intervals.clear();
    intervals.reserve(size_t(band.spans.size()));
    for (const ChartSpan& s : band.spans) {
      intervals.push_back(
          {s.startUs, s.unclosed ? std::nullopt : std::optional<double>(s.durationUs)});
    }
    const ta::ChartLayout layout = ta::layout_chart(intervals, window);
    if (b == 0) {
      for (const ta::ChartTick& t : layout.ticks) {
        ticks_.append({t.x, QString::fromStdString(t.label)});
      }
    }
    const int header = rows_;
    bands_.append({band.rank, header, band.truncated});
    for (const ta::ChartBar& bar : layout.bars) {
      const ChartSpan& s = band.spans[qsizetype(bar.span)];
      bars_.append({b, int(bar.span), bar.x, bar.width, header + 1 + bar.row, bar.unclosed,
                    colourOf(s.name)});
    }
    hidden_ += qint64(layout.hidden);
    rows_ += 1 + std::max(layout.rows, 1);
  }
}

bool ChartModel::truncated() const {
  return std::any_of(bands_.begin(), bands_.end(), [](const Band& b) { return b.truncated; });
}

const ChartSpan& ChartModel::spanOf(const Bar& bar) const {
  return slice_.bands[bar.band].spans[bar.span];
}

int ChartModel::barAt(double x, int row, double tolerancePx) const {
  int best = -1;
  for (int i = 0; i < bars_.size(); ++i) {
    const Bar& b = bars_[i];
    if (b.row != row || x < b.x - tolerancePx || x > b.x + b.width + tolerancePx) {
      continue;
    }
    // Bars of one row do not overlap; within the tolerance the narrowest wins.
    if (best < 0 || b.width < bars_[best].width) {
      best = i;
    }
  }
  return best;
}

int ChartModel::firstBarOfCompile(qint64 compileId) const {
  for (int i = 0; i < bars_.size(); ++i) {
    if (spanOf(bars_[i]).compileId == compileId) {
      return i;
    }
  }
  return -1;
}

QPair<int, int> ChartModel::firstSpanOfCompile(qint64 compileId) const {
  for (int b = 0; b < slice_.bands.size(); ++b) {
    const QList<ChartSpan>& spans = slice_.bands[b].spans;
    for (int i = 0; i < spans.size(); ++i) {
      if (spans[i].compileId == compileId) {
        return {b, i};
      }
    }
  }
  return {-1, -1};
}

QColor ChartModel::colourOf(const QString& phase) {
  const ta::PhaseColour c = ta::phase_colour(phase.toStdString());
  return QColor::fromHsl(c.hue, c.saturation * 255 / 100, c.lightness * 255 / 100);
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
