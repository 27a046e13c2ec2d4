// RecompilePage: a table over RecompileModel; the diff pair is the two selected rows, or the
// selected row against the one before it, which is the usual question ("what changed?").
#include "recompile_page.h"

#include "gui/list_models.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

namespace gui {

RecompilePage::RecompilePage(QWidget* parent) : QWidget(parent) {
  title_ = new QLabel(this);
  title_->setWordWrap(true);
  title_->setTextFormat(Qt::PlainText);
  model_ = new RecompileModel(this);
  table_ = new QTableView(this);
  table_->setObjectName(QStringLiteral("recompileTable"));
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  table_->setWordWrap(false);
  diffButton_ = new QPushButton(tr("&Diff graphs and guards"), this);
  diffButton_->setObjectName(QStringLiteral("diffButton"));
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(title_);
  layout->addWidget(table_, 1);
  layout->addWidget(diffButton_, 0, Qt::AlignRight);

  connect(table_, &QTableView::activated, this, [this](const QModelIndex& i) {
    Q_EMIT compileActivated(i.data(RecompileModel::CompileIdRole).toLongLong());
  });
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &RecompilePage::updateButton);
  connect(diffButton_, &QPushButton::clicked, this, [this] {
    const auto [a, b] = diffPair();
    if (a >= 0 && b >= 0) {
      Q_EMIT diffRequested(a, b);
    }
  });
  clear();
}

void RecompilePage::clear() {
  rank_ = frameId_ = -2;
  title_->setText(tr("Select a frame or a compile to see its recompiles."));
  model_->setRows({});
  updateButton();
}

void RecompilePage::setFrame(int rank, int frameId, const QString& location) {
  rank_ = rank;
  frameId_ = frameId;
  title_->setText(tr("Frame %1%2%3 (loading)")
                      .arg(frameId)
                      .arg(rank < 0 ? QString() : tr(" on rank %1").arg(rank))
                      .arg(location.isEmpty() ? QString() : QStringLiteral(": ") + location));
}

void RecompilePage::setRows(int rank, int frameId, const QList<RecompileRow>& rows) {
  if (rank != rank_ || frameId != frameId_) {
    return; // an answer for a frame that is no longer shown
  }
  QString t = title_->text();
  t.remove(tr(" (loading)"));
  title_->setText(tr("%1: %n compile(s)", nullptr, int(rows.size())).arg(t));
  model_->setRows(rows);
  // The Served column only where the log has runtime facts (our compiler's logs).
  const bool served = std::any_of(rows.begin(), rows.end(),
                                  [](const RecompileRow& r) { return !r.served.isEmpty(); });
  table_->setColumnHidden(RecompileModel::ServedColumn, !served);
  table_->resizeColumnsToContents();
  if (!rows.isEmpty()) {
    table_->selectRow(int(rows.size()) - 1);
  }
  updateButton();
}

QString RecompilePage::title() const {
  return title_->text();
}

QPair<qint64, qint64> RecompilePage::diffPair() const {
  const QModelIndexList rows = table_->selectionModel()->selectedRows();
  if (rows.size() == 2) {
    int a = rows[0].row();
    int b = rows[1].row();
    if (a > b) {
      std::swap(a, b);
    }
    return {model_->rows()[a].compile.id, model_->rows()[b].compile.id};
  }
  if (rows.size() == 1 && rows[0].row() > 0) {
    const int r = rows[0].row();
    return {model_->rows()[r - 1].compile.id, model_->rows()[r].compile.id};
  }
  return {-1, -1};
}

void RecompilePage::updateButton() {
  diffButton_->setEnabled(diffPair().first >= 0);
}

} // namespace gui
