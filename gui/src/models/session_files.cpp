// See session_files.h. A signal handler may only do async-signal-safe things, so it writes a
// byte to a socket pair; a QSocketNotifier on the other end quits the event loop.
#include "gui/session_files.h"

#include <QCoreApplication>
#include <QDir>
#include <QSocketNotifier>
#include <cerrno>
#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

namespace gui {

namespace {

constexpr const char* kPrefix = "tlparse-gui-";

int g_signalSocket[2] = {-1, -1};

extern "C" void onQuitSignal(int) {
  const char byte = 1;
  [[maybe_unused]] const auto n = ::write(g_signalSocket[0], &byte, 1);
}

bool processRuns(qint64 pid) {
  return pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM);
}

} // namespace

std::unique_ptr<QTemporaryDir> makeSessionTempDir() {
  auto dir = std::make_unique<QTemporaryDir>(
      QDir::temp().filePath(QStringLiteral("%1%2-XXXXXX")
                                .arg(QLatin1String(kPrefix))
                                .arg(QCoreApplication::applicationPid())));
  if (!dir->isValid()) {
    return nullptr;
  }
  return dir;
}

int removeStaleSessionDirs() {
  int removed = 0;
  const QDir temp = QDir::temp();
  for (const QString& name : temp.entryList({QLatin1String(kPrefix) + QLatin1Char('*')},
                                            QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks)) {
    // tlparse-gui-<pid>-XXXXXX: only folders of this shape, of a process that is gone.
    const QStringList parts = name.mid(int(qstrlen(kPrefix))).split(QLatin1Char('-'));
    bool ok = false;
    const qint64 pid = parts.size() == 2 ? parts[0].toLongLong(&ok) : 0;
    if (!ok || pid == QCoreApplication::applicationPid() || processRuns(pid)) {
      continue;
    }
    if (QDir(temp.filePath(name)).removeRecursively()) {
      ++removed;
    }
  }
  return removed;
}

void installQuitOnSignals(QCoreApplication& app) {
  if (g_signalSocket[0] >= 0 || ::socketpair(AF_UNIX, SOCK_STREAM, 0, g_signalSocket) != 0) {
    return;
  }
  auto* notifier = new QSocketNotifier(g_signalSocket[1], QSocketNotifier::Read, &app);
  QObject::connect(notifier, &QSocketNotifier::activated, &app, [notifier] {
    notifier->setEnabled(false);
    char byte = 0;
    [[maybe_unused]] const auto n = ::read(g_signalSocket[1], &byte, 1);
    QCoreApplication::quit();
  });
  struct sigaction action {};
  action.sa_handler = onQuitSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    ::sigaction(sig, &action, nullptr);
  }
}

} // namespace gui
