// RecentFiles: one QSettings key, normalised absolute paths, no duplicates.
#include "gui/recent_files.h"

#include <QFileInfo>

namespace gui {

namespace {
const QString kKey = QStringLiteral("recentFiles");

QString normalised(const QString& path) {
  return QFileInfo(path).absoluteFilePath();
}
} // namespace

QStringList RecentFiles::paths() const {
  QStringList out = settings_.value(kKey).toStringList();
  out.removeDuplicates();
  while (out.size() > kMaxEntries) {
    out.removeLast();
  }
  return out;
}

void RecentFiles::add(const QString& path) {
  QStringList list = paths();
  const QString p = normalised(path);
  list.removeAll(p);
  list.prepend(p);
  while (list.size() > kMaxEntries) {
    list.removeLast();
  }
  settings_.setValue(kKey, list);
}

void RecentFiles::remove(const QString& path) {
  QStringList list = paths();
  list.removeAll(normalised(path));
  settings_.setValue(kKey, list);
}

void RecentFiles::clear() {
  settings_.remove(kKey);
}

} // namespace gui
