// The graph view's data (no widgets): a graph artifact's text parsed by tlparse's FX graph reader
// and laid out by `tlparse::graph::layout_graph` (Graphviz with capped effort or the layered
// layout), the diff against the previous pass, node search and details, the pass stepper's list
// of a compile's graph dumps, and the kernels-to-nodes map of Inductor's provenance artifact.
// Parsing and layout run off the GUI thread (GraphLayouter); a result the view no longer wants
// is dropped.
#pragma once

#include "gui/index_types.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <memory>
#include <tlparse/graph/graph_view.h>

namespace gui {

// One graph ready to draw: parsed, laid out and, when a previous step was given, diffed.
struct GraphData {
  qint64 artifactId = -1;
  QString name;                  // the artifact's name
  QString text;                  // the artifact's text, shown when the graph does not draw
  QString note;                  // why the graph is shown as text ("" when it is drawn)
  tlparse::graph::FxGraph graph; // empty when the text holds no forward()
  tlparse::graph::Layout layout; // empty when not drawn
  std::vector<tlparse::graph::NodeMark> marks; // by node; empty without a diff
  QString previousName;                        // the step diffed against, "" for none
  int added = 0, removed = 0, changed = 0;
  QStringList removedNodes; // the previous step's nodes that are gone (not drawn: listed)

  bool drawn() const { return !layout.nodes.empty(); }
  int nodeCount() const { return int(graph.nodes.size()); }
};

// Parses, lays out and diffs; pure, safe on any thread. `previousText` empty: no diff.
std::shared_ptr<const GraphData> buildGraph(qint64 artifactId, const QString& name,
                                            const QString& text,
                                            const QString& previousName = QString(),
                                            const QString& previousText = QString(),
                                            const tlparse::graph::LayoutOptions& options = {});

// The nodes whose name or target contains `query` (case-insensitive), in printed order.
QList<int> findGraphNodes(const tlparse::graph::FxGraph& graph, const QString& query);

// A node's label lines as the SVG has them (tlparse::graph::node_label): name, what it does,
// dtype and shape; control characters replaced, cut as the layout's boxes are.
QStringList graphNodeLabel(const tlparse::graph::FxNode& node);

// A node's details for the side panel, as rich text with every log string escaped: name, op,
// target, dtype, shape, device, inputs, the user's source line, the module.
QString graphNodeDetailsHtml(const tlparse::graph::FxGraph& graph, int node);

// The 1-based line of the artifact's text where `node` is printed (its assignment, or the
// forward() parameter), 0 when not found.
int graphNodeLine(const QString& text, const tlparse::graph::FxNode& node);

// The pass stepper's steps: the compile's graph artifacts (tlparse::graph::is_graph_artifact),
// in the order given (the log's).
QList<ArtifactRef> graphSteps(const QList<ArtifactRef>& artifacts);

// Inductor's provenance (inductor_provenance_tracking_node_mappings): which post-grad nodes
// each kernel fused, and the kernels of each node. Text that is not that JSON gives an empty
// map.
struct KernelMap {
  QHash<QString, QStringList> kernelToNodes; // cppCodeToPost
  QHash<QString, QStringList> nodeToKernels; // postToCppCode
  QStringList kernels;                       // sorted
  bool empty() const { return kernelToNodes.isEmpty() && nodeToKernels.isEmpty(); }
};
KernelMap parseKernelMap(const QString& json);
inline constexpr const char* kProvenanceArtifact = "inductor_provenance_tracking_node_mappings";

// Runs buildGraph on a worker thread (QtConcurrent). Only the latest request is answered:
// `ready` is emitted for it alone, and a request overtaken before it started is skipped.
class GraphLayouter : public QObject {
  Q_OBJECT
public:
  explicit GraphLayouter(QObject* parent = nullptr);
  ~GraphLayouter() override;

  void request(qint64 artifactId, const QString& name, const QString& text,
               const QString& previousName = QString(), const QString& previousText = QString());
  // Drops the request in flight: its result will not be emitted.
  void cancel();
  bool busy() const { return pending_ > 0; }

  tlparse::graph::LayoutOptions options;

Q_SIGNALS:
  void ready(std::shared_ptr<const gui::GraphData> data);

private:
  void finish(quint64 serial, std::shared_ptr<const GraphData> data);

  std::shared_ptr<std::atomic<quint64>> latest_;
  int pending_ = 0;
};

} // namespace gui
