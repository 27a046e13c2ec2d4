// SearchResultsModel: hits arrive page by page and are filed under their compile and
// artifact, each insertion announced to views so selection and expansion survive paging.
#include "gui/search_results_model.h"

#include "gui/untrusted_text.h"

namespace gui {

SearchResultsModel::SearchResultsModel(QObject* parent) : QAbstractItemModel(parent) {}
SearchResultsModel::~SearchResultsModel() = default;

void SearchResultsModel::setQuery(const QString& query) {
  beginResetModel();
  root_.children.clear();
  query_ = query;
  loaded_ = 0;
  more_ = false;
  pending_ = !query.trimmed().isEmpty();
  endResetModel();
  if (pending_) {
    Q_EMIT pageRequested(query_, 0, kPageSize);
  }
}

SearchResultsModel::Node* SearchResultsModel::childWithId(Node* parent, Node::Kind kind, qint64 id,
                                                          const QString& text) {
  for (const auto& c : parent->children) {
    if (c->id == id) {
      return c.get();
    }
  }
  const int row = int(parent->children.size());
  beginInsertRows(indexOf(parent), row, row);
  auto node = std::make_unique<Node>();
  node->kind = kind;
  node->parent = parent;
  node->row = row;
  node->id = id;
  node->text = text;
  parent->children.push_back(std::move(node));
  endInsertRows();
  return parent->children.back().get();
}

void SearchResultsModel::appendPage(const QString& query, int offset,
                                    const QList<SearchHit>& hits) {
  if (query != query_ || offset != loaded_ || !pending_) {
    return;
  }
  pending_ = false;
  more_ = hits.size() >= kPageSize;
  loaded_ += int(hits.size());
  for (const SearchHit& h : hits) {
    Node* compile = childWithId(&root_, Node::Compile, h.compileId,
                                h.compileLabel.isEmpty() ? tr("(no compile)") : h.compileLabel);
    Node* artifact = childWithId(compile, Node::Artifact, h.artifactId, h.artifactName);
    const int row = int(artifact->children.size());
    beginInsertRows(indexOf(artifact), row, row);
    auto node = std::make_unique<Node>();
    node->kind = Node::Hit;
    node->parent = artifact;
    node->row = row;
    node->id = h.artifactId;
    node->hit = h;
    node->text = tr("%1: %2").arg(h.line).arg(h.snippet.trimmed());
    artifact->children.push_back(std::move(node));
    endInsertRows();
  }
}

SearchResultsModel::Node* SearchResultsModel::nodeFor(const QModelIndex& index) const {
  return index.isValid() ? static_cast<Node*>(index.internalPointer()) : const_cast<Node*>(&root_);
}

QModelIndex SearchResultsModel::indexOf(const Node* node) const {
  if (node == &root_) {
    return {};
  }
  return createIndex(node->row, 0, const_cast<Node*>(node));
}

QModelIndex SearchResultsModel::index(int row, int column, const QModelIndex& parent) const {
  if (!hasIndex(row, column, parent)) {
    return {};
  }
  return createIndex(row, column, nodeFor(parent)->children[size_t(row)].get());
}

QModelIndex SearchResultsModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) {
    return {};
  }
  return indexOf(nodeFor(child)->parent);
}

int SearchResultsModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) {
    return 0;
  }
  return int(nodeFor(parent)->children.size());
}

int SearchResultsModel::columnCount(const QModelIndex&) const {
  return 1;
}

QVariant SearchResultsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) {
    return {};
  }
  const Node* n = nodeFor(index);
  switch (role) {
  case Qt::DisplayRole:
    if (n->kind == Node::Artifact) {
      return tr("%1 (%2)").arg(n->text).arg(n->children.size());
    }
    return n->text;
  case Qt::ToolTipRole:
    return plainToolTip(n->kind == Node::Hit ? n->hit.snippet : n->text);
  case CompileIdRole: {
    const Node* c = n;
    while (c->kind != Node::Compile) {
      c = c->parent;
    }
    return c->id;
  }
  case ArtifactIdRole:
    return n->kind == Node::Compile ? QVariant() : QVariant(n->id);
  case LineRole:
    return n->kind == Node::Hit ? QVariant(n->hit.line) : QVariant();
  default:
    return {};
  }
}

bool SearchResultsModel::canFetchMore(const QModelIndex& parent) const {
  return !parent.isValid() && more_ && !pending_;
}

void SearchResultsModel::fetchMore(const QModelIndex& parent) {
  if (!canFetchMore(parent)) {
    return;
  }
  pending_ = true;
  Q_EMIT pageRequested(query_, loaded_, kPageSize);
}

} // namespace gui
