// The graph-break summary: the log's distinct graph breaks (the read API's graph_break_summary),
// most frequent first, with where in the user's code each happened and why. Selecting one shows
// its whole reason, its user stack and the compiles it occurred in; activating a compile (or a
// row: its first compile) opens that compile.
#pragma once

#include "gui/index_types.h"

#include <QWidget>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QTableView;

namespace gui {

class GraphBreakModel;

class GraphBreakPage : public QWidget {
  Q_OBJECT
public:
  explicit GraphBreakPage(QWidget* parent = nullptr);
  void clear();
  void setRows(const QList<GraphBreakRow>& rows);
  GraphBreakModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  QListWidget* compileList() const { return compiles_; }
  QPlainTextEdit* detail() const { return detail_; }

Q_SIGNALS:
  void compileActivated(qint64 compileId);

private:
  void showRow(int row);

  QLabel* title_;
  QTableView* table_;
  GraphBreakModel* model_;
  QPlainTextEdit* detail_;
  QListWidget* compiles_;
};

} // namespace gui
