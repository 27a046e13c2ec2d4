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
  int removed = 0;          // lines only on the left
  int added = 0;            // lines only on the right
  bool approximate = false; // true when the inputs were too large for an exact diff
};

// Longest common subsequence of lines after trimming the common head and tail. When the
// middle is larger than `maxCells` line pairs, the middle is shown as replaced wholesale
// (approximate = true) rather than spending unbounded time and memory.
DiffResult diffLines(const QStringList& left, const QStringList& right,
                     qint64 maxCells = 16'000'000);

} // namespace gui
