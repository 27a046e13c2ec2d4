// The zoomable timeline of chromium events, one band per rank. Wheel zooms about the mouse,
// drag pans, +/-/arrows/Home work from the keyboard; clicking a span selects its compile.
#pragma once

#include "gui/timeline_layout.h"

#include <QWidget>

namespace gui {

class TimelineWidget : public QWidget {
  Q_OBJECT
public:
  explicit TimelineWidget(QWidget* parent = nullptr);

  void setSpans(const QList<TimelineSpan>& spans);
  const TimelineLayout& layout() const { return layout_; }
  TimelineViewport& viewport() { return viewport_; }
  // Highlights the spans of a compile and brings the first into view.
  void selectCompile(qint64 compileId);
  qint64 selectedCompile() const { return selectedCompile_; }
  // The span under a widget position, or -1.
  int spanAtPosition(const QPoint& pos) const;
  // Where the first span of a compile is drawn (for tests and tooltips); null when not shown.
  QRect rectOfSpan(int spanIndex) const;

  static constexpr int kLaneHeight = 20;
  static constexpr int kLabelWidth = 80;

Q_SIGNALS:
  void compileClicked(qint64 compileId);

protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  bool event(QEvent* event) override;
  QSize sizeHint() const override;

private:
  double plotWidth() const;

  TimelineLayout layout_;
  TimelineViewport viewport_;
  qint64 selectedCompile_ = -1;
  QPoint dragStart_;
  double dragT0_ = 0;
  bool dragging_ = false;
  bool moved_ = false;
};

} // namespace gui
