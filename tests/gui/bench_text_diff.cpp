// bench_text_diff: the line diff behind the GUI's side-by-side view of two compiles' artifacts,
// timed on shapes real artifacts take (a graph with a few changed lines; generated code of tens
// of thousands of lines with scattered changes; two unrelated outputs; a moved block), against
// libdtl's O(NP) diff as a yardstick measured in the same run. Prints the time and the number of
// changed lines each finds (fewer is a better diff; "approximate" marks a diff that gave up).
// usage: bench_text_diff [--runs N]
#include "gui/text_diff.h"

#include <QStringList>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dtl/dtl.hpp>
#include <functional>
#include <random>
#include <vector>

namespace {

QString graphLine(std::mt19937& rng, int i) {
  static const char* ops[] = {"torch.sin",    "torch.cos",           "torch.relu",  "operator.add",
                              "torch.matmul", "torch.ops.aten.view", "operator.mul"};
  return QStringLiteral("        v%1: \"f32[%2, %3]\" = %4(v%5, v%6);  v%5 = None")
      .arg(i)
      .arg(8 << (rng() % 4))
      .arg(16 << (rng() % 4))
      .arg(QLatin1String(ops[rng() % 7]))
      .arg(std::max(0, i - 1 - int(rng() % 3)))
      .arg(std::max(0, i - 2));
}

QStringList text(int lines, unsigned seed) {
  std::mt19937 rng(seed);
  QStringList out;
  out.reserve(lines);
  for (int i = 0; i < lines; ++i) {
    out.append(graphLine(rng, i));
  }
  return out;
}

// `changes` lines replaced, inserted or deleted at random places.
QStringList edited(QStringList in, int changes, unsigned seed) {
  std::mt19937 rng(seed);
  for (int c = 0; c < changes; ++c) {
    const int at = int(rng() % unsigned(in.size()));
    switch (rng() % 3) {
    case 0:
      in[at] = in[at] + QStringLiteral("  # changed");
      break;
    case 1:
      in.insert(at, QStringLiteral("        extra_%1 = None").arg(c));
      break;
    default:
      in.removeAt(at);
      break;
    }
  }
  return in;
}

struct Case {
  const char* name;
  QStringList left, right;
};

template <class Fn>
double best_ms(int runs, Fn&& fn) {
  double best = 1e300;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    best = std::min(
        best,
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

} // namespace

int main(int argc, char** argv) {
  int runs = 3;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0) {
      runs = std::max(1, std::atoi(argv[i + 1]));
    }
  }
  std::vector<Case> cases;
  const QStringList graph = text(60, 1);
  cases.push_back({"graph, 60 lines, 2 changed", graph, edited(graph, 2, 2)});
  const QStringList medium = text(5000, 3);
  cases.push_back({"code, 5k lines, 50 changes", medium, edited(medium, 50, 4)});
  const QStringList large = text(100000, 5);
  cases.push_back({"code, 100k lines, 200 changes", large, edited(large, 200, 6)});
  cases.push_back({"unrelated, 20k vs 20k lines", text(20000, 7), text(20000, 8)});
  QStringList moved = text(20000, 9);
  QStringList moved_right = moved;
  const QStringList block = moved_right.mid(2000, 2000);
  moved_right.remove(2000, 2000);
  for (int i = 0; i < block.size(); ++i) {
    moved_right.insert(15000 + i, block[i]);
  }
  cases.push_back({"20k lines, a 2k-line block moved", moved, moved_right});

  std::printf("%-36s %22s %22s\n", "case", "ours: ms (changed)", "dtl: ms (changed)");
  for (const Case& c : cases) {
    gui::DiffResult ours;
    const double ours_ms = best_ms(runs, [&] { ours = gui::diffLines(c.left, c.right); });
    const std::vector<QString> a(c.left.begin(), c.left.end());
    const std::vector<QString> b(c.right.begin(), c.right.end());
    long long dtl_changes = 0;
    const double dtl_ms = best_ms(runs, [&] {
      dtl::Diff<QString, std::vector<QString>> d(a, b);
      d.onHuge();
      d.compose();
      dtl_changes = d.getEditDistance();
    });
    char ours_text[64];
    std::snprintf(ours_text, sizeof ours_text, "%9.2f (%d)", ours_ms, ours.removed + ours.added);
    std::printf("%-36s %22s %12.2f (%lld)\n", c.name, ours_text, dtl_ms, dtl_changes);
  }
  return 0;
}
