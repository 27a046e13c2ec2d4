// The one door from the GUI to an index. A backend is created and used on the worker thread
// only; the production backend calls tlparse's ingest and read API, tests use an in-memory one.
// Keeping the door this narrow is what lets every model be tested without a database.
#pragma once

#include "gui/index_types.h"

#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <stdexcept>

namespace gui {

// A failure the person should read (a missing file, a damaged index); never a bug.
class BackendError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class IndexBackend {
public:
  virtual ~IndexBackend() = default;

  virtual IndexOverview overview() = 0;
  virtual CompileDetail compileDetail(qint64 compileId) = 0;
  virtual ArtifactText artifactText(qint64 artifactId) = 0;
  // The compile-time chart's spans in a window (only those it can show).
  virtual ChartSlice chart(const ChartRequest& request) = 0;
  // Full-text search over every payload; `offset`/`limit` page through the hits.
  virtual QList<SearchHit> search(const QString& query, int offset, int limit) = 0;
  // Distinct graph breaks of every file, most frequent first within a file.
  virtual QList<GraphBreakRow> graphBreaks() = 0;
  virtual QList<HealthRow> health() = 0;
  // The lines and items behind the counters, at most `limit` of them.
  virtual QList<HealthIssue> healthIssues(int limit) = 0;
};

// Progress of opening: `done` of `total` units (bytes of logs); returns nothing, the worker
// forwards it as a signal. `cancel` is polled by long operations.
using ProgressFn = std::function<void(qint64 done, qint64 total, const QString& what)>;

struct OpenRequest {
  QString path;      // a log file, a folder of logs, or an index (.sqlite / .db)
  QString indexPath; // where to write the index built from logs; empty: a temporary file
};

// Opens `request.path`, building an index first when it is not one already. Throws
// BackendError with a message for the person; returns null when cancelled.
using BackendFactory = std::function<std::unique_ptr<IndexBackend>(
    const OpenRequest& request, const ProgressFn& progress, const std::atomic<bool>& cancel)>;

// The production factory (tlparse ingest + read API); a factory that throws "not available"
// when the GUI was built without the tlparse library.
BackendFactory defaultBackendFactory();

} // namespace gui
