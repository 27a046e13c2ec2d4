// An in-memory IndexBackend for the GUI's tests: a small, fully known index (two ranks, a
// recompiled frame, a failed and a cache-hit compile, artifacts, spans), so models and pages
// are checked against exact expectations without a database. `failAll` makes every call throw,
// like a damaged index.
#pragma once

#include "gui/index_backend.h"

#include <QStringList>

namespace gui_test {

class FakeBackend : public gui::IndexBackend {
public:
  explicit FakeBackend(bool failAll = false);

  gui::IndexOverview overview() override;
  gui::CompileDetail compileDetail(qint64 compileId) override;
  gui::ArtifactText artifactText(qint64 artifactId) override;
  gui::ChartSlice chart(const gui::ChartRequest& request) override;
  QList<gui::SearchHit> search(const QString& query, int offset, int limit) override;
  QList<gui::GraphBreakRow> graphBreaks() override;
  QList<gui::HealthRow> health() override;
  QList<gui::HealthIssue> healthIssues(int limit) override;

  // The whole overview, also available to tests without a backend call.
  static gui::IndexOverview sampleOverview();

private:
  void check() const;
  bool failAll_;
};

// A factory that opens FakeBackend for any path except "missing" (throws) and "hostile"
// (opens a backend whose every call throws).
gui::BackendFactory fakeFactory();

} // namespace gui_test
