// DiffPage: artifacts are listed with how many lines changed, graphs and guards first; the
// panes show aligned rows (a gap on one side is an empty line) so both scroll in lockstep.
#include "diff_page.h"

#include "code_view.h"
#include "gui/code_highlighter.h"

#include <QLabel>
#include <QListWidget>
#include <QScrollBar>
#include <QSplitter>
#include <QVBoxLayout>

namespace gui {

namespace {

int priority(const QString& name) {
  // What a person diffing two compiles reads first.
  if (name.contains(QLatin1String("dynamo_output_graph"))) {
    return 0;
  }
  if (name.contains(QLatin1String("guards"))) {
    return 1;
  }
  if (name.contains(QLatin1String("graph"))) {
    return 2;
  }
  if (name.contains(QLatin1String("output_code"))) {
    return 3;
  }
  return 4;
}

QStringList lines(const QString& text) {
  return text.isEmpty() ? QStringList() : text.split(QLatin1Char('\n'));
}

} // namespace

DiffPage::DiffPage(QWidget* parent) : QWidget(parent) {
  title_ = new QLabel(this);
  title_->setTextFormat(Qt::PlainText); // compile labels come from the index
  list_ = new QListWidget(this);
  list_->setObjectName(QStringLiteral("diffArtifactList"));
  left_ = new CodeView(this);
  left_->setObjectName(QStringLiteral("diffLeft"));
  right_ = new CodeView(this);
  right_->setObjectName(QStringLiteral("diffRight"));
  auto* panes = new QSplitter(Qt::Horizontal, this);
  panes->addWidget(left_);
  panes->addWidget(right_);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(list_);
  split->addWidget(panes);
  split->setStretchFactor(1, 5);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(title_);
  layout->addWidget(split, 1);

  connect(list_, &QListWidget::currentRowChanged, this, &DiffPage::showPair);
  auto* l = left_->editor()->verticalScrollBar();
  auto* r = right_->editor()->verticalScrollBar();
  connect(l, &QScrollBar::valueChanged, r, &QScrollBar::setValue);
  connect(r, &QScrollBar::valueChanged, l, &QScrollBar::setValue);
  clear();
}

void DiffPage::clear() {
  diff_ = {};
  current_ = -1;
  list_->clear();
  title_->setText(tr("Pick two compiles of a frame on the Recompiles page and press Diff."));
  left_->setText(QString(), QString());
  right_->setText(QString(), QString());
}

void DiffPage::setDiff(const CompileDiff& diff) {
  diff_ = diff;
  std::stable_sort(diff_.artifacts.begin(), diff_.artifacts.end(),
                   [](const ArtifactPair& a, const ArtifactPair& b) {
                     return priority(a.name) < priority(b.name);
                   });
  title_->setText(tr("%1 (left) against %2 (right)").arg(diff.left.label(), diff.right.label()));
  const QSignalBlocker block(list_);
  list_->clear();
  for (const ArtifactPair& p : diff_.artifacts) {
    QString label = p.name;
    if (p.left == p.right) {
      label += tr("  (same)");
    } else if (p.left.isEmpty()) {
      label += tr("  (only right)");
    } else if (p.right.isEmpty()) {
      label += tr("  (only left)");
    } else {
      label += tr("  (-%1 +%2)").arg(p.removed).arg(p.added);
    }
    list_->addItem(label);
  }
  if (!diff_.artifacts.isEmpty()) {
    list_->setCurrentRow(0);
    showPair(0);
  } else {
    left_->setText(tr("No artifacts."), QString());
    right_->setText(tr("No artifacts."), QString());
  }
}

const ArtifactPair* DiffPage::currentPair() const {
  return current_ >= 0 && current_ < diff_.artifacts.size() ? &diff_.artifacts[current_] : nullptr;
}

void DiffPage::showPair(int index) {
  if (index < 0 || index >= diff_.artifacts.size()) {
    return;
  }
  current_ = index;
  const ArtifactPair& p = diff_.artifacts[index];
  const QStringList a = lines(p.left);
  const QStringList b = lines(p.right);
  // The rows were computed on the worker thread with the diff itself.
  const QList<DiffRow>& rows = p.rows;
  QStringList leftRows;
  QStringList rightRows;
  QList<QPair<int, QColor>> leftColors;
  QList<QPair<int, QColor>> rightColors;
  const QColor removed(0xff, 0xd7, 0xd5);
  const QColor added(0xd4, 0xf8, 0xdb);
  const QColor gap(0xee, 0xee, 0xee);
  for (int row = 0; row < rows.size(); ++row) {
    const DiffRow& d = rows[row];
    leftRows.append(d.leftLine >= 0 ? a[d.leftLine] : QString());
    rightRows.append(d.rightLine >= 0 ? b[d.rightLine] : QString());
    if (d.kind != DiffRow::Same) {
      leftColors.append({row, d.leftLine >= 0 ? removed : gap});
      rightColors.append({row, d.rightLine >= 0 ? added : gap});
    }
  }
  const QString language = languageForArtifact(p.name, p.left.isEmpty() ? p.right : p.left);
  left_->setText(leftRows.join(QLatin1Char('\n')), language);
  right_->setText(rightRows.join(QLatin1Char('\n')), language);
  left_->editor()->setLineColors(leftColors);
  right_->editor()->setLineColors(rightColors);
}

} // namespace gui
