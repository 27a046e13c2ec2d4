// The flat models: copies of one answer each, read-only.
#include "gui/list_models.h"

#include "gui/compile_tree_model.h"

#include <QColor>
#include <QLocale>

namespace gui {

ArtifactListModel::ArtifactListModel(QObject* parent) : QAbstractListModel(parent) {}

void ArtifactListModel::setArtifacts(const QList<ArtifactRef>& artifacts) {
  beginResetModel();
  artifacts_ = artifacts;
  endResetModel();
}

int ArtifactListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(artifacts_.size());
}

QVariant ArtifactListModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const ArtifactRef& a = artifacts_[index.row()];
  switch (role) {
  case Qt::DisplayRole:
    return a.name;
  case Qt::ToolTipRole:
    return tr("%1 (%2, %3 bytes)").arg(a.kind, a.encoding, QString::number(a.sizeBytes));
  case ArtifactIdRole:
    return a.id;
  case NameRole:
    return a.name;
  default:
    return {};
  }
}

RecompileModel::RecompileModel(QObject* parent) : QAbstractTableModel(parent) {}

void RecompileModel::setRows(const QList<RecompileRow>& rows) {
  beginResetModel();
  rows_ = rows;
  endResetModel();
}

int RecompileModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(rows_.size());
}

int RecompileModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RecompileModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const RecompileRow& r = rows_[index.row()];
  if (role == CompileIdRole) {
    return r.compile.id;
  }
  if (role == Qt::ForegroundRole && index.column() != ReasonColumn) {
    return CompileTreeModel::outcomeColor(r.compile.outcome);
  }
  if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
    switch (index.column()) {
    case CompileColumn:
      return r.compile.label();
    case OutcomeColumn:
      return outcomeName(r.compile.outcome);
    case ReasonColumn:
      if (r.reasons.isEmpty()) {
        return index.row() == 0 ? tr("first compile") : tr("(no reason recorded)");
      }
      return role == Qt::DisplayRole ? r.reasons.join(QStringLiteral("; "))
                                     : r.reasons.join(QLatin1Char('\n'));
    default:
      return {};
    }
  }
  return {};
}

QVariant RecompileModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case CompileColumn:
    return tr("Compile");
  case OutcomeColumn:
    return tr("Outcome");
  case ReasonColumn:
    return tr("Why it happened (failed guard)");
  default:
    return {};
  }
}

HealthModel::HealthModel(QObject* parent) : QAbstractTableModel(parent) {}

void HealthModel::setRows(const QList<HealthRow>& rows) {
  beginResetModel();
  rows_ = rows;
  endResetModel();
}

int HealthModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(rows_.size());
}

int HealthModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant HealthModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const HealthRow& r = rows_[index.row()];
  if (role == Qt::ForegroundRole && r.count > 0) {
    if (r.severity == QLatin1String("error")) {
      return QColor(0xc6, 0x28, 0x28);
    }
    if (r.severity == QLatin1String("warning")) {
      return QColor(0xb2, 0x6a, 0x00);
    }
    return {};
  }
  if (role == Qt::TextAlignmentRole && index.column() == CountColumn) {
    return int(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role != Qt::DisplayRole) {
    return {};
  }
  switch (index.column()) {
  case NameColumn:
    return r.name;
  case SeverityColumn:
    return r.severity;
  case CountColumn:
    return r.count;
  case DescriptionColumn:
    return r.description;
  default:
    return {};
  }
}

QVariant HealthModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case NameColumn:
    return tr("Counter");
  case SeverityColumn:
    return tr("Severity");
  case CountColumn:
    return tr("Count");
  case DescriptionColumn:
    return tr("What it means");
  default:
    return {};
  }
}

} // namespace gui
