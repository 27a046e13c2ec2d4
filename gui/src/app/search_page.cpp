// SearchPage: the model pages hits in as the view scrolls; this page only wires the query box
// and activation (Enter or double-click) to the rest of the window.
#include "search_page.h"

#include "gui/search_results_model.h"

#include <QLabel>
#include <QLineEdit>
#include <QTreeView>
#include <QVBoxLayout>

namespace gui {

SearchPage::SearchPage(QWidget* parent) : QWidget(parent) {
  edit_ = new QLineEdit(this);
  edit_->setObjectName(QStringLiteral("searchQuery"));
  edit_->setPlaceholderText(
      tr("Search every graph, guard, output code and stack (SQLite FTS5 syntax), then Enter"));
  edit_->setClearButtonEnabled(true);
  status_ = new QLabel(this);
  model_ = new SearchResultsModel(this);
  view_ = new QTreeView(this);
  view_->setObjectName(QStringLiteral("searchResults"));
  view_->setModel(model_);
  view_->setHeaderHidden(true);
  view_->setUniformRowHeights(true);
  view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(edit_);
  layout->addWidget(status_);
  layout->addWidget(view_, 1);

  connect(edit_, &QLineEdit::returnPressed, this, [this] { search(edit_->text()); });
  connect(view_, &QTreeView::activated, this, [this](const QModelIndex& i) {
    const QVariant artifact = i.data(SearchResultsModel::ArtifactIdRole);
    if (!artifact.isValid()) {
      view_->setExpanded(i, !view_->isExpanded(i));
      return;
    }
    const QVariant line = i.data(SearchResultsModel::LineRole);
    Q_EMIT hitActivated(i.data(SearchResultsModel::CompileIdRole).toLongLong(),
                        artifact.toLongLong(), line.isValid() ? line.toInt() : 0);
  });
  connect(model_, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex& where) {
    // Open the first groups so the first hits are visible without clicking.
    if (!where.isValid() || model_->rowCount() <= 3) {
      view_->expandRecursively(where, 2);
    }
    updateStatus();
  });
  connect(model_, &QAbstractItemModel::modelReset, this, &SearchPage::updateStatus);
}

void SearchPage::clear() {
  edit_->clear();
  model_->setQuery(QString());
}

void SearchPage::search(const QString& query) {
  if (edit_->text() != query) {
    edit_->setText(query);
  }
  model_->setQuery(query);
  updateStatus();
}

void SearchPage::focusQuery() {
  edit_->setFocus();
  edit_->selectAll();
}

void SearchPage::updateStatus() {
  if (model_->query().trimmed().isEmpty()) {
    status_->clear();
    return;
  }
  status_->setText(tr("%n matching line(s) in %1 compile group(s)", nullptr, model_->hitCount())
                       .arg(model_->rowCount()));
}

} // namespace gui
