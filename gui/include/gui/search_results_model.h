// Full-text search hits grouped by compile, then artifact, then matching line. Pages of hits
// are asked for only when a view scrolls to the end (canFetchMore/fetchMore): the model emits
// pageRequested and the answer arrives later through appendPage, so nothing blocks the view.
#pragma once

#include "gui/index_types.h"

#include <QAbstractItemModel>
#include <memory>
#include <vector>

namespace gui {

class SearchResultsModel : public QAbstractItemModel {
  Q_OBJECT
public:
  enum Role {
    CompileIdRole = Qt::UserRole + 1,
    ArtifactIdRole, // artifacts and hits
    LineRole,       // hits only: 1-based line in the artifact
  };
  static constexpr int kPageSize = 200;

  explicit SearchResultsModel(QObject* parent = nullptr);
  ~SearchResultsModel() override;

  // Starts a new search: clears the hits and asks for the first page.
  void setQuery(const QString& query);
  QString query() const { return query_; }
  // One page of hits for (query, offset); answers for an old query or offset are ignored.
  void appendPage(const QString& query, int offset, const QList<SearchHit>& hits);
  int hitCount() const { return loaded_; }

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool canFetchMore(const QModelIndex& parent) const override;
  void fetchMore(const QModelIndex& parent) override;

Q_SIGNALS:
  void pageRequested(const QString& query, int offset, int limit);

private:
  struct Node {
    enum Kind { Root, Compile, Artifact, Hit } kind = Root;
    Node* parent = nullptr;
    int row = 0;
    qint64 id = -1; // compile id or artifact id
    QString text;
    SearchHit hit;
    std::vector<std::unique_ptr<Node>> children;
  };
  Node* nodeFor(const QModelIndex& index) const;
  QModelIndex indexOf(const Node* node) const;
  Node* childWithId(Node* parent, Node::Kind kind, qint64 id, const QString& text);

  Node root_;
  QString query_;
  int loaded_ = 0;
  bool pending_ = false;
  bool more_ = false;
};

} // namespace gui
