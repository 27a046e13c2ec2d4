// See payload_store.h.
#include "index/payload_store.h"

#include "index/schema_io.gen.h"
#include "tlparse/index/stats.h"

#include <zlib.h>

namespace tlparse::index {
namespace {
constexpr size_t kCompressAbove = 16384;
} // namespace

bool compress_payload(std::string_view bytes, std::string& out) {
  if (bytes.size() <= kCompressAbove) {
    return false;
  }
  uLongf len = compressBound(static_cast<uLong>(bytes.size()));
  out.resize(len);
  // Level 1: higher levels cost more ingest time than the space is worth.
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &len,
                reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uLong>(bytes.size()),
                1) != Z_OK ||
      len >= bytes.size()) {
    return false;
  }
  out.resize(len);
  return true;
}

std::optional<std::string> inflate_payload(bool compressed, int64_t size, std::string_view data) {
  // The size comes from the index, which may have been tampered with: it must be what the ingest
  // can write (never more than its payload limit, so nothing larger is allocated) and must match.
  if (size < 0 || size > static_cast<int64_t>(kMaxPayloadBytes)) {
    return std::nullopt;
  }
  if (!compressed) {
    return static_cast<int64_t>(data.size()) == size ? std::optional<std::string>(data)
                                                     : std::nullopt;
  }
  std::string out(static_cast<size_t>(size), '\0');
  uLongf len = static_cast<uLongf>(size);
  if (uncompress(reinterpret_cast<Bytef*>(out.data()), &len,
                 reinterpret_cast<const Bytef*>(data.data()),
                 static_cast<uLong>(data.size())) != Z_OK ||
      static_cast<int64_t>(len) != size) {
    return std::nullopt;
  }
  return out;
}

bool fill_search_table(Db& db, const char* target_schema, const char* source_schema,
                       std::string* error) {
  const std::string target = std::string(target_schema) + "." + io::kSearchTableName;
  std::string create = io::kCreateSearchTable;
  create.replace(create.find(io::kSearchTableName), std::string_view(io::kSearchTableName).size(),
                 target);
  if (!db.exec(("DROP TABLE IF EXISTS " + target + "; " + create + "; BEGIN;").c_str(), error)) {
    return false;
  }
  const std::string select =
      std::string("SELECT id,compressed,size,data FROM ") + source_schema + ".payloads ORDER BY id";
  Stmt read(db.get(), select.c_str());
  Stmt insert(db.get(), ("INSERT INTO " + target + "(text,payload_id) VALUES(?,?)").c_str());
  Step step = Step::error;
  while (read.ok() && insert.ok() && (step = read.step()) == Step::row) {
    const auto text = inflate_payload(read.i64(1) != 0, read.i64(2), read.blob_view(3));
    if (!text) {
      if (error != nullptr) {
        *error =
            "payload " + std::to_string(read.i64(0)) + " does not inflate: the index is damaged";
      }
      db.exec("ROLLBACK", nullptr);
      return false;
    }
    insert.bind(1, std::string_view(*text));
    insert.bind(2, read.i64(0));
    if (!insert.run()) {
      if (error != nullptr) {
        *error = insert.error();
      }
      db.exec("ROLLBACK", nullptr);
      return false;
    }
  }
  if (step != Step::done) {
    if (error != nullptr) {
      *error = !read.ok() ? read.error() : !insert.ok() ? insert.error() : read.error();
    }
    db.exec("ROLLBACK", nullptr);
    return false;
  }
  return db.exec("COMMIT", error);
}

} // namespace tlparse::index
