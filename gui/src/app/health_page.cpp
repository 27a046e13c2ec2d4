// HealthPage: a sortable counter table over HealthModel and, below it, the lazily filled
// issue table over HealthIssueModel, filtered by the selected counter.
#include "health_page.h"

#include "gui/list_models.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
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
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();

  issues_ = new HealthIssueModel(this);
  issueTable_ = new QTableView(this);
  issueTable_->setObjectName(QStringLiteral("healthIssues"));
  issueTable_->setModel(issues_);
  issueTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
  issueTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  issueTable_->horizontalHeader()->setStretchLastSection(true);
  issueTable_->verticalHeader()->hide();
  issueTable_->setWordWrap(false);
  issuesTitle_ = new QLabel(this);

  auto* lower = new QWidget(this);
  auto* lowerLayout = new QVBoxLayout(lower);
  lowerLayout->setContentsMargins(0, 4, 0, 0);
  lowerLayout->addWidget(issuesTitle_);
  lowerLayout->addWidget(issueTable_, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->setObjectName(QStringLiteral("healthSplit"));
  split->addWidget(table_);
  split->addWidget(lower);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);

  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            issues_->setKindFilter(
                current.isValid()
                    ? current.siblingAtColumn(HealthModel::NameColumn).data().toString()
                    : QString());
            updateTitle();
          });
  connect(issueTable_, &QTableView::activated, this, [this](const QModelIndex& i) {
    const QVariant artifact = i.data(HealthIssueModel::ArtifactIdRole);
    if (artifact.isValid()) {
      Q_EMIT artifactActivated(artifact.toLongLong());
    }
  });
  updateTitle();
}

void HealthPage::setRows(const QList<HealthRow>& rows) {
  model_->setRows(rows);
  // What went wrong first: the largest counts on top.
  table_->sortByColumn(HealthModel::CountColumn, Qt::DescendingOrder);
  table_->resizeColumnsToContents();
}

void HealthPage::setIssues(const QList<HealthIssue>& issues) {
  issues_->setKindFilter(QString());
  issues_->setIssues(issues);
  table_->clearSelection();
  issueTable_->resizeColumnToContents(HealthIssueModel::FileColumn);
  issueTable_->resizeColumnToContents(HealthIssueModel::LineColumn);
  issueTable_->resizeColumnToContents(HealthIssueModel::KindColumn);
  updateTitle();
}

void HealthPage::updateTitle() {
  const QString kind = issues_->kindFilter();
  const int n = int(issues_->issues().size());
  issuesTitle_->setText(kind.isEmpty()
                            ? tr("%n line(s) and item(s) behind the counters (select a counter "
                                 "to list only its own)",
                                 nullptr, n)
                            : tr("%n line(s) and item(s) for %1", nullptr, n).arg(kind));
}

} // namespace gui
