// Printing of outcomes and frame counts, shared by every view so they all read the same.
#include "gui/index_types.h"

#include <QSet>

namespace gui {

QString outcomeName(CompileOutcome outcome) {
  switch (outcome) {
  case CompileOutcome::Ok:
    return QStringLiteral("ok");
  case CompileOutcome::GraphBreak:
    return QStringLiteral("graph break / restart");
  case CompileOutcome::Failed:
    return QStringLiteral("failed");
  case CompileOutcome::EmptyGraph:
    return QStringLiteral("empty graph");
  case CompileOutcome::CacheHit:
    return QStringLiteral("cache hit");
  case CompileOutcome::Unknown:
    break;
  }
  return QStringLiteral("unknown");
}

int FrameSummary::recompileCount() const {
  QSet<int> distinct;
  for (const CompileSummary& c : compiles) {
    distinct.insert(c.frameCompileId);
  }
  return distinct.isEmpty() ? 0 : int(distinct.size()) - 1;
}

} // namespace gui
