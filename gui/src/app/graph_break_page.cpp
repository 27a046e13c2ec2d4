// GraphBreakPage: a table over GraphBreakModel and, for the selected break, its text and its
// compiles. Every fact comes from the rows the worker read; the page computes none.
#include "graph_break_page.h"

#include "gui/list_models.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace gui {

namespace {
constexpr int kCompileIdRole = Qt::UserRole + 1;
}

GraphBreakPage::GraphBreakPage(QWidget* parent) : QWidget(parent) {
  title_ = new QLabel(this);
  title_->setWordWrap(true);
  title_->setTextFormat(Qt::PlainText);
  model_ = new GraphBreakModel(this);
  table_ = new QTableView(this);
  table_->setObjectName(QStringLiteral("graphBreakTable"));
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  table_->setWordWrap(false);
  detail_ = new QPlainTextEdit(this);
  detail_->setObjectName(QStringLiteral("graphBreakDetail"));
  detail_->setReadOnly(true);
  detail_->setLineWrapMode(QPlainTextEdit::NoWrap);
  compiles_ = new QListWidget(this);
  compiles_->setObjectName(QStringLiteral("graphBreakCompiles"));
  compiles_->setToolTip(tr("The compiles this graph break occurred in: activate one to open it."));

  auto* bottom = new QSplitter(Qt::Horizontal, this);
  bottom->addWidget(detail_);
  bottom->addWidget(compiles_);
  bottom->setStretchFactor(0, 4);
  bottom->setStretchFactor(1, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(bottom);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(title_);
  layout->addWidget(split, 1);

  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { showRow(current.isValid() ? current.row() : -1); });
  connect(table_, &QTableView::activated, this, [this](const QModelIndex& i) {
    const qint64 id = i.data(GraphBreakModel::CompileIdRole).toLongLong();
    if (id >= 0) {
      Q_EMIT compileActivated(id);
    }
  });
  connect(compiles_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    const qint64 id = item->data(kCompileIdRole).toLongLong();
    if (id >= 0) {
      Q_EMIT compileActivated(id);
    }
  });
  clear();
}

void GraphBreakPage::clear() {
  title_->setText(tr("Open a log to see its graph breaks."));
  model_->setRows({});
  showRow(-1);
}

void GraphBreakPage::setRows(const QList<GraphBreakRow>& rows) {
  qint64 total = 0;
  for (const GraphBreakRow& r : rows) {
    total += r.count;
  }
  title_->setText(rows.isEmpty()
                      ? tr("No graph break was logged.")
                      : tr("%n distinct graph break(s), %1 in all, most frequent first. Each "
                           "splits the compiled region in two: fix the first ones to get the "
                           "largest graphs.",
                           nullptr, int(rows.size()))
                            .arg(total));
  model_->setRows(rows);
  table_->resizeColumnsToContents();
  if (rows.isEmpty()) {
    showRow(-1);
  } else {
    table_->selectRow(0);
  }
}

void GraphBreakPage::showRow(int row) {
  compiles_->clear();
  if (row < 0 || row >= model_->rowCount()) {
    detail_->clear();
    return;
  }
  const GraphBreakRow& r = model_->rows()[row];
  QString text = r.location.isEmpty() ? tr("(no user location in the log)") : r.location;
  text += QStringLiteral("\n\n") + r.reason;
  if (!r.userStack.isEmpty()) {
    text += tr("\n\nUser stack:\n") + r.userStack;
  }
  detail_->setPlainText(text);
  for (const auto& [display, id] : r.compiles) {
    auto* item = new QListWidgetItem(
        r.rank < 0 ? display : tr("%1 on rank %2").arg(display).arg(r.rank), compiles_);
    item->setData(kCompileIdRole, id);
    if (id < 0) {
      item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
    }
  }
}

} // namespace gui
