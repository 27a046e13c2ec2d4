// The data-health panel: what the ingest counted as bad or odd (counters on top), and below
// them every line or item behind a counter: bad lines with their line number and what was wrong
// (truncated JSON, MD5 mismatch, binary garbage, overlong lines...), unknown event kinds with
// their first line, artifacts with no compile. Selecting a counter lists only its lines.
#pragma once

#include "gui/index_types.h"

#include <QWidget>

class QLabel;
class QTableView;

namespace gui {

class HealthIssueModel;
class HealthModel;

class HealthPage : public QWidget {
  Q_OBJECT
public:
  explicit HealthPage(QWidget* parent = nullptr);
  void setRows(const QList<HealthRow>& rows);
  void setIssues(const QList<HealthIssue>& issues);
  HealthModel* model() const { return model_; }
  HealthIssueModel* issueModel() const { return issues_; }
  QTableView* counterTable() const { return table_; }
  QTableView* issueTable() const { return issueTable_; }

Q_SIGNALS:
  // An artifact with no compile was activated: open it on its own.
  void artifactActivated(qint64 artifactId);

private:
  void updateTitle();

  QTableView* table_;
  HealthModel* model_;
  QLabel* issuesTitle_;
  QTableView* issueTable_;
  HealthIssueModel* issues_;
};

} // namespace gui
