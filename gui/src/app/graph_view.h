// The compile page's graph tab: a compile's graph dumps in log order (the pass stepper: previous
// / next, each step diffed against the one before), the selected one drawn on a QGraphicsScene
// from tlparse's layout (no SVG), zoom, pan, search, node details, and Inductor's kernels mapped
// to the post-grad nodes they fused. Parsing and layout run on a worker (GraphLayouter).
#pragma once

#include "gui/graph_model.h"
#include "gui/index_types.h"

#include <QGraphicsView>
#include <QHash>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QStackedWidget;
class QTextBrowser;
class QToolButton;

namespace gui {

class GraphNodeItem;

// The drawing: wheel zooms about the mouse, + / - zoom, 0 fits, drag pans, a click selects a node.
class GraphCanvas : public QGraphicsView {
  Q_OBJECT
public:
  explicit GraphCanvas(QWidget* parent = nullptr);

  void setGraph(std::shared_ptr<const GraphData> data);
  void clearGraph();
  // Highlights these nodes (search hits, a kernel's nodes); an empty list clears.
  void setHighlighted(const QList<int>& nodes);
  void setSelectedNode(int node);
  void centerOnNode(int node);
  void zoomBy(double factor);
  void fit();
  int nodeItemCount() const { return int(items_.size()); }
  double zoom() const;

Q_SIGNALS:
  void nodeClicked(int node);

protected:
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;

private:
  std::shared_ptr<const GraphData> data_;
  std::vector<GraphNodeItem*> items_;
  QList<int> highlighted_;
  int selected_ = -1;
  QPoint pressPos_;
};

class GraphView : public QWidget {
  Q_OBJECT
public:
  explicit GraphView(QWidget* parent = nullptr);

  // A new compile: its artifacts give the steps (and the provenance artifact, if any).
  void setCompile(const QList<ArtifactRef>& artifacts);
  // The artifact the compile page shows; a graph step is drawn.
  void showArtifact(const ArtifactText& artifact);
  // An artifact's text asked for with textWanted (a previous step, the provenance map).
  void setArtifactText(const ArtifactText& artifact);

  const QList<ArtifactRef>& steps() const { return steps_; }
  int currentStep() const { return step_; }
  std::shared_ptr<const GraphData> graph() const { return data_; }
  GraphCanvas* canvas() const { return canvas_; }
  const KernelMap& kernels() const { return kernels_; }
  bool layoutPending() const { return layouter_->busy(); }
  int selectedNode() const { return selected_; }

  void goToStep(int step);
  void search(const QString& query);
  void selectNode(int node);
  void selectKernel(const QString& kernel);

Q_SIGNALS:
  // The compile page opens this artifact (its text view follows).
  void stepRequested(qint64 artifactId);
  // The view needs this artifact's text without showing it (setArtifactText answers).
  void textWanted(qint64 artifactId);
  // A node was selected: its line in the artifact's text (0: unknown).
  void nodeLineSelected(int line);
  // A layout was drawn (tests wait on it).
  void graphShown();

private:
  void startLayout();
  void onReady(std::shared_ptr<const GraphData> data);
  void updateStepControls();
  void showText(const QString& text, const QString& note);
  void fillKernelList(const QStringList& kernels);

  GraphLayouter* layouter_;
  QList<ArtifactRef> steps_;
  int step_ = -1;
  qint64 provenanceId_ = -1;
  QHash<qint64, QString> texts_; // step texts of this compile
  KernelMap kernels_;
  std::shared_ptr<const GraphData> data_;
  QString summary_; // the status line of the graph drawn
  int selected_ = -1;

  QComboBox* stepCombo_;
  QToolButton* prev_;
  QToolButton* next_;
  QCheckBox* diff_;
  QLineEdit* search_;
  QLabel* status_;
  QStackedWidget* stack_;
  GraphCanvas* canvas_;
  QLabel* textNote_;
  QPlainTextEdit* text_;
  QTextBrowser* details_;
  QListWidget* kernelList_;
};

} // namespace gui
