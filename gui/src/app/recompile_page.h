// The recompile explorer: a frame's compiles in order, each with the guard that failed; pick
// two (Ctrl+click, or the first and the selected one) and diff their graphs and guards.
#pragma once

#include "gui/index_types.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace gui {

class RecompileModel;

class RecompilePage : public QWidget {
  Q_OBJECT
public:
  explicit RecompilePage(QWidget* parent = nullptr);

  void clear();
  void setFrame(int rank, int frameId, const QString& location);
  void setRows(int rank, int frameId, const QList<RecompileRow>& rows);
  int rank() const { return rank_; }
  int frameId() const { return frameId_; }
  QTableView* table() const { return table_; }
  RecompileModel* model() const { return model_; }
  // The heading: the frame, its rank and location, how many compiles (plain text).
  QString title() const;
  // The two compiles the diff button would compare, or {-1, -1}.
  QPair<qint64, qint64> diffPair() const;

Q_SIGNALS:
  void compileActivated(qint64 compileId);
  void diffRequested(qint64 leftCompileId, qint64 rightCompileId);

private:
  void updateButton();

  int rank_ = -2;
  int frameId_ = -2;
  QLabel* title_;
  QTableView* table_;
  RecompileModel* model_;
  QPushButton* diffButton_;
};

} // namespace gui
