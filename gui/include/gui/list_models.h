// The flat models behind the compile page, the recompile explorer and the data-health panel:
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

// A frame's compiles in order with why each one happened.
class RecompileModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { CompileColumn, OutcomeColumn, ReasonColumn, ColumnCount };
  enum Role { CompileIdRole = Qt::UserRole + 1 };
  explicit RecompileModel(QObject* parent = nullptr);
  void setRows(const QList<RecompileRow>& rows);
  const QList<RecompileRow>& rows() const { return rows_; }
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

private:
  QList<RecompileRow> rows_;
};

// The data-health counters: bad lines, MD5 failures, unknown kinds, orphan artifacts, ...
class HealthModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { NameColumn, SeverityColumn, CountColumn, DescriptionColumn, ColumnCount };
  explicit HealthModel(QObject* parent = nullptr);
  void setRows(const QList<HealthRow>& rows);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

private:
  QList<HealthRow> rows_;
};

} // namespace gui
