// Printing of compile ids and outcomes, shared by every view so they all read the same.
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

QString CompileSummary::label() const {
  auto part = [](int v) { return v < 0 ? QStringLiteral("-") : QString::number(v); };
  QString s = QStringLiteral("[");
  if (compiledAutogradId >= 0) {
    s += QStringLiteral("!%1/").arg(compiledAutogradId);
  }
  s += part(frameId) + QLatin1Char('/') + part(frameCompileId);
  if (attempt > 0) {
    s += QStringLiteral("_%1").arg(attempt);
  }
  return s + QLatin1Char(']');
}

int FrameSummary::recompileCount() const {
  QSet<int> distinct;
  for (const CompileSummary& c : compiles) {
    distinct.insert(c.frameCompileId);
  }
  return distinct.isEmpty() ? 0 : int(distinct.size()) - 1;
}

} // namespace gui
