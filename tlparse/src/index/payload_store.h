// How payload bytes are stored in the index (zlib above 16 KB when that saves space) and the
// full-text search table built from them. Shared by the writer, which stores and can build the
// search table at the end of an ingest, and the reader, which inflates payloads and can build
// the search table into a separate file beside an index it must not write to.
#pragma once

#include "index/sqlite_util.h"

#include <optional>
#include <string>
#include <string_view>

namespace tlparse::index {

// Compresses `bytes` into `out` when it is worth it; false: store them as they are.
bool compress_payload(std::string_view bytes, std::string& out);
// The stored bytes back; nullopt when compressed data does not inflate to `size` bytes.
std::optional<std::string> inflate_payload(bool compressed, int64_t size, std::string_view data);

// Creates `<schema>.payload_fts` in `target` and fills it from `source_schema`.payloads (both
// schemas of one connection: "main", or an attached one). False with `error` on failure.
bool fill_search_table(Db& db, const char* target_schema, const char* source_schema,
                       std::string* error);

} // namespace tlparse::index
