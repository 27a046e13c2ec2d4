// GraphView: one item per node (box and label painted together) and one path per edge, built
// from the worker's layout; labels and colours are the report's SVG's (node_label, node_style),
// so a node looks the same in the browser and here.
#include "graph_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyleOptionGraphicsItem>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cmath>

namespace gui {

namespace tg = tlparse::graph;

namespace {

// The report's SVG's colours (tlparse::graph::node_style), as Qt draws them.
struct NodeStyle {
  QColor fill, stroke;
  double radius = 3, width = 1;
  bool doubleBorder = false, dashed = false;
};

NodeStyle styleOf(const tg::FxNode& node, tg::NodeMark mark) {
  const tg::NodeStyle s = tg::node_style(node, mark);
  return {QColor(QLatin1String(s.fill)),
          QColor(QLatin1String(s.stroke)),
          s.rx,
          s.stroke_width,
          s.double_border,
          s.dash != nullptr};
}

const QColor kHighlight(0x1565c0);
const QColor kSelected(0xd81b60);
const QColor kEdge(0x66758f);

} // namespace

// One node: its box and label lines, painted in one item (5,000 nodes are 5,000 items).
class GraphNodeItem : public QGraphicsItem {
public:
  GraphNodeItem(int index, const QRectF& box, QStringList lines, NodeStyle style)
      : index_(index), box_(box), lines_(std::move(lines)), style_(std::move(style)) {
    setData(0, index);
  }
  QRectF boundingRect() const override { return box_.adjusted(-4, -4, 4, 4); }
  void setHighlight(bool on) {
    highlight_ = on;
    update();
  }
  void setSelectedNode(bool on) {
    selected_ = on;
    update();
  }
  int index() const { return index_; }

  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
    const double lod = option->levelOfDetailFromTransform(p->worldTransform());
    QPen pen(style_.stroke, style_.width);
    if (style_.dashed) {
      pen.setStyle(Qt::DashLine);
    }
    if (highlight_ || selected_) {
      pen = QPen(selected_ ? kSelected : kHighlight, 4);
    }
    p->setPen(pen);
    p->setBrush(style_.fill);
    p->drawRoundedRect(box_, style_.radius, style_.radius);
    if (style_.doubleBorder) {
      p->setBrush(Qt::NoBrush);
      p->setPen(QPen(style_.stroke, 1));
      p->drawRect(box_.adjusted(3, 3, -3, -3));
    }
    if (lod < 0.35) {
      return; // text would be unreadable: boxes only
    }
    QFont font(QStringLiteral("monospace"));
    font.setStyleHint(QFont::Monospace);
    font.setPixelSize(12); // the SVG's, for which the layout sized the box
    p->setPen(Qt::black);
    constexpr double kLineHeight = 15, kPadding = 8;
    for (qsizetype k = 0; k < lines_.size(); ++k) {
      font.setBold(k == 0);
      p->setFont(font);
      const QRectF r(box_.x() + 2, box_.y() + kPadding / 2 + double(k) * kLineHeight,
                     box_.width() - 4, kLineHeight);
      p->drawText(r, Qt::AlignCenter | Qt::TextSingleLine,
                  p->fontMetrics().elidedText(lines_[k], Qt::ElideRight, int(r.width())));
    }
  }

private:
  int index_;
  QRectF box_;
  QStringList lines_;
  NodeStyle style_;
  bool highlight_ = false, selected_ = false;
};

GraphCanvas::GraphCanvas(QWidget* parent) : QGraphicsView(parent) {
  setScene(new QGraphicsScene(this));
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setRenderHint(QPainter::Antialiasing);
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  setBackgroundBrush(Qt::white);
  setFocusPolicy(Qt::StrongFocus);
}

void GraphCanvas::clearGraph() {
  scene()->clear();
  items_.clear();
  highlighted_.clear();
  selected_ = -1;
  data_.reset();
}

void GraphCanvas::setGraph(std::shared_ptr<const GraphData> data) {
  clearGraph();
  data_ = std::move(data);
  if (!data_ || !data_->drawn()) {
    return;
  }
  const tg::FxGraph& g = data_->graph;
  const tg::Layout& l = data_->layout;
  QGraphicsScene* s = scene();
  s->setSceneRect(-20, -20, l.width + 40, l.height + 40);
  for (const tg::Layout::Cluster& c : l.clusters) {
    auto* r =
        s->addRect(c.box.x, c.box.y, c.box.w, c.box.h, QPen(QColor(0x9aa5b8), 1, Qt::DashLine));
    r->setZValue(-2);
  }
  const QPen edgePen(kEdge, 1.2);
  for (const tg::Layout::Edge& e : l.edges) {
    if (e.points.size() < 2) {
      continue;
    }
    QPainterPath path(QPointF(e.points[0].x, e.points[0].y));
    if (e.bezier && (e.points.size() - 1) % 3 == 0) {
      for (size_t i = 1; i + 2 < e.points.size(); i += 3) {
        path.cubicTo(e.points[i].x, e.points[i].y, e.points[i + 1].x, e.points[i + 1].y,
                     e.points[i + 2].x, e.points[i + 2].y);
      }
    } else {
      for (size_t i = 1; i < e.points.size(); ++i) {
        path.lineTo(e.points[i].x, e.points[i].y);
      }
    }
    // The arrow head, along the last segment.
    const QPointF tip(e.points.back().x, e.points.back().y);
    const QPointF from(e.points[e.points.size() - 2].x, e.points[e.points.size() - 2].y);
    const double angle = std::atan2(tip.y() - from.y(), tip.x() - from.x());
    path.moveTo(tip);
    path.lineTo(tip - QPointF(7 * std::cos(angle - 0.4), 7 * std::sin(angle - 0.4)));
    path.moveTo(tip);
    path.lineTo(tip - QPointF(7 * std::cos(angle + 0.4), 7 * std::sin(angle + 0.4)));
    auto* item = s->addPath(path, edgePen);
    item->setZValue(-1);
  }
  items_.reserve(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size() && i < l.nodes.size(); ++i) {
    const tg::Layout::Box& b = l.nodes[i];
    const tg::NodeMark mark = i < data_->marks.size() ? data_->marks[i] : tg::NodeMark::none;
    auto* item = new GraphNodeItem(int(i), QRectF(b.x, b.y, b.w, b.h), graphNodeLabel(g.nodes[i]),
                                   styleOf(g.nodes[i], mark));
    const std::string& src = g.nodes[i].source;
    if (!src.empty()) {
      item->setToolTip(QString::fromStdString(src).left(1000).toHtmlEscaped());
    }
    s->addItem(item);
    items_.push_back(item);
  }
}

void GraphCanvas::setHighlighted(const QList<int>& nodes) {
  for (const int n : highlighted_) {
    if (n >= 0 && size_t(n) < items_.size()) {
      items_[size_t(n)]->setHighlight(false);
    }
  }
  highlighted_ = nodes;
  for (const int n : highlighted_) {
    if (n >= 0 && size_t(n) < items_.size()) {
      items_[size_t(n)]->setHighlight(true);
    }
  }
}

void GraphCanvas::setSelectedNode(int node) {
  if (selected_ >= 0 && size_t(selected_) < items_.size()) {
    items_[size_t(selected_)]->setSelectedNode(false);
  }
  selected_ = node;
  if (selected_ >= 0 && size_t(selected_) < items_.size()) {
    items_[size_t(selected_)]->setSelectedNode(true);
  }
}

void GraphCanvas::centerOnNode(int node) {
  if (node >= 0 && size_t(node) < items_.size()) {
    centerOn(items_[size_t(node)]);
  }
}

double GraphCanvas::zoom() const {
  return transform().m11();
}

void GraphCanvas::zoomBy(double factor) {
  const double next = zoom() * factor;
  if (next < 0.01 || next > 20) {
    return;
  }
  scale(factor, factor);
}

void GraphCanvas::fit() {
  if (!items_.empty()) {
    fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    // A tall graph fitted whole is unreadable: never below the scale where boxes stay boxes.
    if (zoom() < 0.05) {
      setTransform(QTransform::fromScale(0.05, 0.05));
    }
  }
}

void GraphCanvas::wheelEvent(QWheelEvent* event) {
  const int delta = event->angleDelta().y();
  if (delta != 0) {
    zoomBy(std::pow(1.0015, delta));
  }
  event->accept();
}

void GraphCanvas::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
  case Qt::Key_Plus:
  case Qt::Key_Equal:
    zoomBy(1.25);
    return;
  case Qt::Key_Minus:
    zoomBy(0.8);
    return;
  case Qt::Key_0:
  case Qt::Key_Home:
    fit();
    return;
  default:
    QGraphicsView::keyPressEvent(event);
  }
}

void GraphCanvas::mousePressEvent(QMouseEvent* event) {
  pressPos_ = event->pos();
  QGraphicsView::mousePressEvent(event);
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent* event) {
  QGraphicsView::mouseReleaseEvent(event);
  if ((event->pos() - pressPos_).manhattanLength() > 4) {
    return; // a drag, not a click
  }
  for (QGraphicsItem* item : items(event->pos())) {
    if (auto* node = dynamic_cast<GraphNodeItem*>(item)) {
      Q_EMIT nodeClicked(node->index());
      return;
    }
  }
}

GraphView::GraphView(QWidget* parent) : QWidget(parent) {
  layouter_ = new GraphLayouter(this);
  connect(layouter_, &GraphLayouter::ready, this, &GraphView::onReady);

  stepCombo_ = new QComboBox(this);
  stepCombo_->setObjectName(QStringLiteral("graphStepCombo"));
  stepCombo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  stepCombo_->setMinimumContentsLength(24);
  prev_ = new QToolButton(this);
  prev_->setObjectName(QStringLiteral("graphPrevStep"));
  prev_->setText(tr("< Previous"));
  prev_->setToolTip(tr("The previous graph dump of this compile"));
  next_ = new QToolButton(this);
  next_->setObjectName(QStringLiteral("graphNextStep"));
  next_->setText(tr("Next >"));
  next_->setToolTip(tr("The next graph dump of this compile"));
  diff_ = new QCheckBox(tr("Diff with previous"), this);
  diff_->setObjectName(QStringLiteral("graphDiff"));
  diff_->setChecked(true);
  diff_->setToolTip(tr("Colour the nodes added (green) or changed (yellow) since the previous "
                       "step"));
  search_ = new QLineEdit(this);
  search_->setObjectName(QStringLiteral("graphSearch"));
  search_->setPlaceholderText(tr("Find node (name or target)"));
  search_->setClearButtonEnabled(true);
  auto* zoomOut = new QToolButton(this);
  zoomOut->setText(QStringLiteral("\u2212"));
  zoomOut->setToolTip(tr("Zoom out (-)"));
  auto* zoomIn = new QToolButton(this);
  zoomIn->setText(QStringLiteral("+"));
  zoomIn->setToolTip(tr("Zoom in (+)"));
  auto* fit = new QToolButton(this);
  fit->setText(tr("Fit"));
  fit->setToolTip(tr("Show the whole graph (0)"));
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("graphStatus"));
  status_->setTextFormat(Qt::PlainText);
  status_->setWordWrap(true);
  // A long status wraps; it never widens the page.
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

  auto* bar = new QHBoxLayout;
  bar->addWidget(prev_);
  bar->addWidget(stepCombo_);
  bar->addWidget(next_);
  bar->addWidget(diff_);
  bar->addStretch(1);
  // The search and zoom on a row of their own: the page shares its width with the artifact list.
  auto* findBar = new QHBoxLayout;
  findBar->addWidget(search_, 1);
  findBar->addWidget(zoomOut);
  findBar->addWidget(zoomIn);
  findBar->addWidget(fit);

  canvas_ = new GraphCanvas(this);
  canvas_->setObjectName(QStringLiteral("graphCanvas"));
  auto* textPage = new QWidget(this);
  textNote_ = new QLabel(textPage);
  textNote_->setTextFormat(Qt::PlainText);
  textNote_->setWordWrap(true);
  text_ = new QPlainTextEdit(textPage);
  text_->setObjectName(QStringLiteral("graphText"));
  text_->setReadOnly(true);
  text_->setLineWrapMode(QPlainTextEdit::NoWrap);
  auto* textLayout = new QVBoxLayout(textPage);
  textLayout->setContentsMargins(0, 0, 0, 0);
  textLayout->addWidget(textNote_);
  textLayout->addWidget(text_);
  stack_ = new QStackedWidget(this);
  stack_->addWidget(canvas_);
  stack_->addWidget(textPage);

  details_ = new QTextBrowser(this);
  details_->setObjectName(QStringLiteral("graphNodeDetails"));
  details_->setOpenLinks(false);
  kernelList_ = new QListWidget(this);
  kernelList_->setObjectName(QStringLiteral("graphKernelList"));
  kernelList_->setToolTip(tr("Inductor's kernels (provenance tracking): select one to highlight "
                             "the post-grad nodes it fused"));
  auto* side = new QSplitter(Qt::Vertical, this);
  side->addWidget(details_);
  auto* kernelBox = new QWidget(this);
  auto* kernelLayout = new QVBoxLayout(kernelBox);
  kernelLayout->setContentsMargins(0, 0, 0, 0);
  kernelLayout->addWidget(new QLabel(tr("Kernels"), kernelBox));
  kernelLayout->addWidget(kernelList_);
  side->addWidget(kernelBox);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(stack_);
  split->addWidget(side);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 1);
  split->setSizes({700, 280});

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(bar);
  layout->addLayout(findBar);
  layout->addWidget(status_);
  layout->addWidget(split, 1);

  connect(prev_, &QToolButton::clicked, this, [this] { goToStep(step_ - 1); });
  connect(next_, &QToolButton::clicked, this, [this] { goToStep(step_ + 1); });
  connect(stepCombo_, &QComboBox::activated, this, [this](int i) { goToStep(i); });
  connect(diff_, &QCheckBox::toggled, this, [this] { startLayout(); });
  connect(search_, &QLineEdit::textChanged, this, &GraphView::search);
  connect(search_, &QLineEdit::returnPressed, this, [this] {
    // Enter steps through the hits.
    if (!data_) {
      return;
    }
    const QList<int> hits = findGraphNodes(data_->graph, search_->text());
    if (!hits.isEmpty()) {
      const int at = int(hits.indexOf(selected_));
      selectNode(hits[(at + 1) % hits.size()]);
    }
  });
  connect(zoomIn, &QToolButton::clicked, canvas_, [this] { canvas_->zoomBy(1.25); });
  connect(zoomOut, &QToolButton::clicked, canvas_, [this] { canvas_->zoomBy(0.8); });
  connect(fit, &QToolButton::clicked, canvas_, &GraphCanvas::fit);
  connect(canvas_, &GraphCanvas::nodeClicked, this, &GraphView::selectNode);
  connect(kernelList_, &QListWidget::currentTextChanged, this, &GraphView::selectKernel);

  setCompile({});
}

void GraphView::setCompile(const QList<ArtifactRef>& artifacts) {
  layouter_->cancel();
  steps_ = graphSteps(artifacts);
  texts_.clear();
  kernels_ = {};
  provenanceId_ = -1;
  step_ = -1;
  data_.reset();
  summary_.clear();
  selected_ = -1;
  canvas_->clearGraph();
  details_->clear();
  kernelList_->clear();
  stepCombo_->clear();
  for (int i = 0; i < steps_.size(); ++i) {
    stepCombo_->addItem(QStringLiteral("%1. %2").arg(i + 1).arg(steps_[i].name));
  }
  for (const ArtifactRef& a : artifacts) {
    if (a.name == QLatin1String(kProvenanceArtifact)) {
      provenanceId_ = a.id;
      Q_EMIT textWanted(a.id);
    }
  }
  showText(QString(), steps_.isEmpty() ? tr("This compile has no graph artifacts.")
                                       : tr("Choose a graph dump above."));
  updateStepControls();
}

void GraphView::showArtifact(const ArtifactText& artifact) {
  for (int i = 0; i < steps_.size(); ++i) {
    if (steps_[i].id == artifact.id) {
      texts_.insert(artifact.id, artifact.text);
      step_ = i;
      updateStepControls();
      startLayout();
      return;
    }
  }
}

void GraphView::setArtifactText(const ArtifactText& artifact) {
  if (artifact.id == provenanceId_) {
    kernels_ = parseKernelMap(artifact.text);
    fillKernelList(kernels_.kernels);
    return;
  }
  for (const ArtifactRef& s : steps_) {
    if (s.id == artifact.id) {
      texts_.insert(artifact.id, artifact.text);
      startLayout(); // the previous step it waited for
      return;
    }
  }
}

void GraphView::goToStep(int step) {
  if (step < 0 || step >= steps_.size() || step == step_) {
    return;
  }
  step_ = step;
  updateStepControls();
  if (texts_.contains(steps_[step].id)) {
    startLayout();
  }
  Q_EMIT stepRequested(steps_[step].id);
}

void GraphView::startLayout() {
  if (step_ < 0 || step_ >= steps_.size() || !texts_.contains(steps_[step_].id)) {
    return;
  }
  const ArtifactRef& cur = steps_[step_];
  QString prevName, prevText;
  if (diff_->isChecked() && step_ > 0) {
    const ArtifactRef& prev = steps_[step_ - 1];
    if (!texts_.contains(prev.id)) {
      status_->setText(tr("Reading %1 to diff against…").arg(prev.name));
      Q_EMIT textWanted(prev.id);
      return; // setArtifactText comes back here
    }
    prevName = prev.name;
    prevText = texts_.value(prev.id);
  }
  if (data_ && data_->artifactId == cur.id && data_->previousName == prevName &&
      !layouter_->busy()) {
    return; // already drawn so
  }
  status_->setText(tr("Laying out %1…").arg(cur.name));
  layouter_->request(cur.id, cur.name, texts_.value(cur.id), prevName, prevText);
}

void GraphView::onReady(std::shared_ptr<const GraphData> data) {
  if (step_ < 0 || step_ >= steps_.size() || steps_[step_].id != data->artifactId) {
    return; // the person moved on
  }
  data_ = data;
  selected_ = -1;
  details_->clear();
  if (!data->drawn()) {
    summary_.clear();
    canvas_->clearGraph();
    showText(data->text, data->note);
  } else {
    canvas_->setGraph(data);
    stack_->setCurrentWidget(canvas_);
    canvas_->fit();
    QString s = tr("%1: %2 nodes, %3 edges (%4 layout)")
                    .arg(data->name)
                    .arg(data->nodeCount())
                    .arg(data->graph.edge_count())
                    .arg(QString::fromStdString(data->layout.engine));
    if (!data->previousName.isEmpty()) {
      s += tr(" · against %1: %2 added, %3 removed, %4 changed")
               .arg(data->previousName)
               .arg(data->added)
               .arg(data->removed)
               .arg(data->changed);
    }
    summary_ = s;
    status_->setText(s);
    if (!data->removedNodes.isEmpty()) {
      // Removed nodes are not in this graph: the side panel names them until a node is chosen.
      QString h = tr("<h4>Removed since %1</h4>").arg(data->previousName.toHtmlEscaped()) +
                  QStringLiteral("<ul>");
      for (const QString& n : data->removedNodes.mid(0, 500)) {
        h += QStringLiteral("<li><code>%1</code></li>").arg(n.left(200).toHtmlEscaped());
      }
      details_->setHtml(h + QStringLiteral("</ul>"));
    }
    if (!search_->text().isEmpty()) {
      search(search_->text());
    }
  }
  Q_EMIT graphShown();
}

void GraphView::showText(const QString& text, const QString& note) {
  text_->setPlainText(text);
  textNote_->setText(note);
  textNote_->setVisible(!note.isEmpty());
  status_->setText(note);
  stack_->setCurrentIndex(1);
}

void GraphView::updateStepControls() {
  stepCombo_->setCurrentIndex(step_);
  prev_->setEnabled(step_ > 0);
  next_->setEnabled(step_ >= 0 && step_ + 1 < steps_.size());
  stepCombo_->setEnabled(!steps_.isEmpty());
}

void GraphView::search(const QString& query) {
  if (!data_ || !data_->drawn()) {
    return;
  }
  const QList<int> hits = findGraphNodes(data_->graph, query);
  canvas_->setHighlighted(hits);
  if (!hits.isEmpty()) {
    canvas_->centerOnNode(hits.first());
  }
  status_->setText(
      query.isEmpty() ? summary_ : summary_ + tr(" · %n node(s) match", nullptr, int(hits.size())));
}

void GraphView::selectNode(int node) {
  if (!data_ || node < 0 || node >= data_->nodeCount()) {
    return;
  }
  selected_ = node;
  canvas_->setSelectedNode(node);
  canvas_->centerOnNode(node);
  const tg::FxNode& n = data_->graph.nodes[size_t(node)];
  QString html = graphNodeDetailsHtml(data_->graph, node);
  const QStringList kernels = kernels_.nodeToKernels.value(QString::fromStdString(n.name));
  if (!kernels.isEmpty()) {
    html += tr("<h4>Kernels</h4>") + QStringLiteral("<ul>");
    for (const QString& k : kernels) {
      html += QStringLiteral("<li><code>%1</code></li>").arg(k.toHtmlEscaped());
    }
    html += QStringLiteral("</ul>");
  }
  details_->setHtml(html);
  Q_EMIT nodeLineSelected(graphNodeLine(data_->text, n));
}

void GraphView::selectKernel(const QString& kernel) {
  if (!data_ || kernel.isEmpty()) {
    return;
  }
  const QStringList names = kernels_.kernelToNodes.value(kernel);
  QList<int> nodes;
  for (size_t i = 0; i < data_->graph.nodes.size(); ++i) {
    if (names.contains(QString::fromStdString(data_->graph.nodes[i].name))) {
      nodes.append(int(i));
    }
  }
  canvas_->setHighlighted(nodes);
  if (!nodes.isEmpty()) {
    canvas_->centerOnNode(nodes.first());
  }
  status_->setText(summary_ +
                   tr(" · %1 fused %n of its nodes", nullptr, int(nodes.size())).arg(kernel));
}

void GraphView::fillKernelList(const QStringList& kernels) {
  kernelList_->clear();
  for (const QString& k : kernels) {
    kernelList_->addItem(k);
  }
}

} // namespace gui
