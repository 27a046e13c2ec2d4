// The main window: the compile tree in a dock on the left, one page per view in tabs, opening
// with progress and cancel in the status bar, errors in a banner, layout and recent files kept
// in QSettings. It owns the IndexSession and routes its answers to the pages.
#pragma once

#include "gui/index_backend.h"
#include "gui/index_types.h"

#include <QMainWindow>

class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTreeView;

namespace gui {

class CompilePage;
class CompileTreeModel;
class DiffPage;
class GraphBreakPage;
class HealthPage;
class IndexSession;
class RecompilePage;
class SearchPage;
class TimelineWidget;

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  explicit MainWindow(BackendFactory factory = defaultBackendFactory(), QWidget* parent = nullptr);
  ~MainWindow() override;

  void openPath(const QString& path);
  // Selects a compile in the tree (which loads it); returns false when it is not in the tree.
  bool selectCompile(qint64 compileId);
  // Opens `artifactId` of `compileId` at `line` on the compile page.
  void openArtifact(qint64 compileId, qint64 artifactId, int line);

  enum Page {
    CompileTab,
    RecompilesTab,
    DiffTab,
    TimelineTab,
    SearchTab,
    HealthTab,
    GraphBreaksTab
  };
  void showPage(Page page);

  IndexSession* session() const { return session_; }
  QTreeView* compileTree() const { return tree_; }
  CompileTreeModel* compileModel() const { return treeModel_; }
  CompilePage* compilePage() const { return compilePage_; }
  RecompilePage* recompilePage() const { return recompilePage_; }
  DiffPage* diffPage() const { return diffPage_; }
  // The compile-time charts: the whole run, and the selected compile.
  TimelineWidget* timeline() const { return timeline_; }
  TimelineWidget* compileChart() const { return compileChart_; }
  SearchPage* searchPage() const { return searchPage_; }
  HealthPage* healthPage() const { return healthPage_; }
  GraphBreakPage* graphBreakPage() const { return graphBreakPage_; }
  QTabWidget* tabs() const { return tabs_; }
  QString errorText() const;

protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

private:
  void buildMenus();
  void rebuildRecentMenu();
  void showError(const QString& message);
  void onTreeCurrentChanged(const QModelIndex& current);
  void onCompileReady(const CompileDetail& detail);
  // Asks for the charts, the graph breaks and the health panel once per opened index.
  void requestSecondaryOnce();
  // Shows a compile's flame chart (asked for once the first screen is done).
  void showCompileChart(qint64 compileId);
  void showCompileChartTitle();

  IndexSession* session_;
  CompileTreeModel* treeModel_;
  QTreeView* tree_;
  QTabWidget* tabs_;
  QLabel* banner_;
  CompilePage* compilePage_;
  RecompilePage* recompilePage_;
  DiffPage* diffPage_;
  TimelineWidget* timeline_;
  TimelineWidget* compileChart_;
  QLabel* compileChartTitle_;
  SearchPage* searchPage_;
  HealthPage* healthPage_;
  GraphBreakPage* graphBreakPage_;
  QProgressBar* progress_;
  QPushButton* cancel_;
  QLabel* status_;
  QMenu* recentMenu_ = nullptr;
  QString openingPath_;
  qint64 wantedCompile_ = -1;
  qint64 wantedArtifact_ = -1;
  int wantedLine_ = 0;
  bool secondaryPending_ = false;
};

} // namespace gui
