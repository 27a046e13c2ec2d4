// The GUI's temporary files (the index built from logs, a search table for an index that has
// none) live in one folder per backend, removed when the backend goes: on Close, on a new Open,
// on quitting, and on SIGINT/SIGTERM/SIGHUP, which the executable turns into an orderly quit
// (installQuitOnSignals). Only SIGKILL or a crash can leave one behind; such folders carry the
// process id, and the next start removes those whose process is gone.
#pragma once

#include <QTemporaryDir>
#include <memory>

class QCoreApplication;

namespace gui {

// A new folder `tlparse-gui-<pid>-XXXXXX` in the system's temporary folder; null on failure.
std::unique_ptr<QTemporaryDir> makeSessionTempDir();

// Removes the session folders of processes that no longer run; returns how many.
int removeStaleSessionDirs();

// SIGINT, SIGTERM and SIGHUP quit the application's event loop (so destructors run and
// temporary folders go) instead of killing the process. Call once, after the application exists.
void installQuitOnSignals(QCoreApplication& app);

} // namespace gui
