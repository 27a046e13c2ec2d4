// The tree of ranks -> frames -> compiles, coloured by outcome. Children are handed to views
// in batches through canFetchMore/fetchMore, so a log with thousands of frames opens at once.
#pragma once

#include "gui/index_types.h"

#include <QAbstractItemModel>
#include <QColor>
#include <memory>
#include <vector>

namespace gui {

class CompileTreeModel : public QAbstractItemModel {
  Q_OBJECT
public:
  enum Column { NameColumn, OutcomeColumn, DetailColumn, ColumnCount };
  enum Role {
    NodeKindRole = Qt::UserRole + 1, // a NodeKind
    CompileIdRole,                   // qint64, compiles only
    RankRole,
    FrameIdRole,
    OutcomeRole,  // int(CompileOutcome), compiles only
    LocationRole, // QString, frames only: "file:line in function" as plain text
  };
  enum class NodeKind { Rank, Frame, Compile };

  // How many children one fetchMore hands over.
  static constexpr int kBatchSize = 256;

  explicit CompileTreeModel(QObject* parent = nullptr);
  ~CompileTreeModel() override;

  void setOverview(const IndexOverview& overview);
  void clear();

  // The index of a compile, fetching batches as needed so that views can select it.
  QModelIndex indexForCompile(qint64 compileId);

  static QColor outcomeColor(CompileOutcome outcome);

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;
  bool hasChildren(const QModelIndex& parent = {}) const override;
  bool canFetchMore(const QModelIndex& parent) const override;
  void fetchMore(const QModelIndex& parent) override;

private:
  struct Node {
    NodeKind kind = NodeKind::Rank;
    Node* parent = nullptr;
    int row = 0;
    int rankIdx = 0, frameIdx = 0, compileIdx = 0;
    std::vector<std::unique_ptr<Node>> children;
    int shown = 0; // children handed to views so far
  };

  Node* nodeFor(const QModelIndex& index) const;
  QModelIndex indexOf(Node* node) const;

  IndexOverview overview_;
  Node root_;
  bool notifying_ = false; // a reset or insertion is being announced
};

} // namespace gui
