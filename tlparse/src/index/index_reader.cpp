// IndexReader, the door: opening and checking an index, and what concerns the file as a whole
// (index_reader.h). Each part's queries are in its own file (compiles_reader.cpp, ...).
#include "tlparse/index/index_reader.h"

#include "index/reader_core.h"

#include <fstream>

namespace tlparse::index {

using namespace detail;

IndexReader::IndexReader(std::unique_ptr<ReaderCore> core)
    : CompilesReader(core.get()), OutputsReader(core.get()), SpansReader(core.get()),
      AnswersReader(core.get()), connection_(std::move(core)) {}
IndexReader::~IndexReader() = default;

namespace {

// A file whose SQLite header promises more pages than it holds was cut short.
std::optional<std::string> truncation(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char h[100] = {};
  if (!in.read(reinterpret_cast<char*>(h), sizeof h)) {
    return std::nullopt; // too short for a header: SQLite says "not a database"
  }
  const auto be32 = [&](int at) {
    return (uint32_t{h[at]} << 24) | (uint32_t{h[at + 1]} << 16) | (uint32_t{h[at + 2]} << 8) |
           uint32_t{h[at + 3]};
  };
  uint64_t page_size = (uint32_t{h[16]} << 8) | h[17];
  if (page_size == 1) {
    page_size = 65536;
  }
  // The page count in the header is valid when its change counter matches (offset 24 vs 92).
  if (be32(24) != be32(92)) {
    return std::nullopt;
  }
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  const uint64_t expected = uint64_t{be32(28)} * page_size;
  if (!ec && expected > size) {
    return "the file is truncated: its header says " + std::to_string(expected) +
           " bytes, it has " + std::to_string(size);
  }
  return std::nullopt;
}

} // namespace

Result<std::unique_ptr<IndexReader>> IndexReader::open(const std::filesystem::path& path) {
  return open(path, OpenOptions());
}

Result<std::unique_ptr<IndexReader>> IndexReader::open(const std::filesystem::path& path,
                                                       const OpenOptions& options) {
  auto core = std::make_unique<ReaderCore>();
  core->path = path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error{path.string() + ": no such index file"};
  }
  if (auto cut = truncation(path)) {
    return Error{path.string() + ": " + *cut + "; rebuild the index with `tlparse index`"};
  }
  std::string error;
  const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
                    (options.one_thread ? SQLITE_OPEN_NOMUTEX : SQLITE_OPEN_FULLMUTEX);
  if (!core->db.open(path.string(), flags, &error)) {
    return Error{path.string() + ": " + error};
  }
  // Is it an index, and of this version?
  std::optional<std::string> version;
  Status st = core->each_row("meta", "SELECT value FROM meta WHERE key='schema_version'", {},
                             [&](const Stmt& s, int& bad) {
                               std::string v;
                               if (!read_column(s, 0, v)) {
                                 bad = 0;
                                 return Next::bad;
                               }
                               version = v;
                               return Next::stop;
                             });
  if (!st || !version) {
    return Error{path.string() + " is not a torchscope index" +
                 (st ? std::string() : " (" + st.error() + ")")};
  }
  if (*version != std::to_string(kSchemaVersion)) {
    // Indexes are written by the tlparse that reads them: any other version is rebuilt from the
    // logs, never read with another layout.
    const auto number = [](const std::string& v) {
      return !v.empty() && v.size() < 10 && v.find_first_not_of("0123456789") == std::string::npos
                 ? std::optional<int>(std::stoi(v))
                 : std::nullopt;
    };
    const std::optional<int> theirs = number(*version);
    const std::string by = !theirs                    ? "an unknown version of tlparse"
                           : *theirs < kSchemaVersion ? "an older tlparse"
                                                      : "a newer tlparse";
    // Only a number is shown: the text comes from the file and may hold anything.
    return Error{path.string() + ": this index was written by " + by + " (index schema version " +
                 (theirs ? *version : std::string("unknown")) + "; this tlparse reads version " +
                 std::to_string(kSchemaVersion) + "): re-run tlparse on the logs to rebuild it"};
  }
  // Every declared table, with its columns in order and their types.
  for (const io::TableInfo& t : io::kTables) {
    int seen = 0;
    std::string mismatch;
    st = core->each_row(t.name, std::string("PRAGMA main.table_info(") + t.name + ")", {},
                        [&](const Stmt& s, int&) {
                          const std::string name(s.text_view(1));
                          const std::string type(s.text_view(2));
                          const bool not_null = s.i64(3) != 0;
                          const bool primary = s.i64(5) != 0;
                          if (seen >= t.column_count) {
                            mismatch = "an undeclared column " + name;
                            return Next::stop;
                          }
                          const io::ColumnInfo& c = t.columns[seen++];
                          if (name != c.name || type != c.type || not_null != c.not_null ||
                              primary != c.primary) {
                            mismatch = "column " + name + " " + type + " where " + c.name + " " +
                                       c.type + " is declared";
                          }
                          return mismatch.empty() ? Next::more : Next::stop;
                        });
    if (!st) {
      return Error{st.error()};
    }
    if (seen == 0) {
      return Error{path.string() + ": the table " + t.name +
                   " is missing; the index is damaged (rebuild it with `tlparse index`)"};
    }
    if (mismatch.empty() && seen != t.column_count) {
      mismatch = "only " + std::to_string(seen) + " of its columns";
    }
    if (!mismatch.empty()) {
      return Error{path.string() + ": table " + t.name + " has " + mismatch +
                   "; the index is damaged (rebuild it with `tlparse index`)"};
    }
  }
  if (options.scans_in_order) {
    if (!core->db.exec("PRAGMA cache_size=-256;", &error)) {
      return Error{path.string() + ": " + error};
    }
  }
  if (!options.search_file.empty()) {
    Stmt attach(core->db.get(), "ATTACH DATABASE ? AS search");
    const std::string uri = read_only_uri(options.search_file);
    attach.bind(1, std::string_view(uri));
    if (!attach.run()) {
      return Error{options.search_file.string() + ": " + attach.error()};
    }
    core->search_attached = true;
  }
  return std::unique_ptr<IndexReader>(new IndexReader(std::move(core)));
}

const std::filesystem::path& IndexReader::path() const {
  return connection_->path;
}

Status IndexReader::check_integrity() const {
  std::string problems;
  const Status st =
      connection_->each_row("the whole file", "PRAGMA quick_check", {}, [&](const Stmt& s, int&) {
        const std::string_view line = s.text_view(0);
        if (line != "ok" && problems.size() < 400) {
          problems += (problems.empty() ? "" : "; ");
          problems += line;
        }
        return Next::more;
      });
  if (!st) {
    return st;
  }
  if (!problems.empty()) {
    return connection_->damaged("the whole file", problems);
  }
  return {};
}

Result<std::vector<File>> IndexReader::files() const {
  return connection_->rows<File>("ORDER BY id", {});
}

Result<Stats> IndexReader::stats(int64_t file_id) const {
  auto counters = health(file_id);
  if (!counters) {
    return Error{counters.error()};
  }
  Stats st;
  for (const HealthCounter& h : *counters) {
    const std::string_view c = h.counter;
    uint64_t* slot = c == "ok"                        ? &st.ok
                     : c == "other_rank"              ? &st.other_rank
                     : c == "fail_glog"               ? &st.fail_glog
                     : c == "fail_json"               ? &st.fail_json
                     : c == "fail_payload_md5"        ? &st.fail_payload_md5
                     : c == "fail_dynamo_guards_json" ? &st.fail_dynamo_guards_json
                     : c == "fail_parser"             ? &st.fail_parser
                     : c == "fail_key_conflict"       ? &st.fail_key_conflict
                     : c == "fail_json_serialization" ? &st.fail_json_serialization
                     : c == "unknown"                 ? &st.unknown
                                                      : nullptr;
    if (slot != nullptr) {
      *slot = static_cast<uint64_t>(std::max<int64_t>(0, h.count));
    }
  }
  return st;
}

Result<std::vector<HealthCounter>> IndexReader::health(int64_t file_id) const {
  return connection_->rows<HealthCounter>("WHERE file_id=? ORDER BY rowid", {file_id});
}

Result<std::vector<UnknownKey>> IndexReader::unknown_keys(int64_t file_id) const {
  return connection_->rows<UnknownKey>("WHERE file_id=? ORDER BY first_line, key", {file_id});
}

Result<std::vector<BadLine>> IndexReader::bad_lines(int64_t file_id, int64_t limit) const {
  return connection_->rows<BadLine>("WHERE file_id=? ORDER BY rowid LIMIT ?", {file_id, limit});
}

} // namespace tlparse::index
