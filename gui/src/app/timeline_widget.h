// The compile-time chart's widget (the Timeline page shows two: the whole run, one band per
// rank, and the selected compile's flame chart). It paints what its ChartModel lays out and asks
// the index, through chartRequested, for the spans of each new window: wheel zooms about the
// mouse, drag pans, +/-/arrows/Home work from the keyboard; hovering a bar shows its phase,
// compile and duration; clicking one selects its compile.
#pragma once

#include "gui/chart_model.h"

#include <QWidget>

namespace gui {

class TimelineWidget : public QWidget {
  Q_OBJECT
public:
  explicit TimelineWidget(QWidget* parent = nullptr);

  ChartModel& model() { return model_; }
  const ChartModel& model() const { return model_; }
  // Empties the chart and shows `compileId`'s spans (-1: the whole run) once asked for.
  void reset(qint64 compileId = -1);
  // Asks for the spans of the window in view (chartRequested).
  void requestWindow();
  // An answer of the index; ignored when stale.
  void setSlice(const ChartSlice& slice);
  // Outlines the bars of a compile.
  void selectCompile(qint64 compileId);
  qint64 selectedCompile() const { return selectedCompile_; }
  // Pans (keeping the zoom, unless the range is wider) so that [startUs, endUs] is in view.
  void reveal(double startUs, double endUs);
  // The bar under a widget position, or -1; where a bar is drawn.
  int barAtPosition(const QPoint& pos) const;
  QRect rectOfBar(int bar) const;
  // The text of the tooltip over a bar.
  QString toolTipOfBar(int bar) const;

  static constexpr int kAxisHeight = 18;
  static constexpr int kRowHeight = 20;
  static constexpr int kFooterHeight = 20;

Q_SIGNALS:
  void compileClicked(qint64 compileId);
  void chartRequested(const gui::ChartRequest& request);

protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  bool event(QEvent* event) override;
  QSize sizeHint() const override;

private:
  double plotWidth() const;
  // After the viewport moved: lay out again now, and ask for the new window's spans.
  void viewportChanged();

  ChartModel model_;
  qint64 selectedCompile_ = -1;
  QPoint dragStart_;
  double dragT0_ = 0;
  bool dragging_ = false;
  bool moved_ = false;
};

} // namespace gui
