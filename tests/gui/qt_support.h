// Qt glue for Catch2 tests: one QApplication for the process (offscreen), waiting on the event
// loop for a condition, and a collector of QAbstractItemModelTester complaints so a broken
// model fails the test that broke it.
#pragma once

#include <QAbstractItemModel>
#include <QAbstractItemModelTester>
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>

namespace gui_test {

// Creates the QApplication on first use (QT_QPA_PLATFORM=offscreen unless set).
void ensureApp();
// Deletes the application object; tests get this from the Catch2 listener in qt_listener.cpp.
void shutdownApp();
// Processes events until `done()` or `timeoutMs` passes; returns done().
bool waitFor(const std::function<bool()>& done, int timeoutMs = 20000);

// Runs a QAbstractItemModelTester over `model` and records what it reports.
class CheckedModel {
public:
  explicit CheckedModel(QAbstractItemModel* model);
  ~CheckedModel();
  QStringList problems() const;

private:
  std::unique_ptr<QAbstractItemModelTester> tester_;
};

} // namespace gui_test
