// The backend factory of a build without the tlparse library: every open fails with a
// message that says why, so the window shows it instead of pretending to read anything.
#include "gui/index_backend.h"

namespace gui {

BackendFactory defaultBackendFactory() {
  return [](const OpenRequest&, const ProgressFn&,
            const std::atomic<bool>&) -> std::unique_ptr<IndexBackend> {
    throw BackendError("This tlparse-gui was built without the tlparse library, so it cannot "
                       "read logs or indexes.");
  };
}

} // namespace gui
