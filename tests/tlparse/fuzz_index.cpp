// fuzz_index: libFuzzer over a tampered index. The input is read as a list of edits to a real
// index (one ingested once from a committed log): each edit sets one column of one row of any
// table to a value of any type (integers at the edges, text the report must not trust: URLs, paths
// that leave the folder, markup, names of the report's own files, invalid UTF-8) or deletes the
// row. Then every read-API query runs (the GUI's backend and `tlparse render` make the same
// ones) and the report renders. Errors are fine; a crash, a file outside OUT, a symlink in it or
// executable markup in a page is a bug.
#include "support/html_checks.h"
#include "support/read_everything.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/ingest/ingest.h"
#include "tlparse/report/render.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sqlite3.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Column {
  std::string table, name;
};

struct Sandbox {
  fs::path dir;
  fs::path base; // the untouched index
  std::vector<Column> columns;
};

std::vector<Column> list_columns(sqlite3* db) {
  std::vector<Column> out;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p "
                     "WHERE m.type='table' AND m.sql NOT LIKE '%VIRTUAL%' ORDER BY 1, p.cid",
                     -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) {
    out.push_back({reinterpret_cast<const char*>(sqlite3_column_text(st, 0)),
                   reinterpret_cast<const char*>(sqlite3_column_text(st, 1))});
  }
  sqlite3_finalize(st);
  return out;
}

const Sandbox& sandbox() {
  static const Sandbox box = [] {
    Sandbox b;
    b.dir = fs::temp_directory_path() / ("fuzz_index_" + std::to_string(::getpid()));
    fs::create_directories(b.dir);
    b.base = b.dir / "base.sqlite";
    if (!tlparse::ingest::ingest_files({TORCHSCOPE_SAMPLE_LOG}, b.base, {}).ok) {
      std::abort();
    }
    sqlite3* db = nullptr;
    sqlite3_open(b.base.c_str(), &db);
    b.columns = list_columns(db);
    sqlite3_close(db);
    if (b.columns.empty()) {
      std::abort();
    }
    return b;
  }();
  return box;
}

// Values an attacker would try first; the fuzzer also builds its own.
constexpr const char* kDictionary[] = {
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    " javascript:alert(1)",
    "../../outside.html",
    "/tmp/fuzz_index_pwned.html",
    "index.html/x.html",
    "index.html",
    "raw.log",
    "a/b.html",
    "a",
    "<script>alert(1)</script>",
    "\"><img src=x onerror=alert(1)>",
    "link",
    "json_pretty",
    "",
    "\xff\xfe",
    "9223372036854775807",
    "-1",
};

class Input {
public:
  Input(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  bool empty() const { return p_ >= end_; }
  uint8_t byte() { return p_ < end_ ? *p_++ : 0; }
  int64_t i64() {
    int64_t v = 0;
    for (int i = 0; i < 8; ++i) {
      v = static_cast<int64_t>(static_cast<uint64_t>(v) << 8 | byte());
    }
    return v;
  }
  std::string bytes(size_t n) {
    n = std::min<size_t>(n, static_cast<size_t>(end_ - p_));
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }

private:
  const uint8_t* p_;
  const uint8_t* end_;
};

void apply_edits(sqlite3* db, const std::vector<Column>& columns, Input& in) {
  for (int edit = 0; edit < 16 && !in.empty(); ++edit) {
    const Column& c = columns[(in.byte() << 8 | in.byte()) % columns.size()];
    const int row = in.byte() % 32;
    const int what = in.byte() % 8;
    if (what == 7) {
      const std::string sql = "DELETE FROM \"" + c.table +
                              "\" WHERE rowid IN (SELECT rowid FROM \"" + c.table +
                              "\" LIMIT 1 OFFSET ?)";
      sqlite3_stmt* st = nullptr;
      if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK) {
        sqlite3_bind_int(st, 1, row);
        sqlite3_step(st);
      }
      sqlite3_finalize(st);
      continue;
    }
    const std::string sql = "UPDATE \"" + c.table + "\" SET \"" + c.name +
                            "\"=? WHERE rowid IN (SELECT rowid FROM \"" + c.table +
                            "\" LIMIT 1 OFFSET ?)";
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      sqlite3_finalize(st);
      continue;
    }
    std::string text;
    switch (what) {
    case 0:
      sqlite3_bind_null(st, 1);
      break;
    case 1:
      sqlite3_bind_int64(st, 1, in.i64());
      break;
    case 2: {
      const int64_t bits = in.i64();
      double d;
      std::memcpy(&d, &bits, sizeof d);
      sqlite3_bind_double(st, 1, d);
      break;
    }
    case 3:
    case 4:
      text = in.bytes(in.byte());
      if (what == 3) {
        sqlite3_bind_text(st, 1, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
      } else {
        sqlite3_bind_blob(st, 1, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
      }
      break;
    default:
      text = kDictionary[in.byte() % std::size(kDictionary)];
      if (what == 6) {
        text += in.bytes(in.byte() % 16); // a dictionary word and a tail
      }
      sqlite3_bind_text(st, 1, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
      break;
    }
    sqlite3_bind_int(st, 2, row);
    sqlite3_step(st);
    sqlite3_finalize(st);
  }
}

// Every page of the report in `out` is free of executable markup, and nothing in it is a link.
void check_report(const fs::path& out) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(out, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_symlink()) {
      std::fprintf(stderr, "a symlink in the report: %s\n", it->path().c_str());
      std::abort();
    }
    if (it->is_regular_file() && it->path().extension() == ".html") {
      std::string page;
      if (std::FILE* f = std::fopen(it->path().c_str(), "rb")) {
        char buf[65536];
        for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) {
          page.append(buf, n);
        }
        std::fclose(f);
      }
      const std::string bad = test_support::executable_markup(page);
      if (!bad.empty()) {
        std::fprintf(stderr, "executable markup in %s: %s\n", it->path().c_str(), bad.c_str());
        std::abort();
      }
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Sandbox& box = sandbox();
  const fs::path index = box.dir / "index.sqlite";
  const fs::path out = box.dir / "out";
  std::error_code ec;
  fs::remove_all(out, ec);
  fs::copy_file(box.base, index, fs::copy_options::overwrite_existing, ec);
  if (ec) {
    std::abort();
  }
  {
    sqlite3* db = nullptr;
    if (sqlite3_open(index.c_str(), &db) != SQLITE_OK) {
      std::abort();
    }
    Input in(data, size);
    apply_edits(db, box.columns, in);
    sqlite3_close(db);
  }
  auto reader = tlparse::index::IndexReader::open(index);
  if (!reader) {
    return 0;
  }
  (void)test_support::read_everything(**reader);
  tlparse::report::RenderOptions options;
  options.index_path = index;
  const auto result = tlparse::report::render_report(**reader, options, out);
  (void)result;
  check_report(out);
  // Nothing but the index and the report in the sandbox, nothing at the dictionary's absolute path.
  for (const auto& e : fs::directory_iterator(box.dir)) {
    const std::string name = e.path().filename().string();
    if (name != "base.sqlite" && name != "index.sqlite" && name != "out" &&
        !name.starts_with("index.sqlite-")) {
      std::fprintf(stderr, "written outside OUT: %s\n", e.path().c_str());
      std::abort();
    }
  }
  if (fs::exists("/tmp/fuzz_index_pwned.html", ec) ||
      fs::exists(box.dir.parent_path() / "outside.html", ec)) {
    std::abort();
  }
  return 0;
}
