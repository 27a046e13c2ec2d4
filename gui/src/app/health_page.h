// The data-health panel: what the ingest counted as bad or odd (bad lines, MD5 failures,
// unknown event kinds, artifacts with no compile), so a short report is never a mystery.
#pragma once

#include "gui/index_types.h"

#include <QWidget>

class QTableView;

namespace gui {

class HealthModel;

class HealthPage : public QWidget {
  Q_OBJECT
public:
  explicit HealthPage(QWidget* parent = nullptr);
  void setRows(const QList<HealthRow>& rows);
  HealthModel* model() const { return model_; }

private:
  QTableView* table_;
  HealthModel* model_;
};

} // namespace gui
