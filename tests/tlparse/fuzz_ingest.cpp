// fuzz_ingest: libFuzzer over the whole ingest, from bytes to an index, then every read API
// query, then search through a search file. Nothing may crash, hang or fail: bad data is only
// counted, and an index the ingest wrote must always read back.
#include "support/read_everything.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/ingest/ingest.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <vector>

namespace {
// An index the ingest wrote failing to read back is a bug.
template <class T>
T must(tlparse::Result<T> r) {
  if (!r) {
    std::fprintf(stderr, "read failed: %s\n", r.error().c_str());
    std::abort();
  }
  return std::move(r).value();
}
void must(const tlparse::Status& s) {
  if (!s) {
    std::fprintf(stderr, "read failed: %s\n", s.error().c_str());
    std::abort();
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  namespace ti = tlparse::index;
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("fuzz_ingest_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  const fs::path log = dir / "input.log";
  {
    std::ofstream out(log, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  tlparse::ingest::IngestOptions options;
  options.max_line_bytes = 1u << 16;
  const auto result = tlparse::ingest::ingest_files({log}, dir / "index.sqlite", options);
  if (!result.ok) {
    std::abort(); // bad bytes must never fail an ingest
  }
  must(ti::IndexReader::build_search_file(dir / "index.sqlite", dir / "search.sqlite"));
  ti::IndexReader::OpenOptions open_options;
  open_options.search_file = dir / "search.sqlite";
  auto reader = must(ti::IndexReader::open(dir / "index.sqlite", open_options));
  if (const std::string error = test_support::read_everything(*reader); !error.empty()) {
    std::fprintf(stderr, "read failed: %s\n", error.c_str());
    std::abort(); // an index the ingest wrote must read back whole
  }
  for (const auto& f : must(reader->files())) {
    for (const auto& o : must(reader->outputs(f.id))) {
      if (o.path.find("..") != std::string::npos || (!o.path.empty() && o.path[0] == '/')) {
        if (o.kind != ti::OutputKind::link) {
          std::abort(); // an output path escaping the folder is a bug
        }
      }
    }
  }
  for (const char* query : {"torch", "graph*", "\"add\" OR mul"}) {
    int64_t after = 0;
    for (int page = 0; page < 3; ++page) {
      const auto hits = must(reader->search(query, after, 4, 2));
      if (hits.empty()) {
        break;
      }
      after = hits.back().rowid;
    }
  }
  if (reader->search("AND (", 0, 4, 2).ok()) {
    std::abort(); // a malformed query is an error, not an empty page
  }
  return 0;
}
