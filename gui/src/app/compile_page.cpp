// CompilePage: the overview is HTML built from the detail (every log string escaped); the
// artifact list drives the code view through the session, one request per selection.
#include "compile_page.h"

#include "code_view.h"
#include "graph_view.h"
#include "gui/code_highlighter.h"
#include "gui/compile_tree_model.h"
#include "gui/list_models.h"

#include <QItemSelectionModel>
#include <QLabel>
#include <QListView>
#include <QSplitter>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace gui {

CompilePage::CompilePage(QWidget* parent) : QWidget(parent) {
  overview_ = new QTextBrowser(this);
  overview_->setObjectName(QStringLiteral("compileOverview"));
  overview_->setOpenLinks(false);
  artifacts_ = new QListView(this);
  artifacts_->setObjectName(QStringLiteral("artifactList"));
  model_ = new ArtifactListModel(this);
  artifacts_->setModel(model_);
  artifacts_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  code_ = new CodeView(this);
  code_->setObjectName(QStringLiteral("artifactCode"));

  graph_ = new GraphView(this);
  graph_->setObjectName(QStringLiteral("artifactGraph"));
  // The artifact as text, and the compile's graph dumps drawn (the pass stepper).
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName(QStringLiteral("artifactTabs"));
  tabs_->addTab(code_, tr("Text"));
  tabs_->addTab(graph_, tr("Graph"));

  auto* bottom = new QSplitter(Qt::Horizontal, this);
  bottom->addWidget(artifacts_);
  bottom->addWidget(tabs_);
  bottom->setStretchFactor(1, 4);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->setObjectName(QStringLiteral("compileSplitter"));
  split->addWidget(overview_);
  split->addWidget(bottom);
  split->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);

  connect(artifacts_->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) {
            if (!current.isValid()) {
              return;
            }
            const qint64 id = current.data(ArtifactListModel::ArtifactIdRole).toLongLong();
            if (id != shownArtifact_) {
              Q_EMIT artifactRequested(id, 0);
            }
          });
  connect(graph_, &GraphView::stepRequested, this, [this](qint64 id) {
    if (id != shownArtifact_) {
      Q_EMIT artifactRequested(id, 0);
    }
  });
  // Opening the Graph tab over an artifact that is no graph draws the compile's first dump.
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    if (tabs_->currentWidget() == graph_ && graph_->currentStep() < 0) {
      graph_->goToStep(0);
    }
  });
  connect(graph_, &GraphView::textWanted, this, &CompilePage::artifactTextWanted);
  connect(graph_, &GraphView::nodeLineSelected, this, [this](int line) {
    if (line > 0) {
      code_->goToLine(line);
    }
  });
  clear();
}

void CompilePage::clear() {
  detail_ = {};
  shownArtifact_ = -1;
  model_->setArtifacts({});
  graph_->setCompile({});
  overview_->setHtml(tr("<p>Select a compile in the tree (or on the timeline).</p>"));
  code_->setText(QString(), QString());
}

namespace {
QString esc(const QString& s) {
  return s.toHtmlEscaped();
}

QString list(const QStringList& items) {
  QString out = QStringLiteral("<ul>");
  for (const QString& i : items) {
    out += QStringLiteral("<li><code>%1</code></li>").arg(esc(i));
  }
  return out + QStringLiteral("</ul>");
}
} // namespace

QString CompilePage::overviewHtml(const CompileDetail& d) {
  const CompileSummary& s = d.summary;
  QString h;
  h += QStringLiteral("<h3>%1 <span style='color:%2'>%3</span></h3>")
           .arg(esc(s.label()), CompileTreeModel::outcomeColor(s.outcome).name(),
                esc(outcomeName(s.outcome)));
  // A log without ranks shows no rank at all (never "rank -1").
  QStringList facts;
  if (s.rank >= 0) {
    facts << QStringLiteral("rank %1").arg(s.rank);
  }
  if (!d.location.isEmpty()) {
    facts << QStringLiteral("<code>%1</code>").arg(esc(d.location));
  }
  if (s.durationSeconds >= 0) {
    facts << QStringLiteral("%1 s").arg(s.durationSeconds, 0, 'f', 3);
  }
  h += QStringLiteral("<p>%1</p>").arg(facts.join(QStringLiteral(" &middot; ")));
  if (!d.failType.isEmpty() || !d.failReason.isEmpty()) {
    h += QStringLiteral("<h4 style='color:#c62828'>Failure</h4><p><b>%1</b></p><pre>%2</pre>")
             .arg(esc(d.failType), esc(d.failReason));
  }
  if (!d.artifactNote.isEmpty()) {
    h += QStringLiteral("<h4>Missing artifacts</h4><p>%1</p>").arg(esc(d.artifactNote));
  }
  if (!d.recompileReasons.isEmpty()) {
    h += QStringLiteral("<h4>Recompile reasons (failed guards)</h4>") + list(d.recompileReasons);
  }
  if (!d.restartReasons.isEmpty()) {
    h += QStringLiteral("<h4>Restart / graph-break reasons</h4>") + list(d.restartReasons);
  }
  if (!d.phaseSeconds.isEmpty()) {
    double max = 0;
    for (const auto& [name, secs] : d.phaseSeconds) {
      max = std::max(max, secs);
    }
    h += QStringLiteral("<h4>Compile time</h4><table cellspacing='2'>");
    for (const auto& [name, secs] : d.phaseSeconds) {
      const int bar = max > 0 ? int(200 * secs / max) : 0;
      h += QStringLiteral("<tr><td>%1</td><td align='right'>%2 s</td><td><table "
                          "cellspacing='0' cellpadding='0'><tr><td bgcolor='#64b5f6' "
                          "width='%3' height='10'></td></tr></table></td></tr>")
               .arg(esc(name))
               .arg(secs, 0, 'f', 4)
               .arg(std::max(1, bar));
    }
    h += QStringLiteral("</table>");
  }
  if (!d.userStack.isEmpty()) {
    h += QStringLiteral("<h4>User stack</h4>") + list(d.userStack);
  }
  if (!d.metrics.isEmpty()) {
    h += QStringLiteral("<h4>Metrics</h4><table cellspacing='2'>");
    for (const auto& [key, value] : d.metrics) {
      h += QStringLiteral("<tr><td><code>%1</code></td><td>%2</td></tr>")
               .arg(esc(key), esc(value.left(500)));
    }
    h += QStringLiteral("</table>");
  }
  return h;
}

void CompilePage::setDetail(const CompileDetail& detail) {
  detail_ = detail;
  shownArtifact_ = -1;
  overview_->setHtml(overviewHtml(detail));
  model_->setArtifacts(detail.artifacts);
  graph_->setCompile(detail.artifacts);
  code_->setText(detail.artifacts.isEmpty() ? tr("This compile has no artifacts.") : QString(),
                 QString());
}

void CompilePage::showArtifact(const ArtifactText& artifact, int line) {
  shownArtifact_ = artifact.id;
  code_->setText(artifact.text, artifact.language);
  graph_->showArtifact(artifact);
  selectArtifact(artifact.id);
  if (line > 0) {
    code_->goToLine(line);
  }
}

void CompilePage::selectArtifact(qint64 artifactId) {
  for (int row = 0; row < model_->rowCount(); ++row) {
    const QModelIndex i = model_->index(row);
    if (i.data(ArtifactListModel::ArtifactIdRole).toLongLong() == artifactId) {
      artifacts_->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect);
      return;
    }
  }
}

} // namespace gui
