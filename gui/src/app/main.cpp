// tlparse-gui: `tlparse-gui [PATH]` opens a log file, a folder of logs or an index. When PATH
// cannot be opened (a damaged index, say) the window shows why, and the exit status is 1.
#include "gui/index_session.h"
#include "gui/session_files.h"
#include "main_window.h"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("torchscope"));
  QApplication::setApplicationName(QStringLiteral("tlparse-gui"));
  QApplication::setApplicationVersion(QStringLiteral("0.1"));
  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Browse the frames, compiles, recompiles, graphs, guards and generated code "
                     "of PyTorch TORCH_TRACE logs."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("path"),
                               QStringLiteral("A log file, a folder of logs, or an index."));
  parser.process(app);
  // Temporary folders go on every orderly exit, a quit signal included; a crash's are swept here.
  gui::installQuitOnSignals(app);
  gui::removeStaleSessionDirs();
  gui::MainWindow window;
  window.resize(1400, 900);
  window.show();
  bool pathFailed = false;
  if (!parser.positionalArguments().isEmpty()) {
    QObject::connect(window.session(), &gui::IndexSession::openFailed, &window,
                     [&pathFailed] { pathFailed = true; });
    window.openPath(parser.positionalArguments().first());
  }
  const int rc = QApplication::exec();
  return rc != 0 ? rc : pathFailed ? 1 : 0;
}
