// HealthPage: a sortable table over HealthModel.
#include "health_page.h"

#include "gui/list_models.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace gui {

HealthPage::HealthPage(QWidget* parent) : QWidget(parent) {
  model_ = new HealthModel(this);
  auto* proxy = new QSortFilterProxyModel(this);
  proxy->setSourceModel(model_);
  table_ = new QTableView(this);
  table_->setObjectName(QStringLiteral("healthTable"));
  table_->setModel(proxy);
  table_->setSortingEnabled(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(table_);
}

void HealthPage::setRows(const QList<HealthRow>& rows) {
  model_->setRows(rows);
  table_->resizeColumnsToContents();
}

} // namespace gui
