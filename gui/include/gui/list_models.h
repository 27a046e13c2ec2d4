// The flat models behind the compile page, the recompile explorer, the graph-break summary and
// the data-health panel:
// each copies one answer of the index and shows it; none of them talks to the index itself.
#pragma once

#include "gui/index_types.h"

#include <QAbstractListModel>
#include <QAbstractTableModel>

namespace gui {

// A compile's artifacts, in the order the log wrote them.
class ArtifactListModel : public QAbstractListModel {
  Q_OBJECT
public:
  enum Role { ArtifactIdRole = Qt::UserRole + 1, NameRole };
  explicit ArtifactListModel(QObject* parent = nullptr);
  void setArtifacts(const QList<ArtifactRef>& artifacts);
  const QList<ArtifactRef>& artifacts() const { return artifacts_; }
  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
  QList<ArtifactRef> artifacts_;
};

// A read-only table of one answer's rows: what such tables share.
template <class Row>
class RowTable : public QAbstractTableModel {
public:
  RowTable(int columns, QObject* parent) : QAbstractTableModel(parent), columns_(columns) {}
  void setRows(const QList<Row>& rows) {
    beginResetModel();
    rows_ = rows;
    endResetModel();
  }
  const QList<Row>& rows() const { return rows_; }
  int rowCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : int(rows_.size());
  }
  int columnCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : columns_;
  }

protected:
  // The row of a valid index of this table, or null.
  const Row* rowAt(const QModelIndex& index) const {
    return checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)
               ? &rows_[index.row()]
               : nullptr;
  }

private:
  QList<Row> rows_;
  int columns_;
};

// A frame's compiles in order with why each one happened.
class RecompileModel : public RowTable<RecompileRow> {
  Q_OBJECT
public:
  // As the report's recompilation explorer: the failed guard, its category, the user line that
  // created it (its stack in the tooltip) and a suggestion.
  enum Column {
    CompileColumn,
    OutcomeColumn,
    ServedColumn, // empty for PyTorch's logs (no runtime facts)
    ReasonColumn,
    CategoryColumn,
    WhereColumn,
    SuggestionColumn,
    ColumnCount
  };
  enum Role { CompileIdRole = Qt::UserRole + 1 };
  explicit RecompileModel(QObject* parent = nullptr);
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;
};

// The distinct graph breaks of the log: how often, where in the user's code, why, and in which
// compiles (the tooltip of the reason holds the user stack).
class GraphBreakModel : public RowTable<GraphBreakRow> {
  Q_OBJECT
public:
  enum Column {
    CountColumn,
    IdColumn,
    RankColumn,
    WhereColumn,
    ReasonColumn,
    CompilesColumn,
    ColumnCount
  };
  // CompileIdRole: the entry of the first compile it occurred in (-1: none in the tree), what
  // activating the row opens. DocsUrlRole: the docs page of its stable id (empty: none).
  enum Role { CompileIdRole = Qt::UserRole + 1, DocsUrlRole };
  explicit GraphBreakModel(QObject* parent = nullptr);
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;
};

// The data-health counters: bad lines, MD5 failures, unknown kinds, orphan artifacts, ...
class HealthModel : public RowTable<HealthRow> {
  Q_OBJECT
public:
  enum Column { NameColumn, SeverityColumn, CountColumn, DescriptionColumn, ColumnCount };
  explicit HealthModel(QObject* parent = nullptr);
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;
};

// The lines and items behind the health counters: file, line, counter and what was wrong.
// Rows reach views in batches (canFetchMore/fetchMore): a damaged log can list 10,000 per file.
class HealthIssueModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { FileColumn, LineColumn, KindColumn, DetailColumn, ColumnCount };
  enum Role { ArtifactIdRole = Qt::UserRole + 1, KindRole };
  static constexpr int kBatchSize = 500;
  explicit HealthIssueModel(QObject* parent = nullptr);
  void setIssues(const QList<HealthIssue>& issues);
  // Shows only the issues of one counter; an empty kind shows them all.
  void setKindFilter(const QString& kind);
  QString kindFilter() const { return filter_; }
  // The issues that pass the filter (rowCount() grows towards their number as views fetch).
  const QList<HealthIssue>& issues() const { return issues_; }
  int totalCount() const { return int(all_.size()); }
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;
  bool canFetchMore(const QModelIndex& parent) const override;
  void fetchMore(const QModelIndex& parent) override;

private:
  void refilter();

  QList<HealthIssue> all_;
  QList<HealthIssue> issues_;
  QString filter_;
  int shown_ = 0;
  bool notifying_ = false; // a reset or an insertion is being announced
};

} // namespace gui
