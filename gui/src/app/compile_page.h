// The compile page: an overview of one compile (time breakdown, metrics, failure, restart and
// recompile reasons, the user stack) above its artifacts, each opened in the code view.
#pragma once

#include "gui/index_types.h"

#include <QWidget>

class QListView;
class QTabWidget;
class QTextBrowser;

namespace gui {

class ArtifactListModel;
class CodeView;
class GraphView;

class CompilePage : public QWidget {
  Q_OBJECT
public:
  explicit CompilePage(QWidget* parent = nullptr);

  void clear();
  void setDetail(const CompileDetail& detail);
  // Shows an artifact's text; `line` > 0 scrolls to it.
  void showArtifact(const ArtifactText& artifact, int line);
  // Selects an artifact in the list (without asking for it again).
  void selectArtifact(qint64 artifactId);

  qint64 compileId() const { return detail_.summary.id; }
  qint64 artifactId() const { return shownArtifact_; }
  const CompileDetail& detail() const { return detail_; }
  QTextBrowser* overview() const { return overview_; }
  QListView* artifactList() const { return artifacts_; }
  CodeView* codeView() const { return code_; }
  GraphView* graphView() const { return graph_; }
  QTabWidget* artifactTabs() const { return tabs_; }
  ArtifactListModel* artifactModel() const { return model_; }

  static QString overviewHtml(const CompileDetail& detail);

Q_SIGNALS:
  void artifactRequested(qint64 artifactId, int line);
  // The graph tab needs an artifact's text it does not show (IndexSession::requestArtifactText).
  void artifactTextWanted(qint64 artifactId);

private:
  CompileDetail detail_;
  qint64 shownArtifact_ = -1;
  QTextBrowser* overview_;
  QListView* artifacts_;
  ArtifactListModel* model_;
  CodeView* code_;
  GraphView* graph_;
  QTabWidget* tabs_;
};

} // namespace gui
