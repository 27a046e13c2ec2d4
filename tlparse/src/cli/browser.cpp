// See browser.h.
#include "cli/browser.h"

#include <cstdlib>
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

extern char** environ;

namespace tlparse::cli {

bool browser_wanted(bool no_browser) {
  const auto set = [](const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0';
  };
  return !no_browser && (set("DISPLAY") || set("WAYLAND_DISPLAY")) && !set("CI") &&
         ::isatty(STDOUT_FILENO) != 0;
}

bool open_in_browser(const std::filesystem::path& page, std::string& warning) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  const std::string target = std::filesystem::absolute(page).string();
  char program[] = "xdg-open";
  std::string arg = target;
  char* argv[] = {program, arg.data(), nullptr};
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, "xdg-open", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    warning = "could not start xdg-open to show " + target + " (pass --no-browser to skip this)";
    return false;
  }
  return true; // not waited for: the browser outlives us
}

} // namespace tlparse::cli
