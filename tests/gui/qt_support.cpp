// qt_support: the message handler keeps only the model tester's category, so other Qt
// warnings (fonts on the offscreen platform) do not fail tests.
#include "qt_support.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QMutex>
#include <QSettings>
#include <QTemporaryDir>
#include <QThread>

namespace gui_test {

namespace {
QMutex gMutex;
QStringList gProblems;
QtMessageHandler gPrevious = nullptr;

void handler(QtMsgType type, const QMessageLogContext& ctx, const QString& msg) {
  if (ctx.category != nullptr && QByteArray(ctx.category).startsWith("qt.modeltest") &&
      type != QtDebugMsg && type != QtInfoMsg) {
    QMutexLocker lock(&gMutex);
    gProblems.append(msg);
    return;
  }
  if (gPrevious != nullptr) {
    gPrevious(type, ctx, msg);
  }
}
} // namespace

void ensureApp() {
  if (QCoreApplication::instance() != nullptr) {
    return;
  }
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  static int argc = 1;
  static char name[] = "gui-tests";
  static char* argv[] = {name, nullptr};
  // On the heap, deleted by shutdownApp() before main returns: a QApplication destroyed by
  // exit handlers outlives parts of Qt and crashes the process after the tests passed.
  new QApplication(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("torchscope-tests"));
  QCoreApplication::setApplicationName(QStringLiteral("tlparse-gui-tests"));
  // Settings go to a folder of the test run, never to the person's own configuration.
  static QTemporaryDir settingsDir;
  QSettings::setDefaultFormat(QSettings::IniFormat);
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
  gPrevious = qInstallMessageHandler(handler);
}

void shutdownApp() {
  QCoreApplication::processEvents();
  delete QCoreApplication::instance();
}

bool waitFor(const std::function<bool()>& done, int timeoutMs) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    if (t.elapsed() > timeoutMs) {
      return false;
    }
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(2);
  }
  return true;
}

CheckedModel::CheckedModel(QAbstractItemModel* model) {
  {
    QMutexLocker lock(&gMutex);
    gProblems.clear();
  }
  tester_ = std::make_unique<QAbstractItemModelTester>(
      model, QAbstractItemModelTester::FailureReportingMode::Warning);
}

CheckedModel::~CheckedModel() = default;

QStringList CheckedModel::problems() const {
  QMutexLocker lock(&gMutex);
  return gProblems;
}

} // namespace gui_test
