// TimelineWidget: paints the model's bars (at most a few thousand: the layout drops what a
// pixel cannot show), and re-lays the spans it has at once when the view moves, so zoom and pan
// stay fluid while the index is asked for the new window's spans.
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

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setMinimumHeight(120);
}

void TimelineWidget::reset(qint64 compileId) {
  model_.setCompile(compileId);
  model_.clear();
  updateGeometry();
  update();
}

void TimelineWidget::requestWindow() {
  Q_EMIT chartRequested(model_.nextRequest(plotWidth()));
}

void TimelineWidget::setSlice(const ChartSlice& slice) {
  if (!model_.setSlice(slice)) {
    return;
  }
  model_.relayout(plotWidth());
  updateGeometry();
  update();
}

QSize TimelineWidget::sizeHint() const {
  return {800, std::max(120, kAxisHeight + model_.rowCount() * kRowHeight + kFooterHeight)};
}

double TimelineWidget::plotWidth() const {
  return std::max(1, width());
}

void TimelineWidget::viewportChanged() {
  model_.relayout(plotWidth());
  update();
  requestWindow();
}

void TimelineWidget::selectCompile(qint64 compileId) {
  selectedCompile_ = compileId;
  update();
}

void TimelineWidget::reveal(double startUs, double endUs) {
  TimelineViewport& v = model_.viewport();
  if (!model_.hasSlice() || (startUs >= v.visibleStartUs() && endUs <= v.visibleEndUs())) {
    return;
  }
  const double visible = std::max(v.visibleEndUs() - v.visibleStartUs(), endUs - startUs);
  const double start = startUs - (visible - (endUs - startUs)) / 2;
  v.show(start, start + visible);
  viewportChanged();
}

QRect TimelineWidget::rectOfBar(int i) const {
  if (i < 0 || i >= model_.bars().size()) {
    return {};
  }
  const ChartModel::Bar& b = model_.bars()[i];
  const int left = int(std::floor(b.x));
  const int right = std::max(left + 1, int(std::ceil(b.x + b.width)));
  return QRect(left, kAxisHeight + b.row * kRowHeight + 1, right - left, kRowHeight - 2);
}

int TimelineWidget::barAtPosition(const QPoint& pos) const {
  if (pos.y() < kAxisHeight) {
    return -1;
  }
  return model_.barAt(pos.x(), (pos.y() - kAxisHeight) / kRowHeight);
}

QString TimelineWidget::toolTipOfBar(int i) const {
  if (i < 0 || i >= model_.bars().size()) {
    return {};
  }
  const ChartSpan& s = model_.spanOf(model_.bars()[i]);
  const QString duration =
      s.unclosed ? tr("never closed") : tr("%1 ms").arg(s.durationUs / 1000.0, 0, 'f', 3);
  return tr("%1\n%2\n%3").arg(s.name, s.compileLabel, duration);
}

void TimelineWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Base));
  if (!model_.hasSlice()) {
    return;
  }
  if (model_.slice().bands.isEmpty()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter,
               model_.compile() < 0 ? tr("No chromium events in this index.")
                                    : tr("No chromium events for this compile."));
    return;
  }
  const QColor grid = palette().color(QPalette::Midlight);
  for (const ChartModel::Tick& t : model_.ticks()) {
    p.setPen(grid);
    p.drawLine(QPointF(t.x, 0), QPointF(t.x, height() - kFooterHeight));
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(QPointF(t.x + 2, 12), t.label);
  }
  for (const ChartModel::Band& b : model_.bands()) {
    const QRect r(0, kAxisHeight + b.headerRow * kRowHeight, width(), kRowHeight);
    p.fillRect(r, palette().color(QPalette::AlternateBase));
    p.setPen(palette().color(QPalette::Text));
    QString label = b.rank < 0 ? tr("this process") : tr("rank %1").arg(b.rank);
    if (b.truncated) {
      label += tr(" (more spans than one view holds: zoom in to see them all)");
    }
    p.drawText(r.adjusted(4, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
  }
  const QFontMetrics fm = p.fontMetrics();
  const QColor highlight = palette().color(QPalette::Highlight);
  for (int i = 0; i < model_.bars().size(); ++i) {
    const ChartModel::Bar& b = model_.bars()[i];
    const ChartSpan& s = model_.spanOf(b);
    const QRect r = rectOfBar(i);
    QColor fill = b.colour;
    if (b.unclosed) {
      fill.setAlpha(100);
    }
    p.fillRect(r, fill);
    if (b.unclosed) {
      p.setPen(QPen(QColor(0xcf, 0x22, 0x2e), 1));
      p.drawRect(r.adjusted(0, 0, -1, -1));
    }
    if (selectedCompile_ >= 0 && s.compileId == selectedCompile_) {
      p.setPen(QPen(highlight, 2));
      p.drawRect(r.adjusted(1, 1, -1, -1));
    }
    if (r.width() > 30) {
      p.setPen(Qt::black);
      p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                 fm.elidedText(s.name, Qt::ElideRight, r.width() - 5));
    }
  }
  // The footer: the window in view, and what is not drawn.
  const TimelineViewport& v = model_.viewport();
  QString footer = tr("%1 ms in view, from +%2 ms")
                       .arg((v.visibleEndUs() - v.visibleStartUs()) / 1000.0, 0, 'f', 3)
                       .arg((v.visibleStartUs() - v.extentStartUs()) / 1000.0, 0, 'f', 3);
  if (model_.hiddenCount() > 0) {
    footer += tr(" · %1 span(s) too short to see at this zoom").arg(model_.hiddenCount());
  }
  p.setPen(palette().color(QPalette::PlaceholderText));
  p.drawText(QRect(4, height() - kFooterHeight, width() - 8, kFooterHeight),
             Qt::AlignVCenter | Qt::AlignRight, footer);
}

void TimelineWidget::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (model_.hasSlice()) {
    viewportChanged(); // a wider chart shows shorter spans
  }
}

void TimelineWidget::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0 || !model_.hasSlice()) {
    return;
  }
  const double anchor = model_.viewport().timeForX(event->position().x(), plotWidth());
  model_.viewport().zoom(std::pow(1.25, steps), anchor);
  viewportChanged();
  event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    dragging_ = true;
    moved_ = false;
    dragStart_ = event->pos();
    dragT0_ = model_.viewport().visibleStartUs();
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
    TimelineViewport& v = model_.viewport();
    const double perPx = (v.visibleEndUs() - v.visibleStartUs()) / plotWidth();
    v.pan(dragT0_ - dx * perPx - v.visibleStartUs());
    viewportChanged();
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
  const int i = barAtPosition(event->pos());
  if (i < 0) {
    return;
  }
  const qint64 id = model_.spanOf(model_.bars()[i]).compileId;
  if (id >= 0) {
    selectedCompile_ = id;
    update();
    Q_EMIT compileClicked(id);
  }
}

void TimelineWidget::keyPressEvent(QKeyEvent* event) {
  TimelineViewport& v = model_.viewport();
  const double visible = v.visibleEndUs() - v.visibleStartUs();
  const double centre = v.visibleStartUs() + visible / 2;
  switch (event->key()) {
  case Qt::Key_Plus:
  case Qt::Key_Equal:
    v.zoom(1.5, centre);
    break;
  case Qt::Key_Minus:
    v.zoom(1 / 1.5, centre);
    break;
  case Qt::Key_Left:
    v.pan(-visible / 10);
    break;
  case Qt::Key_Right:
    v.pan(visible / 10);
    break;
  case Qt::Key_Home:
  case Qt::Key_0:
    v.showAll();
    break;
  default:
    QWidget::keyPressEvent(event);
    return;
  }
  if (model_.hasSlice()) {
    viewportChanged();
  }
}

bool TimelineWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int i = barAtPosition(help->pos());
    if (i >= 0) {
      QToolTip::showText(help->globalPos(), plainToolTip(toolTipOfBar(i)), this);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(event);
}

} // namespace gui
