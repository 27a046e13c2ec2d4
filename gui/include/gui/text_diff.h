// A line diff for the side-by-side view of two compiles' graphs and guards. Lines are compared
// exactly; the result is laid out in rows so that both panes scroll together.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace gui {

struct DiffRow {
  enum Kind { Same, Removed, Added, Changed };
  Kind kind = Same;
  int leftLine = -1; // 0-based, -1: no line on this side (a gap)
  int rightLine = -1;
};

struct DiffResult {
  QList<DiffRow> rows;
  int removed = 0; // lines only on the left
  int added = 0;   // lines only on the right
};

// A minimal line diff (Myers' O(ND) algorithm, linear space): the fewest lines removed and
// added, whatever the size. Costly on large, much-changed inputs, so the GUI runs it on its
// worker thread (IndexWorker::diff), never on the UI thread.
DiffResult diffLines(const QStringList& left, const QStringList& right);

} // namespace gui
