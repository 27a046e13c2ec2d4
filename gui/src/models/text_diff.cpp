// diffLines: an LCS table over the differing middle only; graphs of one frame differ in a
// few lines, so the table is small in practice, and bounded by maxCells in every case.
#include "gui/text_diff.h"

#include <algorithm>
#include <vector>

namespace gui {

DiffResult diffLines(const QStringList& left, const QStringList& right, qint64 maxCells) {
  DiffResult out;
  const int n = int(left.size());
  const int m = int(right.size());
  int head = 0;
  while (head < n && head < m && left[head] == right[head]) {
    ++head;
  }
  int tail = 0;
  while (tail < n - head && tail < m - head && left[n - 1 - tail] == right[m - 1 - tail]) {
    ++tail;
  }
  for (int i = 0; i < head; ++i) {
    out.rows.append({DiffRow::Same, i, i});
  }
  const int a = n - head - tail;
  const int b = m - head - tail;
  QList<DiffRow> middle;
  if (qint64(a + 1) * qint64(b + 1) > maxCells) {
    out.approximate = true;
    for (int i = 0; i < std::max(a, b); ++i) {
      DiffRow r;
      r.leftLine = i < a ? head + i : -1;
      r.rightLine = i < b ? head + i : -1;
      r.kind = r.leftLine < 0    ? DiffRow::Added
               : r.rightLine < 0 ? DiffRow::Removed
                                 : DiffRow::Changed;
      middle.append(r);
    }
  } else {
    // lcs[i][j]: LCS length of left[head+i..] and right[head+j..].
    std::vector<int> lcs(size_t(a + 1) * size_t(b + 1), 0);
    auto at = [&](int i, int j) -> int& { return lcs[size_t(i) * size_t(b + 1) + size_t(j)]; };
    for (int i = a - 1; i >= 0; --i) {
      for (int j = b - 1; j >= 0; --j) {
        at(i, j) = left[head + i] == right[head + j] ? at(i + 1, j + 1) + 1
                                                     : std::max(at(i + 1, j), at(i, j + 1));
      }
    }
    int i = 0;
    int j = 0;
    while (i < a || j < b) {
      if (i < a && j < b && left[head + i] == right[head + j]) {
        middle.append({DiffRow::Same, head + i, head + j});
        ++i;
        ++j;
      } else if (i < a && (j == b || at(i + 1, j) >= at(i, j + 1))) {
        // Removals first, so the pairing below puts a changed line beside its new version.
        middle.append({DiffRow::Removed, head + i, -1});
        ++i;
      } else {
        middle.append({DiffRow::Added, -1, head + j});
        ++j;
      }
    }
    // Pair a run of removals with the run of additions right after it, so a changed line
    // sits beside its new version instead of above it.
    QList<DiffRow> paired;
    for (int k = 0; k < middle.size();) {
      if (middle[k].kind != DiffRow::Removed) {
        paired.append(middle[k++]);
        continue;
      }
      int r0 = k;
      while (k < middle.size() && middle[k].kind == DiffRow::Removed) {
        ++k;
      }
      int a0 = k;
      while (k < middle.size() && middle[k].kind == DiffRow::Added) {
        ++k;
      }
      const int removedRun = a0 - r0;
      const int addedRun = k - a0;
      for (int t = 0; t < std::max(removedRun, addedRun); ++t) {
        DiffRow row;
        row.leftLine = t < removedRun ? middle[r0 + t].leftLine : -1;
        row.rightLine = t < addedRun ? middle[a0 + t].rightLine : -1;
        row.kind = row.leftLine < 0    ? DiffRow::Added
                   : row.rightLine < 0 ? DiffRow::Removed
                                       : DiffRow::Changed;
        paired.append(row);
      }
    }
    middle = paired;
  }
  out.rows.append(middle);
  for (int k = 0; k < tail; ++k) {
    out.rows.append({DiffRow::Same, n - tail + k, m - tail + k});
  }
  for (const DiffRow& r : out.rows) {
    if (r.leftLine >= 0 && r.kind != DiffRow::Same) {
      ++out.removed;
    }
    if (r.rightLine >= 0 && r.kind != DiffRow::Same) {
      ++out.added;
    }
  }
  return out;
}

} // namespace gui
