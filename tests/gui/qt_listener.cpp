// Deletes the tests' QApplication when the Catch2 run ends, while main() is still running.
// The listener interface is only declared with external interfaces enabled (Catch2 v2).
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include "qt_support.h"

#include <catch2/catch.hpp>

namespace {

struct QtApplicationCleanup : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testRunEnded(const Catch::TestRunStats&) override { gui_test::shutdownApp(); }
};

} // namespace

CATCH_REGISTER_LISTENER(QtApplicationCleanup)
