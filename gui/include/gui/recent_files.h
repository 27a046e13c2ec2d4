// The recently opened paths, most recent first, kept in QSettings so they survive restarts.
#pragma once

#include <QSettings>
#include <QStringList>

namespace gui {

class RecentFiles {
public:
  static constexpr int kMaxEntries = 10;
  explicit RecentFiles(QSettings& settings) : settings_(settings) {}

  QStringList paths() const;
  // Puts `path` first (moving it if present) and trims the list.
  void add(const QString& path);
  void remove(const QString& path);
  void clear();

private:
  QSettings& settings_;
};

} // namespace gui
