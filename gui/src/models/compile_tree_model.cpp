// CompileTreeModel: nodes are built once per overview (they are small); what is lazy is how
// many of them views see, so a view never lays out more rows than a person scrolls to.
#include "gui/compile_tree_model.h"

#include "gui/untrusted_text.h"

#include <algorithm>

namespace gui {

CompileTreeModel::CompileTreeModel(QObject* parent) : QAbstractItemModel(parent) {}
CompileTreeModel::~CompileTreeModel() = default;

void CompileTreeModel::clear() {
  beginResetModel();
  overview_ = {};
  root_.children.clear();
  root_.shown = 0;
  notifying_ = true;
  endResetModel();
  notifying_ = false;
}

void CompileTreeModel::setOverview(const IndexOverview& overview) {
  beginResetModel();
  overview_ = overview;
  root_.children.clear();
  root_.shown = 0;
  // A node is its rank, frame and compile position; `row` is its position under its parent.
  const auto add = [](Node* parent, NodeKind kind, int row, int r, int f, int c) {
    auto node = std::make_unique<Node>();
    node->kind = kind;
    node->parent = parent;
    node->row = row;
    node->rankIdx = r;
    node->frameIdx = f;
    node->compileIdx = c;
    parent->children.push_back(std::move(node));
    return parent->children.back().get();
  };
  for (int r = 0; r < overview_.ranks.size(); ++r) {
    Node* rank = add(&root_, NodeKind::Rank, r, r, 0, 0);
    const auto& frames = overview_.ranks[r].frames;
    for (int f = 0; f < frames.size(); ++f) {
      Node* frame = add(rank, NodeKind::Frame, f, r, f, 0);
      for (int c = 0; c < frames[f].compiles.size(); ++c) {
        add(frame, NodeKind::Compile, c, r, f, c);
      }
    }
  }
  root_.shown = std::min<int>(kBatchSize, int(root_.children.size()));
  // Listeners of modelReset and rowsInserted (views, testers) may ask canFetchMore at once;
  // inserting rows while a change is still being announced would nest two changes, so
  // fetching waits until the announcement is over.
  notifying_ = true;
  endResetModel();
  notifying_ = false;
}

CompileTreeModel::Node* CompileTreeModel::nodeFor(const QModelIndex& index) const {
  if (!index.isValid()) {
    return const_cast<Node*>(&root_);
  }
  return static_cast<Node*>(index.internalPointer());
}

QModelIndex CompileTreeModel::indexOf(Node* node) const {
  if (node == &root_ || node == nullptr) {
    return {};
  }
  return createIndex(node->row, 0, node);
}

QModelIndex CompileTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (!hasIndex(row, column, parent)) {
    return {};
  }
  Node* p = nodeFor(parent);
  return createIndex(row, column, p->children[size_t(row)].get());
}

QModelIndex CompileTreeModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) {
    return {};
  }
  return indexOf(nodeFor(child)->parent);
}

int CompileTreeModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) {
    return 0;
  }
  return nodeFor(parent)->shown;
}

int CompileTreeModel::columnCount(const QModelIndex&) const {
  return ColumnCount;
}

bool CompileTreeModel::hasChildren(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) {
    return false;
  }
  return !nodeFor(parent)->children.empty();
}

bool CompileTreeModel::canFetchMore(const QModelIndex& parent) const {
  if (notifying_ || (parent.isValid() && parent.column() != 0)) {
    return false;
  }
  const Node* n = nodeFor(parent);
  return n->shown < int(n->children.size());
}

void CompileTreeModel::fetchMore(const QModelIndex& parent) {
  if (!canFetchMore(parent)) {
    return;
  }
  Node* n = nodeFor(parent);
  const int next = std::min<int>(n->shown + kBatchSize, int(n->children.size()));
  notifying_ = true;
  beginInsertRows(parent, n->shown, next - 1);
  n->shown = next;
  endInsertRows();
  notifying_ = false;
}

QModelIndex CompileTreeModel::indexForCompile(qint64 compileId) {
  for (const auto& rank : root_.children) {
    for (const auto& frame : rank->children) {
      for (const auto& compile : frame->children) {
        const auto& c = overview_.ranks[compile->rankIdx]
                            .frames[compile->frameIdx]
                            .compiles[compile->compileIdx];
        if (c.id != compileId) {
          continue;
        }
        // Reveal the path from the top, batch by batch.
        for (Node* n : {rank.get(), frame.get(), compile.get()}) {
          while (n->parent->shown <= n->row) {
            if (!canFetchMore(indexOf(n->parent))) {
              return {}; // called while a change is being announced: not now
            }
            fetchMore(indexOf(n->parent));
          }
        }
        return indexOf(compile.get());
      }
    }
  }
  return {};
}

QColor CompileTreeModel::outcomeColor(CompileOutcome outcome) {
  switch (outcome) {
  case CompileOutcome::Ok:
    return QColor(0x2e, 0x7d, 0x32);
  case CompileOutcome::GraphBreak:
    return QColor(0x55, 0x8b, 0x2f); // tlparse's "light green": possibly graph-broken
  case CompileOutcome::Failed:
    return QColor(0xc6, 0x28, 0x28);
  case CompileOutcome::EmptyGraph:
    return QColor(0x75, 0x75, 0x75);
  case CompileOutcome::CacheHit:
    return QColor(0x15, 0x65, 0xc0);
  case CompileOutcome::Unknown:
    break;
  }
  return QColor(0x6d, 0x4c, 0x41);
}

QVariant CompileTreeModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) {
    return {};
  }
  const Node* n = nodeFor(index);
  const RankSummary& rank = overview_.ranks[n->rankIdx];
  if (role == NodeKindRole) {
    return int(n->kind);
  }
  if (role == RankRole) {
    return rank.rank;
  }
  switch (n->kind) {
  case NodeKind::Rank:
    if (role == Qt::DisplayRole) {
      if (index.column() == NameColumn) {
        return rank.rank < 0 ? tr("single process (no rank)") : tr("rank %1").arg(rank.rank);
      }
      if (index.column() == DetailColumn) {
        return tr("%n frame(s)", nullptr, int(rank.frames.size()));
      }
    }
    return {};
  case NodeKind::Frame: {
    const FrameSummary& frame = rank.frames[n->frameIdx];
    if (role == FrameIdRole) {
      return frame.frameId;
    }
    if (role == Qt::DisplayRole) {
      if (index.column() == NameColumn) {
        if (frame.frameId < 0) {
          return tr("outside any compile");
        }
        const QString id = QString::number(frame.frameId);
        return frame.location.isEmpty() ? tr("frame %1").arg(id)
                                        : tr("%1  %2").arg(id, frame.location);
      }
      if (index.column() == DetailColumn) {
        return tr("%n recompile(s)", nullptr, frame.recompileCount());
      }
    }
    if (role == Qt::ToolTipRole) {
      return plainToolTip(frame.location);
    }
    if (role == LocationRole) {
      return frame.location;
    }
    return {};
  }
  case NodeKind::Compile: {
    const FrameSummary& frame = rank.frames[n->frameIdx];
    const CompileSummary& c = frame.compiles[n->compileIdx];
    switch (role) {
    case Qt::DisplayRole:
      if (index.column() == NameColumn) {
        return c.label();
      }
      if (index.column() == OutcomeColumn) {
        return outcomeName(c.outcome);
      }
      if (index.column() == DetailColumn && c.durationSeconds >= 0) {
        return tr("%1 s").arg(c.durationSeconds, 0, 'f', 3);
      }
      return {};
    case Qt::ForegroundRole:
      return outcomeColor(c.outcome);
    case Qt::ToolTipRole:
      return plainToolTip(
          c.rank < 0 ? tr("%1: %2").arg(c.label(), outcomeName(c.outcome))
                     : tr("%1 on rank %2: %3")
                           .arg(c.label(), QString::number(c.rank), outcomeName(c.outcome)));
    case CompileIdRole:
      return c.id;
    case FrameIdRole:
      return frame.frameId;
    case OutcomeRole:
      return int(c.outcome);
    default:
      return {};
    }
  }
  }
  return {};
}

QVariant CompileTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case NameColumn:
    return tr("Compile");
  case OutcomeColumn:
    return tr("Outcome");
  case DetailColumn:
    return tr("Detail");
  default:
    return {};
  }
}

} // namespace gui
