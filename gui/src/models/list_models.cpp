// The flat models: copies of one answer each, read-only.
#include "gui/list_models.h"

#include "gui/compile_tree_model.h"
#include "gui/untrusted_text.h"

#include <QColor>
#include <QLocale>
#include <algorithm>

namespace gui {

namespace {

// The text colour of a health counter or issue of this severity ("error", "warning"; none for
// "info").
QVariant severityColor(const QString& severity) {
  if (severity == QLatin1String("error")) {
    return QColor(0xc6, 0x28, 0x28);
  }
  if (severity == QLatin1String("warning")) {
    return QColor(0xb2, 0x6a, 0x00);
  }
  return {};
}

} // namespace

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
    return plainToolTip(
        tr("%1 (%2, %3 bytes)").arg(a.kind, a.encoding, QString::number(a.sizeBytes)));
  case ArtifactIdRole:
    return a.id;
  case NameRole:
    return a.name;
  default:
    return {};
  }
}

namespace {
// One field of each of a compile's failed guards: "; "-separated in the table, one per line in
// the tooltip.
template <class Field>
QString joined(const QList<RecompileReason>& reasons, int role, Field field) {
  QStringList parts;
  for (const RecompileReason& r : reasons) {
    parts.append(field(r));
  }
  return parts.join(role == Qt::ToolTipRole ? QStringLiteral("\n") : QStringLiteral("; "));
}
} // namespace

RecompileModel::RecompileModel(QObject* parent) : RowTable(ColumnCount, parent) {}

QVariant RecompileModel::data(const QModelIndex& index, int role) const {
  const RecompileRow* row = rowAt(index);
  if (row == nullptr) {
    return {};
  }
  const RecompileRow& r = *row;
  if (role == CompileIdRole) {
    return r.compile.id;
  }
  if (role == Qt::ForegroundRole && index.column() != ReasonColumn) {
    return CompileTreeModel::outcomeColor(r.compile.outcome);
  }
  // Display text and tooltip per column; tooltips are index text shown as plain text only.
  const auto text = [&]() -> QVariant {
    switch (index.column()) {
    case CompileColumn:
      return r.compile.label();
    case OutcomeColumn:
      return outcomeName(r.compile.outcome);
    case ServedColumn:
      return r.served;
    case ReasonColumn:
      if (!r.explained.isEmpty()) {
        return joined(r.explained, role, [](const RecompileReason& x) { return x.guard; });
      }
      if (r.reasons.isEmpty()) {
        return r.note;
      }
      return role == Qt::DisplayRole ? r.reasons.join(QStringLiteral("; "))
                                     : r.reasons.join(QLatin1Char('\n'));
    case CategoryColumn:
      return joined(r.explained, role, [](const RecompileReason& x) { return x.category; });
    case WhereColumn:
      if (role == Qt::ToolTipRole) {
        return joined(r.explained, role, [](const RecompileReason& x) {
          return x.userStack.isEmpty() ? x.location : x.userStack;
        });
      }
      return joined(r.explained, role, [](const RecompileReason& x) { return x.location; });
    case SuggestionColumn:
      return joined(r.explained, role, [](const RecompileReason& x) { return x.suggestion; });
    default:
      return {};
    }
  };
  if (role == Qt::ToolTipRole) {
    return plainToolTip(text().toString());
  }
  if (role == Qt::DisplayRole) {
    return text();
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
  case ServedColumn:
    return tr("Served");
  case ReasonColumn:
    return tr("Why it happened (failed guard)");
  case CategoryColumn:
    return tr("Category");
  case WhereColumn:
    return tr("Guard created at");
  case SuggestionColumn:
    return tr("Suggestion");
  default:
    return {};
  }
}

GraphBreakModel::GraphBreakModel(QObject* parent) : RowTable(ColumnCount, parent) {}

QVariant GraphBreakModel::data(const QModelIndex& index, int role) const {
  const GraphBreakRow* row = rowAt(index);
  if (row == nullptr) {
    return {};
  }
  const GraphBreakRow& r = *row;
  if (role == CompileIdRole) {
    return r.compiles.isEmpty() ? qint64(-1) : r.compiles.first().second;
  }
  if (role == DocsUrlRole) {
    return r.docsUrl;
  }
  if (role == Qt::TextAlignmentRole && index.column() == CountColumn) {
    return int(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) {
    return {};
  }
  const auto value = [&]() -> QVariant {
    switch (index.column()) {
    case CountColumn:
      return r.count;
    case IdColumn:
      return role == Qt::ToolTipRole && !r.docsUrl.isEmpty() ? r.docsUrl : r.stableId;
    case RankColumn:
      // A log without ranks shows none rather than a sentinel.
      return r.rank < 0 ? QString() : QString::number(r.rank);
    case WhereColumn:
      return r.location.isEmpty() ? tr("(no user location in the log)") : r.location;
    case ReasonColumn:
      if (role == Qt::ToolTipRole && !r.userStack.isEmpty()) {
        return tr("%1\n\nUser stack:\n%2").arg(r.reason, r.userStack);
      }
      // One line in the table; the tooltip and the page's detail have it whole.
      return role == Qt::DisplayRole ? r.reason.section(QLatin1Char('\n'), 0, 0) : r.reason;
    case CompilesColumn: {
      QStringList ids;
      for (const auto& c : r.compiles) {
        ids.append(c.first);
      }
      return ids.join(QLatin1Char(' '));
    }
    default:
      return {};
    }
  };
  return role == Qt::ToolTipRole ? QVariant(plainToolTip(value().toString())) : value();
}

QVariant GraphBreakModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case CountColumn:
    return tr("Count");
  case IdColumn:
    return tr("Id");
  case RankColumn:
    return tr("Rank");
  case WhereColumn:
    return tr("Where (user code)");
  case ReasonColumn:
    return tr("Reason");
  case CompilesColumn:
    return tr("In compiles");
  default:
    return {};
  }
}

HealthModel::HealthModel(QObject* parent) : RowTable(ColumnCount, parent) {}

QVariant HealthModel::data(const QModelIndex& index, int role) const {
  const HealthRow* row = rowAt(index);
  if (row == nullptr) {
    return {};
  }
  const HealthRow& r = *row;
  if (role == Qt::ForegroundRole && r.count > 0) {
    return severityColor(r.severity);
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

HealthIssueModel::HealthIssueModel(QObject* parent) : QAbstractTableModel(parent) {}

void HealthIssueModel::setIssues(const QList<HealthIssue>& issues) {
  all_ = issues;
  refilter();
}

void HealthIssueModel::setKindFilter(const QString& kind) {
  if (kind != filter_) {
    filter_ = kind;
    refilter();
  }
}

void HealthIssueModel::refilter() {
  beginResetModel();
  issues_.clear();
  for (const HealthIssue& i : all_) {
    if (filter_.isEmpty() || i.kind == filter_) {
      issues_.append(i);
    }
  }
  shown_ = std::min<int>(kBatchSize, int(issues_.size()));
  // Listeners of the reset may fetch at once; that must wait until the reset is announced
  // (the same rule as CompileTreeModel).
  notifying_ = true;
  endResetModel();
  notifying_ = false;
}

int HealthIssueModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : shown_;
}

int HealthIssueModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

bool HealthIssueModel::canFetchMore(const QModelIndex& parent) const {
  return !notifying_ && !parent.isValid() && shown_ < int(issues_.size());
}

void HealthIssueModel::fetchMore(const QModelIndex& parent) {
  if (!canFetchMore(parent)) {
    return;
  }
  const int next = std::min<int>(shown_ + kBatchSize, int(issues_.size()));
  notifying_ = true;
  beginInsertRows({}, shown_, next - 1);
  shown_ = next;
  endInsertRows();
  notifying_ = false;
}

QVariant HealthIssueModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const HealthIssue& i = issues_[index.row()];
  switch (role) {
  case ArtifactIdRole:
    return i.artifactId >= 0 ? QVariant(i.artifactId) : QVariant();
  case KindRole:
    return i.kind;
  case Qt::ForegroundRole:
    return severityColor(i.severity);
  case Qt::TextAlignmentRole:
    return index.column() == LineColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                                        : QVariant();
  case Qt::ToolTipRole:
    return index.column() == DetailColumn ? QVariant(plainToolTip(i.detail)) : QVariant();
  case Qt::DisplayRole:
    switch (index.column()) {
    case FileColumn:
      return i.file;
    case LineColumn:
      return i.line;
    case KindColumn:
      return i.kind;
    case DetailColumn:
      return i.detail;
    default:
      return {};
    }
  default:
    return {};
  }
}

QVariant HealthIssueModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case FileColumn:
    return tr("File");
  case LineColumn:
    return tr("Line");
  case KindColumn:
    return tr("Counter");
  case DetailColumn:
    return tr("What was wrong");
  default:
    return {};
  }
}

} // namespace gui
