// TimelineWidget: paints only spans that intersect the visible window and are at least a pixel
// wide (narrower ones are merged into a tick), so a trace of thousands of spans stays fluid.
#include "timeline_widget.h"

#include "gui/untrusted_text.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

namespace gui {

namespace {
QColor colorFor(const QString& name) {
  // A stable colour per span name, so a phase keeps its colour across ranks and zooms.
  const uint h = qHash(name);
  return QColor::fromHsv(int(h % 360), 90 + int((h >> 9) % 60), 210);
}
} // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setMinimumHeight(120);
}

void TimelineWidget::setSpans(const QList<TimelineSpan>& spans) {
  layout_.setSpans(spans);
  viewport_.setExtent(layout_.startUs(), layout_.endUs());
  selectedCompile_ = -1;
  updateGeometry();
  update();
}

QSize TimelineWidget::sizeHint() const {
  return {800, std::max(120, layout_.laneCount() * kLaneHeight + 24)};
}

double TimelineWidget::plotWidth() const {
  return std::max(1, width() - kLabelWidth);
}

void TimelineWidget::selectCompile(qint64 compileId) {
  selectedCompile_ = compileId;
  const int first = layout_.firstSpanOfCompile(compileId);
  if (first >= 0) {
    const TimelineSpan& s = layout_.spans()[first];
    const double visible = viewport_.visibleEndUs() - viewport_.visibleStartUs();
    if (s.startUs < viewport_.visibleStartUs() || s.startUs > viewport_.visibleEndUs()) {
      viewport_.show(s.startUs - visible / 4, s.startUs - visible / 4 + visible);
    }
  }
  update();
}

QRect TimelineWidget::rectOfSpan(int i) const {
  if (i < 0 || i >= layout_.spans().size()) {
    return {};
  }
  const TimelineSpan& s = layout_.spans()[i];
  const double w = plotWidth();
  const double x0 = viewport_.xForTime(s.startUs, w);
  const double x1 = viewport_.xForTime(s.startUs + s.durationUs, w);
  if (x1 < 0 || x0 > w) {
    return {};
  }
  const int left = kLabelWidth + int(std::max(0.0, x0));
  const int right = kLabelWidth + int(std::min(w, std::max(x1, x0 + 1)));
  return QRect(left, layout_.laneOf(i) * kLaneHeight + 1, std::max(1, right - left),
               kLaneHeight - 2);
}

int TimelineWidget::spanAtPosition(const QPoint& pos) const {
  if (pos.x() < kLabelWidth) {
    return -1;
  }
  const int lane = pos.y() / kLaneHeight;
  const double w = plotWidth();
  const double us = viewport_.timeForX(pos.x() - kLabelWidth, w);
  const double tolerance = 2.0 * (viewport_.visibleEndUs() - viewport_.visibleStartUs()) / w;
  return layout_.spanAt(us, lane, tolerance);
}

void TimelineWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Base));
  if (layout_.isEmpty()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("No chromium events in this index."));
    return;
  }
  for (int lane = 0; lane < layout_.laneCount(); ++lane) {
    if (layout_.isHeaderLane(lane)) {
      const QRect r(0, lane * kLaneHeight, width(), kLaneHeight);
      p.fillRect(r, palette().color(QPalette::AlternateBase));
      p.setPen(palette().color(QPalette::Text));
      const int rank = layout_.rankOfLane(lane);
      p.drawText(r.adjusted(4, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft,
                 rank < 0 ? tr("this process") : tr("rank %1").arg(rank));
    }
  }
  p.setClipRect(QRect(kLabelWidth, 0, width() - kLabelWidth, height()));
  const QFontMetrics fm = p.fontMetrics();
  for (int i = 0; i < layout_.spans().size(); ++i) {
    const TimelineSpan& s = layout_.spans()[i];
    if (s.startUs + s.durationUs < viewport_.visibleStartUs() ||
        s.startUs > viewport_.visibleEndUs()) {
      continue;
    }
    const QRect r = rectOfSpan(i);
    if (r.isNull()) {
      continue;
    }
    const bool selected = selectedCompile_ >= 0 && s.compileId == selectedCompile_;
    p.fillRect(r, colorFor(s.name));
    if (selected) {
      p.setPen(QPen(palette().color(QPalette::Highlight), 2));
      p.drawRect(r.adjusted(1, 1, -1, -1));
    }
    if (r.width() > 30) {
      p.setPen(Qt::black);
      p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                 fm.elidedText(s.name, Qt::ElideRight, r.width() - 5));
    }
  }
  p.setClipping(false);
  // A time axis at the bottom: the visible window in ms.
  p.setPen(palette().color(QPalette::PlaceholderText));
  const double span = viewport_.visibleEndUs() - viewport_.visibleStartUs();
  p.drawText(QRect(kLabelWidth, height() - 18, width() - kLabelWidth, 16), Qt::AlignRight,
             tr("%1 ms visible, from +%2 ms")
                 .arg(span / 1000.0, 0, 'f', 3)
                 .arg((viewport_.visibleStartUs() - layout_.startUs()) / 1000.0, 0, 'f', 3));
}

void TimelineWidget::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) {
    return;
  }
  const double anchor = viewport_.timeForX(event->position().x() - kLabelWidth, plotWidth());
  viewport_.zoom(std::pow(1.25, steps), anchor);
  update();
  event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    dragging_ = true;
    moved_ = false;
    dragStart_ = event->pos();
    dragT0_ = viewport_.visibleStartUs();
  }
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
  if (!dragging_) {
    return;
  }
  const int dx = event->pos().x() - dragStart_.x();
  if (std::abs(dx) > 3) {
    moved_ = true;
  }
  if (moved_) {
    const double perPx = (viewport_.visibleEndUs() - viewport_.visibleStartUs()) / plotWidth();
    viewport_.pan(dragT0_ - dx * perPx - viewport_.visibleStartUs());
    update();
  }
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !dragging_) {
    return;
  }
  dragging_ = false;
  if (moved_) {
    return;
  }
  const int i = spanAtPosition(event->pos());
  if (i >= 0 && layout_.spans()[i].compileId >= 0) {
    selectedCompile_ = layout_.spans()[i].compileId;
    update();
    Q_EMIT compileClicked(selectedCompile_);
  }
}

void TimelineWidget::keyPressEvent(QKeyEvent* event) {
  const double visible = viewport_.visibleEndUs() - viewport_.visibleStartUs();
  const double centre = viewport_.visibleStartUs() + visible / 2;
  switch (event->key()) {
  case Qt::Key_Plus:
  case Qt::Key_Equal:
    viewport_.zoom(1.5, centre);
    break;
  case Qt::Key_Minus:
    viewport_.zoom(1 / 1.5, centre);
    break;
  case Qt::Key_Left:
    viewport_.pan(-visible / 10);
    break;
  case Qt::Key_Right:
    viewport_.pan(visible / 10);
    break;
  case Qt::Key_Home:
  case Qt::Key_0:
    viewport_.showAll();
    break;
  default:
    QWidget::keyPressEvent(event);
    return;
  }
  update();
}

bool TimelineWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int i = spanAtPosition(help->pos());
    if (i >= 0) {
      const TimelineSpan& s = layout_.spans()[i];
      QToolTip::showText(
          help->globalPos(),
          plainToolTip(tr("%1\n%2 ms").arg(s.name).arg(s.durationUs / 1000.0, 0, 'f', 3)), this);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(event);
}

} // namespace gui
