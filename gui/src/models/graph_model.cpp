// The graph view's data: parse, layout and diff through tlparse's graph API (the same reader and
// layout as `tlparse graph` and the report's graph pages), on a QtConcurrent worker.
#include "gui/graph_model.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QRegularExpression>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <tlparse/graph/fx_graph.h>

namespace gui {

namespace tg = tlparse::graph;

std::shared_ptr<const GraphData> buildGraph(qint64 artifactId, const QString& name,
                                            const QString& text, const QString& previousName,
                                            const QString& previousText,
                                            const tg::LayoutOptions& options) {
  auto d = std::make_shared<GraphData>();
  d->artifactId = artifactId;
  d->name = name;
  d->text = text;
  const QByteArray utf8 = text.toUtf8();
  d->graph = tg::parse_fx_graph(std::string_view(utf8.constData(), size_t(utf8.size())));
  if (d->graph.empty()) {
    d->note = QObject::tr("This artifact holds no FX graph that the reader understands; it is "
                          "shown as text.");
    return d;
  }
  if (d->graph.nodes.size() > options.max_nodes) {
    d->note = QObject::tr("This graph has %1 nodes, more than the %2 drawn; it is shown as text.")
                  .arg(d->graph.nodes.size())
                  .arg(options.max_nodes);
    return d;
  }
  d->layout = tg::layout_graph(d->graph, options);
  if (!previousText.isEmpty()) {
    const QByteArray prev = previousText.toUtf8();
    const tg::FxGraph before =
        tg::parse_fx_graph(std::string_view(prev.constData(), size_t(prev.size())));
    if (!before.empty()) {
      const tg::GraphDiff diff = tg::diff_graphs(before, d->graph);
      d->marks = diff.after;
      d->previousName = previousName;
      d->added = int(diff.added);
      d->removed = int(diff.removed);
      d->changed = int(diff.changed);
      for (size_t i = 0; i < before.nodes.size() && i < diff.before.size(); ++i) {
        if (diff.before[i] == tg::NodeMark::removed) {
          d->removedNodes << QString::fromStdString(before.nodes[i].name);
        }
      }
    }
  }
  return d;
}

QList<int> findGraphNodes(const tg::FxGraph& graph, const QString& query) {
  QList<int> out;
  const QString q = query.trimmed();
  if (q.isEmpty()) {
    return out;
  }
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const tg::FxNode& n = graph.nodes[i];
    if (QString::fromStdString(n.name).contains(q, Qt::CaseInsensitive) ||
        QString::fromStdString(n.target).contains(q, Qt::CaseInsensitive)) {
      out.append(int(i));
    }
  }
  return out;
}

namespace {
// Log text shown in a label: no control character, one line, bounded.
QString shown(const std::string& s, int max = 60) {
  QString t = QString::fromUtf8(s.data(), qsizetype(s.size()));
  for (QChar& c : t) {
    if (c.category() == QChar::Other_Control || c.category() == QChar::Other_Format) {
      c = QChar(0xFFFD);
    }
  }
  if (t.size() > max) {
    t = t.left(max - 1) + QChar(0x2026);
  }
  return t;
}

QString esc(const std::string& s, int max = 2000) {
  return shown(s, max).toHtmlEscaped();
}
} // namespace

QStringList graphNodeLabel(const tg::FxNode& node) {
  QStringList lines;
  for (const std::string& line : tg::node_label(node)) {
    lines << shown(line, 56); // as many characters as the layout sized the box for
  }
  return lines;
}

QString graphNodeDetailsHtml(const tg::FxGraph& graph, int node) {
  if (node < 0 || size_t(node) >= graph.nodes.size()) {
    return QString();
  }
  const tg::FxNode& n = graph.nodes[size_t(node)];
  QString h = QStringLiteral("<h3><code>%1</code></h3><table cellspacing='2'>").arg(esc(n.name));
  auto row = [&h](const QString& key, const std::string& value) {
    if (!value.empty()) {
      h += QStringLiteral("<tr><td><b>%1</b></td><td><code>%2</code></td></tr>")
               .arg(key, esc(value));
    }
  };
  row(QObject::tr("op"), n.op);
  row(QObject::tr("target"), n.target);
  row(QObject::tr("dtype"), n.dtype);
  row(QObject::tr("shape"), n.shape);
  row(QObject::tr("device"), n.device);
  if (n.dtype.empty()) {
    row(QObject::tr("type"), n.type);
  }
  row(QObject::tr("module"), n.module);
  h += QStringLiteral("</table>");
  if (!n.inputs.empty()) {
    h += QObject::tr("<h4>Inputs</h4>") + QStringLiteral("<ul>");
    for (const size_t i : n.inputs) {
      if (i < graph.nodes.size()) {
        h += QStringLiteral("<li><code>%1</code></li>").arg(esc(graph.nodes[i].name));
      }
    }
    h += QStringLiteral("</ul>");
  }
  if (!n.args.empty()) {
    QString args;
    for (const std::string& a : n.args) {
      args += (args.isEmpty() ? QString() : QStringLiteral(", ")) + shown(a, 200);
    }
    h += QObject::tr("<h4>Arguments</h4>") +
         QStringLiteral("<pre>%1</pre>").arg(args.left(4000).toHtmlEscaped());
  }
  if (!n.source.empty()) {
    h += QObject::tr("<h4>Source</h4>") + QStringLiteral("<pre>%1</pre>").arg(esc(n.source));
  }
  return h;
}

int graphNodeLine(const QString& text, const tg::FxNode& node) {
  if (node.name.empty()) {
    return 0;
  }
  const QString name = QString::fromStdString(node.name);
  // "name: type = ..." or "name = ..." in the body; "name" among forward()'s parameters.
  const QRegularExpression assign(
      QStringLiteral("^\\s*%1\\s*[:=]").arg(QRegularExpression::escape(name)));
  const QRegularExpression param(
      QStringLiteral("[(,\\s]%1\\s*[:,)]").arg(QRegularExpression::escape(name)));
  const QStringList lines = text.split(QLatin1Char('\n'));
  int paramLine = 0;
  for (int i = 0; i < lines.size(); ++i) {
    if (assign.match(lines[i]).hasMatch()) {
      return i + 1;
    }
    if (paramLine == 0 && node.is_input() && lines[i].contains(QLatin1String("def forward")) &&
        param.match(lines[i]).hasMatch()) {
      paramLine = i + 1;
    }
  }
  if (node.is_output()) {
    for (int i = lines.size() - 1; i >= 0; --i) {
      if (lines[i].trimmed().startsWith(QLatin1String("return"))) {
        return i + 1;
      }
    }
  }
  return paramLine;
}

QList<ArtifactRef> graphSteps(const QList<ArtifactRef>& artifacts) {
  QList<ArtifactRef> out;
  for (const ArtifactRef& a : artifacts) {
    if (tg::is_graph_artifact(a.name.toStdString())) {
      out.append(a);
    }
  }
  return out;
}

namespace {
QHash<QString, QStringList> stringLists(const QJsonValue& v) {
  QHash<QString, QStringList> out;
  const QJsonObject o = v.toObject();
  for (auto it = o.begin(); it != o.end(); ++it) {
    QStringList items;
    for (const QJsonValue& item : it.value().toArray()) {
      if (item.isString()) {
        items << item.toString();
      }
    }
    out.insert(it.key(), items);
  }
  return out;
}
} // namespace

KernelMap parseKernelMap(const QString& json) {
  KernelMap m;
  const QJsonDocument doc = QJsonDocument::fromJson(json.toUtf8());
  if (!doc.isObject()) {
    return m;
  }
  const QJsonObject o = doc.object();
  m.kernelToNodes = stringLists(o.value(QStringLiteral("cppCodeToPost")));
  m.nodeToKernels = stringLists(o.value(QStringLiteral("postToCppCode")));
  // Either direction alone is enough: fill the other from it.
  if (m.nodeToKernels.isEmpty()) {
    for (auto it = m.kernelToNodes.begin(); it != m.kernelToNodes.end(); ++it) {
      for (const QString& n : it.value()) {
        m.nodeToKernels[n].append(it.key());
      }
    }
  }
  if (m.kernelToNodes.isEmpty()) {
    for (auto it = m.nodeToKernels.begin(); it != m.nodeToKernels.end(); ++it) {
      for (const QString& k : it.value()) {
        m.kernelToNodes[k].append(it.key());
      }
    }
  }
  m.kernels = m.kernelToNodes.keys();
  std::sort(m.kernels.begin(), m.kernels.end());
  return m;
}

GraphLayouter::GraphLayouter(QObject* parent)
    : QObject(parent), latest_(std::make_shared<std::atomic<quint64>>(0)) {}

GraphLayouter::~GraphLayouter() {
  // A running job finishes on the pool; its result goes nowhere.
  ++*latest_;
}

void GraphLayouter::request(qint64 artifactId, const QString& name, const QString& text,
                            const QString& previousName, const QString& previousText) {
  const quint64 serial = ++*latest_;
  ++pending_;
  QPointer<GraphLayouter> self(this);
  auto latest = latest_;
  const tg::LayoutOptions opts = options;
  // The job holds copies only: the layouter may be gone when it ends.
  (void)QtConcurrent::run([=]() {
    std::shared_ptr<const GraphData> data;
    if (latest->load() == serial) { // skipped when overtaken before it started
      data = buildGraph(artifactId, name, text, previousName, previousText, opts);
    }
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [self, serial, data] {
          if (GraphLayouter* l = self.data()) {
            l->finish(serial, data);
          }
        },
        Qt::QueuedConnection);
  });
}

void GraphLayouter::finish(quint64 serial, std::shared_ptr<const GraphData> data) {
  --pending_;
  if (data && latest_->load() == serial) {
    Q_EMIT ready(std::move(data));
  }
}

void GraphLayouter::cancel() {
  ++*latest_;
}

} // namespace gui
