// IndexSource: an index as given, or logs indexed into a temporary folder first.
#include "cli/index_source.h"

#include "tlparse/ingest/ingest.h"
#include "tlparse/ingest/log_files.h"
#include "tlparse/text/terminal_text.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string_view>
#include <unistd.h>

namespace tlparse::cli {
namespace {

namespace fs = std::filesystem;

std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int) {
  g_stop.store(true);
}

void install_stop_handler() {
  static bool installed = false;
  if (installed) {
    return;
  }
  installed = true;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  for (const int sig : {SIGINT, SIGTERM}) {
    ::sigaction(sig, &action, nullptr);
  }
}

// An SQLite file starts with this header; a log never does.
bool looks_like_sqlite(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  char head[16] = {};
  return in.read(head, sizeof head) &&
         std::string_view(head, sizeof head) == std::string_view("SQLite format 3\0", 16);
}

// A fresh private folder under $TMPDIR (or /tmp).
Result<fs::path> make_temp_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = (tmp != nullptr && *tmp != '\0' ? std::string(tmp) : std::string("/tmp")) +
                      "/tlparse-index-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) {
    return Error{"cannot create a temporary folder for the index under " +
                 fs::path(templ).parent_path().string()};
  }
  return fs::path(templ);
}

} // namespace

const std::atomic<bool>& interrupted() {
  return g_stop;
}

std::string printable(std::string_view text) {
  return text::terminal_safe(text); // the one escaping rule for terminals (docs/SECURITY.md)
}

Result<std::unique_ptr<IndexSource>> IndexSource::open(const fs::path& path) {
  install_stop_handler();
  std::unique_ptr<IndexSource> src(new IndexSource());
  src->given_ = path;
  std::error_code ec;
  fs::path index_path = path;
  if (fs::is_regular_file(path, ec) && looks_like_sqlite(path)) {
    // An index as given.
  } else if (fs::is_directory(path, ec) && fs::is_regular_file(path / "index.sqlite", ec) &&
             looks_like_sqlite(path / "index.sqlite")) {
    index_path = path / "index.sqlite"; // a report folder: its index, not its raw.log copy
  } else {
    auto logs = ingest::find_logs(path);
    if (!logs) {
      return Error{logs.error()};
    }
    auto dir = make_temp_dir();
    if (!dir) {
      return Error{dir.error()};
    }
    src->temp_dir_ = *dir;
    index_path = *dir / "index.sqlite";
    ingest::IngestOptions options;
    options.cancel = &g_stop;
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    if (tty) {
      options.on_progress = [](uint64_t done, uint64_t total) {
        if (total > (64u << 20)) {
          std::fprintf(stderr, "\rindexing %llu / %llu MB",
                       static_cast<unsigned long long>(done >> 20),
                       static_cast<unsigned long long>(total >> 20));
        }
      };
    }
    const auto result = ingest::ingest_files(*logs, index_path, options);
    if (tty) {
      std::fprintf(stderr, "\r%40s\r", "");
    }
    if (!result.ok) {
      return Error{g_stop.load() ? std::string("interrupted") : result.error};
    }
  }
  auto reader = index::IndexReader::open(index_path);
  if (!reader) {
    return Error{reader.error()};
  }
  src->reader_ = std::move(*reader);
  return src;
}

IndexSource::~IndexSource() {
  reader_.reset();
  if (!temp_dir_.empty()) {
    std::error_code ec;
    fs::remove_all(temp_dir_, ec);
  }
}

} // namespace tlparse::cli
