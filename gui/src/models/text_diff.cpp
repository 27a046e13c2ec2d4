// diffLines: Myers' O(ND) algorithm in its linear-space form (find the middle snake of the
// shortest edit script, recurse on both halves), written for this project. Two steps keep it
// fast on what artifacts look like, without changing the result:
//  - lines become integers (one XXH3 hash and lookup each), so comparisons are cheap;
//  - lines that occur on one side only can be in no common subsequence, so they are set aside
//    as removed or added before the search: two unrelated outputs then cost almost nothing, and
//    D counts only the lines that could have matched.
// The result is a minimal diff in every case; there is no size beyond which it gives up.
#include "gui/text_diff.h"

#include <QStringView>
#include <algorithm>
#include <unordered_map>
#include <vector>
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace gui {

namespace {

struct LineHash {
  size_t operator()(QStringView s) const {
    return size_t(XXH3_64bits(s.data(), size_t(s.size()) * sizeof(QChar)));
  }
};

struct Match {
  int left = 0;
  int right = 0;
};

class Myers {
public:
  Myers(const std::vector<int>& a, const std::vector<int>& b) : a_(a), b_(b) {
    const size_t n = a.size() + b.size() + 2;
    forward_.resize(2 * n + 1);
    backward_.resize(2 * n + 1);
  }

  // The matched positions of a minimal edit script, in order.
  std::vector<Match> run() {
    solve(0, int(a_.size()), 0, int(b_.size()));
    return std::move(matches_);
  }

private:
  struct Snake {
    int x, y, u, v; // from (x, y) to (u, v), diagonal moves only
    int d;          // edit distance of the whole box
  };

  void same(int i, int j) { matches_.push_back({i, j}); }

  void solve(int a0, int a1, int b0, int b1) {
    // Common head and tail never need a search.
    while (a0 < a1 && b0 < b1 && a_[size_t(a0)] == b_[size_t(b0)]) {
      same(a0++, b0++);
    }
    int tail = 0;
    while (a0 < a1 - tail && b0 < b1 - tail &&
           a_[size_t(a1 - 1 - tail)] == b_[size_t(b1 - 1 - tail)]) {
      ++tail;
    }
    if (a0 < a1 - tail && b0 < b1 - tail) {
      const Snake s = middle(a0, a1 - tail, b0, b1 - tail);
      // Both ends differ, so d >= 2 and each half is a strictly smaller problem.
      solve(a0, s.x, b0, s.y);
      for (int i = s.x, j = s.y; i < s.u; ++i, ++j) {
        same(i, j);
      }
      solve(s.u, a1 - tail, s.v, b1 - tail);
    }
    for (int k = tail; k > 0; --k) {
      same(a1 - k, b1 - k);
    }
  }

  // The middle snake of the box [a0, a1) x [b0, b1): furthest-reaching paths from both corners
  // until they overlap on a diagonal.
  Snake middle(int a0, int a1, int b0, int b1) {
    const int n = a1 - a0;
    const int m = b1 - b0;
    const int delta = n - m;
    const bool odd = (delta & 1) != 0;
    const int max = (n + m + 1) / 2;
    const int off = max + 1;
    // Every other entry the search reads was written at the step before it.
    forward_[size_t(off + 1)] = 0;
    backward_[size_t(off + 1)] = 0;
    auto A = [&](int i) { return a_[size_t(a0 + i)]; };
    auto B = [&](int j) { return b_[size_t(b0 + j)]; };
    for (int d = 0; d <= max; ++d) {
      for (int k = -d; k <= d; k += 2) {
        int x =
            (k == -d || (k != d && forward_[size_t(off + k - 1)] < forward_[size_t(off + k + 1)]))
                ? forward_[size_t(off + k + 1)]
                : forward_[size_t(off + k - 1)] + 1;
        int y = x - k;
        const int sx = x;
        const int sy = y;
        while (x < n && y < m && A(x) == B(y)) {
          ++x;
          ++y;
        }
        forward_[size_t(off + k)] = x;
        const int back = delta - k; // the same diagonal, seen from the other corner
        if (odd && back >= -(d - 1) && back <= d - 1 && x + backward_[size_t(off + back)] >= n) {
          return {a0 + sx, b0 + sy, a0 + x, b0 + y, 2 * d - 1};
        }
      }
      for (int k = -d; k <= d; k += 2) {
        int x =
            (k == -d || (k != d && backward_[size_t(off + k - 1)] < backward_[size_t(off + k + 1)]))
                ? backward_[size_t(off + k + 1)]
                : backward_[size_t(off + k - 1)] + 1;
        int y = x - k;
        const int sx = x;
        const int sy = y;
        while (x < n && y < m && A(n - 1 - x) == B(m - 1 - y)) {
          ++x;
          ++y;
        }
        backward_[size_t(off + k)] = x;
        const int fwd = delta - k;
        if (!odd && fwd >= -d && fwd <= d && x + forward_[size_t(off + fwd)] >= n) {
          return {a0 + n - x, b0 + m - y, a0 + n - sx, b0 + m - sy, 2 * d};
        }
      }
    }
    return {a0, b0, a0, b0, n + m}; // unreachable: the paths always meet by d = max
  }

  const std::vector<int>& a_;
  const std::vector<int>& b_;
  std::vector<int> forward_, backward_;
  std::vector<Match> matches_;
};

} // namespace

DiffResult diffLines(const QStringList& left, const QStringList& right) {
  // Lines as integers; how many times each occurs on each side. The views point into the
  // lists, which outlive the map.
  std::unordered_map<QStringView, int, LineHash> ids;
  ids.reserve(size_t(left.size() + right.size()));
  std::vector<int> leftIds(size_t(left.size())), rightIds(size_t(right.size()));
  std::vector<int> onLeft, onRight;
  const auto idOf = [&](const QString& line) {
    const auto [it, inserted] = ids.emplace(QStringView(line), int(ids.size()));
    if (inserted) {
      onLeft.push_back(0);
      onRight.push_back(0);
    }
    return it->second;
  };
  for (qsizetype i = 0; i < left.size(); ++i) {
    leftIds[size_t(i)] = idOf(left[i]);
    ++onLeft[size_t(leftIds[size_t(i)])];
  }
  for (qsizetype j = 0; j < right.size(); ++j) {
    rightIds[size_t(j)] = idOf(right[j]);
    ++onRight[size_t(rightIds[size_t(j)])];
  }
  // Only lines present on both sides can match.
  std::vector<int> a, b, aAt, bAt;
  for (size_t i = 0; i < leftIds.size(); ++i) {
    if (onRight[size_t(leftIds[i])] > 0) {
      a.push_back(leftIds[i]);
      aAt.push_back(int(i));
    }
  }
  for (size_t j = 0; j < rightIds.size(); ++j) {
    if (onLeft[size_t(rightIds[j])] > 0) {
      b.push_back(rightIds[j]);
      bAt.push_back(int(j));
    }
  }
  std::vector<Match> matches = Myers(a, b).run();
  for (Match& m : matches) {
    m.left = aAt[size_t(m.left)];
    m.right = bAt[size_t(m.right)];
  }
  matches.push_back({int(left.size()), int(right.size())}); // the end, as a last "match"

  DiffResult out;
  int i = 0;
  int j = 0;
  for (const Match& m : matches) {
    // Between two matches: the left lines were removed, the right ones added; side by side,
    // a changed line sits beside its new version.
    const int removed = m.left - i;
    const int added = m.right - j;
    for (int t = 0; t < std::max(removed, added); ++t) {
      DiffRow row;
      row.leftLine = t < removed ? i + t : -1;
      row.rightLine = t < added ? j + t : -1;
      row.kind = row.leftLine < 0    ? DiffRow::Added
                 : row.rightLine < 0 ? DiffRow::Removed
                                     : DiffRow::Changed;
      out.rows.append(row);
    }
    out.removed += removed;
    out.added += added;
    if (m.left < left.size()) {
      out.rows.append({DiffRow::Same, m.left, m.right});
    }
    i = m.left + 1;
    j = m.right + 1;
  }
  return out;
}

} // namespace gui
