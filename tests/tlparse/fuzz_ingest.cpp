// fuzz_ingest: libFuzzer over the whole ingest, from bytes to an index, then every read API
// query, then the GUI's queries (search table, paged search, unknown keys). Nothing may crash,
// hang or fail: bad data is only counted.
#include "tlparse/index/gui_queries.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/ingest/ingest.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
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
  std::string error;
  auto reader = tlparse::index::IndexReader::open(dir / "index.sqlite", &error);
  if (!reader) {
    std::abort();
  }
  for (const auto& f : reader->files()) {
    (void)reader->compile_keys(f.id);
    for (const auto& o : reader->outputs(f.id)) {
      if (o.path.find("..") != std::string::npos || (!o.path.empty() && o.path[0] == '/')) {
        if (o.kind != tlparse::index::OutputKind::link) {
          std::abort(); // an output path escaping the folder is a bug
        }
      }
      (void)reader->output_metadata_json(o.id);
      (void)reader->payload(o.event_id);
    }
    reader->for_each_event(f.id, [](const tlparse::index::Event&) { return true; });
    (void)reader->dynamo_starts(f.id);
    (void)reader->compilation_metrics(f.id);
    (void)reader->frames(f.id);
    (void)reader->chromium_spans(f.id);
  }
  std::vector<int64_t> file_ids;
  for (const auto& f : reader->files()) {
    file_ids.push_back(f.id);
  }
  reader.reset(); // prepare_search writes into the index file
  if (!tlparse::index::GuiQueries::prepare_search(dir / "index.sqlite", &error)) {
    std::abort();
  }
  auto gui = tlparse::index::GuiQueries::open(dir / "index.sqlite", &error);
  if (!gui || !gui->search_ready()) {
    std::abort();
  }
  for (const char* query : {"torch", "graph*", "\"add\" OR mul", "AND ("}) {
    int64_t after = 0;
    for (int page = 0; page < 3; ++page) { // a malformed query only sets the error
      const auto hits = gui->search(query, after, 4, 2, &error);
      if (hits.empty()) {
        break;
      }
      after = hits.back().fts_rowid;
    }
  }
  for (int64_t id : file_ids) {
    (void)gui->unknown_keys(id);
  }
  return 0;
}
