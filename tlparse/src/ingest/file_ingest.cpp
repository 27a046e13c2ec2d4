// One log file's line loop; the order of its steps is process_line() (file_ingest.h).
#include "ingest/file_ingest.h"

#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_state.h"
#include "ingest/writer/index_writer.h"
#include "tlparse/ingest/log_files.h"
#include "tlparse/text/terminal_text.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tlparse::ingest {
namespace {

using index::HealthId;

// With the line buffer, the envelope copy and zlib's output buffer this keeps peak RSS under
// 150 MB whatever the log; longer payloads are truncated and counted once as payload_too_large
// (their MD5 is not checked: the cut is ours, not a mismatch in the log).
using index::kMaxPayloadBytes;
constexpr uint64_t kMaxMessagesPerFile = 1000;

// The envelope key that names a region of a regionally compiled graph (docs/TLPARSE-INGEST.md).
constexpr std::string_view kSubgraphKey = "subgraph_name";

// The target of `path` when it is a symlink leading out of the folder that holds the link (a log
// folder's `x.log -> /etc/passwd`): such a log is read, and the data health says so.
std::optional<std::string> symlink_outside(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(path, ec)) {
    return std::nullopt;
  }
  const auto parent = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const auto folder = std::filesystem::canonical(parent, ec);
  std::error_code ec2;
  const auto target = std::filesystem::canonical(path, ec2);
  if (ec || ec2) {
    return std::nullopt;
  }
  auto f = folder.begin();
  auto t = target.begin();
  for (; f != folder.end(); ++f, ++t) {
    if (t == target.end() || *f != *t) {
      return target.string();
    }
  }
  return std::nullopt;
}

} // namespace

FileIngest::FileIngest(index::IndexWriter& writer, const IngestOptions& options,
                       const std::atomic<bool>* abort)
    : writer_(writer), options_(options), abort_(abort) {}

FileIngest::~FileIngest() = default;

void FileIngest::message(const std::string& m) {
  if (options_.on_message && messages_ < kMaxMessagesPerFile) {
    ++messages_;
    options_.on_message(m);
  }
}

void FileIngest::process_line(const Line& line) {
  if (drop_unreadable(line)) {
    return;
  }
  LineEvent ev;
  if (!read_prefix(line, ev)) {
    return;
  }
  read_envelope(ev);
  if (!ev.fields_ok) {
    keep_bad_envelope(ev);
    return;
  }
  count_unknown_keys(ev);
  if (handle_whole_line(ev)) {
    return;
  }
  const std::optional<int64_t> payload_id = attach_payload(ev);
  if (keep_other_rank(ev, payload_id)) {
    return;
  }
  handle_event(ev, payload_id);
}

// Overlong, invalid UTF-8 and empty lines are counted and dropped; a missing last newline is
// counted and the line goes on.
bool FileIngest::drop_unreadable(const Line& line) {
  const auto lineno = static_cast<int64_t>(line.number);
  if (line.too_long) {
    ++file_->stats().fail_glog;
    file_->count(HealthId::line_too_long, lineno, line.text);
    return true;
  }
  if (!line.valid_utf8) {
    file_->count(HealthId::invalid_utf8, lineno, line.text);
    return true;
  }
  if (line.text.empty()) {
    file_->count(HealthId::blank_lines, lineno);
    return true;
  }
  if (line.no_newline) {
    file_->count(HealthId::truncated_last_line, lineno, line.text);
  }
  return false;
}

// The glog prefix; false (fail_glog) when the line has none.
bool FileIngest::read_prefix(const Line& line, LineEvent& ev) {
  ev.lineno = static_cast<int64_t>(line.number);
  auto prefix = parse_glog_prefix(line.text);
  if (!prefix) {
    ++file_->stats().fail_glog;
    file_->count(HealthId::fail_glog, ev.lineno, line.text);
    if (line.text.front() == '\t') {
      file_->count(HealthId::stray_payload_lines, ev.lineno, line.text);
    }
    message("Failed to parse glog prefix on line " + std::to_string(ev.lineno));
    return false;
  }
  // The line's bytes are the reader's: reading the payload's lines may move them. What is used
  // after that is copied first (the envelope, the pathname).
  envelope_buf_.assign(line.text.substr(prefix->payload_offset));
  envelope_buf_.reserve(envelope_buf_.size() + simdjson::SIMDJSON_PADDING);
  pathname_buf_.assign(prefix->pathname);
  prefix->pathname = pathname_buf_;
  ev.prefix = *prefix;
  ev.envelope = std::string_view(envelope_buf_.data(), envelope_buf_.size());
  return true;
}

// Parses the envelope, looks each key up in the registry, checks the types of the known ones and
// names the event.
void FileIngest::read_envelope(LineEvent& ev) {
  envelope_parser_.parse(ev.envelope, ev.env);
  ev.event_id = writer_.next_id<index::Event>();
  kinds_.clear();
  for (const auto& f : ev.env.fields) {
    kinds_.push_back(handlers::find_kind(f.key));
  }
  ev.fields_ok = ev.env.is_object && !ev.env.type_error && validate_fields(ev);
  name_event(ev);
}

// The event kind: the first catalogue kind that names events, else a kind that names them only
// alone (`stack`), else the first unknown key.
void FileIngest::name_event(LineEvent& ev) {
  if (!ev.env.is_object) {
    return;
  }
  const auto& reg = handlers::registry();
  const auto& fields = ev.env.fields;
  const auto pick = [&](size_t i) {
    ev.kind = fields[i].key;
    ev.main_value = fields[i].raw_value;
  };
  for (size_t i = 0; i < fields.size(); ++i) {
    const int k = kinds_[i];
    if (k >= 0 && reg[static_cast<size_t>(k)].flow != handlers::Flow::names_event_alone) {
      pick(i);
      ev.known = reg[static_cast<size_t>(k)].known_to_tlparse;
      return;
    }
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    const int k = kinds_[i];
    if (k >= 0) {
      pick(i);
      ev.known = reg[static_cast<size_t>(k)].known_to_tlparse;
      return;
    }
  }
  if (!fields.empty()) {
    pick(0);
    ev.known = false;
  }
}

bool FileIngest::validate_fields(const LineEvent& ev) {
  const auto& reg = handlers::registry();
  bool ok = true;
  handlers::EventContext ctx(*file_);
  ctx.line = ev.lineno;
  for (size_t i = 0; i < ev.env.fields.size(); ++i) {
    const auto& f = ev.env.fields[i];
    const int k = kinds_[i];
    if (k < 0 || !reg[static_cast<size_t>(k)].known_to_tlparse) {
      continue; // unknown to tlparse: never a type error
    }
    if (f.type == simdjson::ondemand::json_type::null) {
      continue; // Option<...> = None
    }
    const auto& entry = reg[static_cast<size_t>(k)];
    ctx.key = f.key;
    ctx.metadata = f.raw_value;
    for (const handlers::Handler* h : {entry.output, entry.recorder}) {
      if (h != nullptr && h->validate != nullptr && !h->validate(ctx)) {
        ok = false;
      }
    }
  }
  return ok;
}

// A line whose envelope is not a JSON object, or whose known key has the wrong type: fail_json,
// like 0.4.3. An object is kept (tlparse drops it) and says so (type_drift_kept).
void FileIngest::keep_bad_envelope(LineEvent& ev) {
  auto& stats = file_->stats();
  const std::string_view text = ev.envelope;
  ++stats.fail_json;
  constexpr size_t kMaxQuoted = 300; // messages quote the line, not a 16 MB envelope
  message("Failed to parse metadata JSON: " +
          ::tlparse::text::terminal_safe(text.substr(0, kMaxQuoted)) +
          (text.size() > kMaxQuoted ? "..." : "") + "\n" + ev.env.error);
  if (!ev.env.is_object) {
    ++stats.fail_json; // the raw.jsonl re-parse fails too
    file_->count(HealthId::fail_json, ev.lineno, text);
    return; // its payload lines stay in the stream and count as fail_glog
  }
  file_->count(HealthId::fail_json, ev.lineno, text);
  // Kept: the event is stored (tlparse drops it), its payload lines are still counted as
  // fail_glog for compatibility but attached to it.
  const std::optional<int64_t> payload_id = attach_payload(ev);
  if (ev.env.has_payload) {
    stats.fail_glog += payload_lines_;
  }
  file_->count(HealthId::type_drift_kept, ev.lineno, text);
  store_event(ev, index::EventStatus::bad_envelope, ev.kind_or_none(), ev.known, std::nullopt,
              payload_id, std::nullopt, true);
}

// Unknown keys are counted for every line whose envelope deserialises (serde collects them
// before anything else happens), including other-rank lines.
void FileIngest::count_unknown_keys(const LineEvent& ev) {
  const auto& reg = handlers::registry();
  for (size_t i = 0; i < ev.env.fields.size(); ++i) {
    const int k = kinds_[i];
    if (k < 0 || !reg[static_cast<size_t>(k)].known_to_tlparse) {
      ++file_->stats().unknown;
      file_->note_unknown_key(ev.env.fields[i].key, ev.lineno);
      if (options_.verbose) {
        message("Unknown field " + ::tlparse::text::terminal_safe(ev.env.fields[i].key));
      }
    }
  }
}

// A key whose handler takes the whole line (`str`) runs before the payload and the rank filter;
// the line ends there: never `ok`, never a raw.jsonl row.
bool FileIngest::handle_whole_line(LineEvent& ev) {
  const auto& reg = handlers::registry();
  for (size_t i = 0; i < ev.env.fields.size(); ++i) {
    const int k = kinds_[i];
    if (k < 0 || reg[static_cast<size_t>(k)].flow != handlers::Flow::whole_line) {
      continue;
    }
    const auto& entry = reg[static_cast<size_t>(k)];
    handlers::EventContext ctx(*file_);
    ctx.event_id = ev.event_id;
    ctx.line = ev.lineno;
    ctx.key = ev.env.fields[i].key;
    ctx.metadata = ev.env.fields[i].raw_value;
    ctx.envelope = ev.envelope;
    entry.output->handle(ctx);
    store_event(ev, index::EventStatus::interned, entry.key, true, std::nullopt, std::nullopt,
                std::nullopt, false);
    return true;
  }
  return false;
}

// Reads the payload lines the envelope declares and stores the payload (checked against its MD5).
std::optional<int64_t> FileIngest::attach_payload(const LineEvent& ev) {
  if (!ev.env.has_payload) {
    return std::nullopt;
  }
  read_payload();
  return store_payload(*ev.env.has_payload, ev.lineno);
}

// The first rank seen is the file's; a line of another rank, or of none after it, is stored as
// other_rank and goes no further.
bool FileIngest::keep_other_rank(LineEvent& ev, std::optional<int64_t> payload_id) {
  const auto& env = ev.env;
  if (env.rank) {
    if (!expected_rank_) {
      expected_rank_ = env.rank;
      message("Detected rank: Some(" + std::to_string(*env.rank) + ")");
    }
  }
  if (expected_rank_ && env.rank != expected_rank_) {
    ++file_->stats().other_rank;
    store_event(ev, index::EventStatus::other_rank, ev.kind_or_none(), ev.known, std::nullopt,
                payload_id, std::nullopt, true);
    return true;
  }
  return false;
}

// An `ok` event: its compile-directory entry (even when nothing is written), the handlers of its
// keys in catalogue order, payloads/<md5>.txt when none of them wrote the payload, its row.
void FileIngest::handle_event(LineEvent& ev, std::optional<int64_t> payload_id) {
  const auto& env = ev.env;
  const auto& reg = handlers::registry();
  ++file_->stats().ok;
  const std::optional<CompileId> cid =
      env.cid_valid ? std::optional<CompileId>(env.cid) : std::nullopt;
  const FileState::KeyRef key = file_->key_for(cid, ev.lineno);

  handlers::EventContext ctx(*file_);
  ctx.event_id = ev.event_id;
  ctx.line = ev.lineno;
  ctx.cid = cid;
  ctx.key_id = key.key_id;
  ctx.compile_id = key.compile_id;
  ctx.has_payload = env.has_payload.has_value();
  ctx.payload = std::string_view(payload_.data(), env.has_payload ? payload_.size() : 0);
  ctx.declared_md5 = env.has_payload.value_or("");
  ctx.envelope = ev.envelope;
  // `subgraph_name` is not a kind (tlparse 0.4.3 counts it as an unknown key, and so do we): it
  // groups the event's outputs by region on the pages. A value that is not a string is ignored.
  for (const auto& f : env.fields) {
    if (f.key == kSubgraphKey && f.type == simdjson::ondemand::json_type::string) {
      simdjson::ondemand::document doc;
      std::string_view name;
      if (!file_->parser()
               .iterate(f.raw_value.data(), f.raw_value.size(),
                        f.raw_value.size() + simdjson::SIMDJSON_PADDING)
               .get(doc) &&
          !doc.get_string().get(name)) {
        ctx.subgraph = std::string(name);
      }
    }
  }
  // Handlers run in registry (catalogue) order, like tlparse runs its parsers in table order.
  bool raw_jsonl = true;
  std::vector<std::pair<int, size_t>> order;
  for (size_t i = 0; i < env.fields.size(); ++i) {
    if (kinds_[i] >= 0) {
      order.emplace_back(kinds_[i], i);
    }
  }
  std::sort(order.begin(), order.end());
  for (const auto& [k, i] : order) {
    const auto& entry = reg[static_cast<size_t>(k)];
    if (!entry.known_to_tlparse && entry.recorder == nullptr) {
      continue;
    }
    if (env.fields[i].type == simdjson::ondemand::json_type::null) {
      continue;
    }
    if (entry.flow == handlers::Flow::no_raw_row) {
      raw_jsonl = false;
    }
    ctx.key = env.fields[i].key;
    ctx.metadata = env.fields[i].raw_value;
    for (const handlers::Handler* h :
         {entry.known_to_tlparse ? entry.output : nullptr, entry.recorder}) {
      if (h != nullptr && h->handle != nullptr) {
        h->handle(ctx);
      }
    }
  }
  std::optional<std::string> payload_filename = ctx.payload_filename;
  if (!payload_filename && env.has_payload && !payload_.empty() && raw_jsonl) {
    ctx.key = ev.kind;
    payload_filename = file_->add_payload_copy(ctx);
  }
  std::optional<std::string_view> pf;
  if (payload_filename) {
    pf = *payload_filename;
  }
  store_event(ev, index::EventStatus::ok, ev.kind_or_none(), ev.known, key.key_id, payload_id, pf,
              raw_jsonl, ctx.cut_values);
}

void FileIngest::read_payload() {
  payload_.clear();
  payload_lines_ = 0;
  payload_truncated_ = false;
  Line line;
  while (reader_->next(line)) {
    if (line.too_long) {
      reader_->push_back();
      break;
    }
    if (!line.valid_utf8) {
      file_->count(HealthId::invalid_utf8, static_cast<int64_t>(line.number), line.text);
      continue;
    }
    if (line.text.empty()) {
      file_->count(HealthId::blank_lines, static_cast<int64_t>(line.number));
      continue;
    }
    if (line.text.front() != '\t') {
      reader_->push_back();
      break;
    }
    if (line.no_newline) {
      file_->count(HealthId::truncated_last_line, static_cast<int64_t>(line.number), line.text);
    }
    if (payload_truncated_ || payload_.size() + line.text.size() > kMaxPayloadBytes) {
      if (!payload_truncated_) {
        file_->count(HealthId::payload_too_large, static_cast<int64_t>(line.number));
        payload_truncated_ = true;
      }
      ++payload_lines_;
      continue;
    }
    if (payload_lines_ > 0) {
      payload_ += '\n';
    }
    payload_.append(line.text.data() + 1, line.text.size() - 1);
    ++payload_lines_;
  }
  payload_.reserve(payload_.size() + simdjson::SIMDJSON_PADDING);
}

std::optional<int64_t> FileIngest::store_payload(std::string_view declared, int64_t line) {
  const common::ContentKey h = common::content_key(payload_);
  auto it = verified_.find(h);
  if (it != verified_.end() && it->second.declared == declared &&
      it->second.size == payload_.size()) {
    if (!it->second.matches && !payload_truncated_) {
      ++file_->stats().fail_payload_md5;
      file_->count(HealthId::fail_payload_md5, line, declared);
    }
    return it->second.payload_id;
  }
  md5_.update(payload_);
  const Md5Digest digest = md5_.finish();
  const bool matches = md5_matches(digest, declared);
  if (!matches && !payload_truncated_) {
    ++file_->stats().fail_payload_md5;
    file_->count(HealthId::fail_payload_md5, line, declared);
  }
  const std::string actual = matches ? std::string(declared) : to_hex(digest);
  const int64_t id = writer_.add_payload(actual, payload_);
  constexpr size_t kMaxVerifiedCache = 100000; // bounded: memory must not grow with the log
  if (verified_.size() >= kMaxVerifiedCache) {
    verified_.clear();
  }
  verified_[h] = VerifiedPayload{std::string(declared), payload_.size(), id, matches};
  return id;
}

void FileIngest::store_event(const LineEvent& ev, index::EventStatus status, std::string_view kind,
                             bool known, std::optional<int64_t> key_id,
                             std::optional<int64_t> payload_id,
                             std::optional<std::string_view> payload_filename, bool raw_jsonl,
                             const CutValues& cuts) {
  const GlogPrefix& prefix = ev.prefix;
  const Envelope& env = ev.env;
  const std::string_view envelope = ev.envelope;
  const std::string_view main_value = ev.main_value;
  const int64_t event_id = ev.event_id;
  const auto part = [](const std::optional<uint32_t>& v) {
    return v ? std::optional<int64_t>(*v) : std::nullopt;
  };
  index::io::EventRecord row;
  row.id = event_id;
  row.file_id = file_->file_id();
  row.line = ev.lineno;
  row.status = status;
  row.kind = kind;
  row.known = known;
  row.cid_valid = env.cid_valid;
  row.caid = part(env.cid.compiled_autograd_id);
  row.frame_id = part(env.cid.frame_id);
  row.frame_compile_id = part(env.cid.frame_compile_id);
  row.attempt = part(env.cid.attempt);
  row.key_id = key_id;
  row.rank = part(env.rank);
  row.level = std::string_view(&prefix.level, 1);
  row.month = prefix.month;
  row.day = prefix.day;
  row.time_us =
      ((static_cast<int64_t>(prefix.hour) * 60 + prefix.minute) * 60 + prefix.second) * 1000000 +
      prefix.microsecond;
  row.thread = static_cast<int64_t>(prefix.thread);
  row.pathname = prefix.pathname;
  row.source_line = static_cast<int64_t>(prefix.source_line);
  row.envelope = envelope;
  // Where the event's own metadata sits in the envelope, so readers need not parse it again.
  if (main_value.data() >= envelope.data() &&
      main_value.data() + main_value.size() <= envelope.data() + envelope.size() &&
      !main_value.empty()) {
    row.value_offset = main_value.data() - envelope.data();
    row.value_length = static_cast<int64_t>(main_value.size());
  }
  row.payload_md5 = env.has_payload;
  row.payload_id = payload_id;
  row.payload_filename = payload_filename;
  row.in_raw_jsonl = raw_jsonl;
  if (raw_jsonl && env.key_conflict) {
    ++file_->stats().fail_key_conflict;
    row.in_raw_jsonl = false;
  }
  // Values stored by content leave the stored envelope; envelope_cuts says where they go back.
  // They come in envelope order, each inside the envelope (a view that is not is kept in place).
  std::vector<index::io::EnvelopeCutRecord> placed;
  if (!cuts.empty()) {
    cut_envelope_.clear();
    const char* kept = envelope.data();
    const char* end = envelope.data() + envelope.size();
    for (const auto& [value, value_id] : cuts) {
      if (value.data() < kept || value.data() + value.size() > end) {
        continue;
      }
      cut_envelope_.append(kept, value.data());
      placed.push_back({event_id, static_cast<int64_t>(placed.size()),
                        static_cast<int64_t>(cut_envelope_.size()), value_id});
      kept = value.data() + value.size();
    }
    cut_envelope_.append(kept, end);
    row.envelope = cut_envelope_;
    row.cut_values = static_cast<int64_t>(placed.size());
  }
  writer_.add(row);
  for (const auto& cut : placed) {
    writer_.add(cut);
  }
}

bool FileIngest::run(const std::filesystem::path& path, int64_t file_id, FileResult& result,
                     std::string& error, const std::function<void(uint64_t)>& progress) {
  // Non-blocking, so a FIFO given as a log cannot hang the open; it is refused just below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = path.string() + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    error = path.string() + " is not a file";
    return false;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  struct tm tm_utc {};
  const time_t mtime = st.st_mtime;
  gmtime_r(&mtime, &tm_utc);
  const std::string path_text = path.string();
  const std::string name = path.filename().string();
  index::io::FileRecord file;
  file.id = file_id;
  file.path = path_text;
  file.name = name;
  file.size_bytes = static_cast<int64_t>(st.st_size);
  if (const auto rank = rank_of_log_name(name)) {
    file.rank_from_name = *rank;
  }
  file.timestamp_year = tm_utc.tm_year + 1900;
  if (!writer_.begin_file(file)) {
    ::close(fd);
    error = writer_.error();
    return false;
  }
  file_ = std::make_unique<FileState>(writer_, file_id, options_);
  if (const auto target = symlink_outside(path)) {
    file_->count(HealthId::log_symlink_outside, 0, *target);
  }
  LineReader reader(fd, options_.max_line_bytes);
  reader_ = &reader;
  Line line;
  uint64_t next_progress = 16u << 20;
  uint64_t lines = 0;
  while (reader.next(line)) {
    if (stopped()) {
      ::close(fd);
      error = "cancelled";
      cancelled_ = true;
      return false;
    }
    process_line(line);
    lines = line.number;
    if (reader.bytes_consumed() >= next_progress) {
      progress(reader.bytes_consumed());
      next_progress = reader.bytes_consumed() + (16u << 20);
    }
  }
  // Lines consumed as payload also advance the count.
  lines = std::max<uint64_t>(lines, line.number);
  if (reader.gzip_truncated()) {
    message(path.filename().string() +
            ": the gzip stream ends early (the file was cut); its lines up to there were read");
  }
  ::close(fd);
  if (!reader.error().empty()) {
    error = path.string() + ": " + reader.error();
    return false;
  }
  progress(static_cast<uint64_t>(st.st_size));
  file_->finish(expected_rank_, lines);
  result.path = path;
  result.file_id = file_id;
  result.stats = file_->stats();
  result.health.assign(file_->health().begin(), file_->health().end());
  result.bytes = static_cast<uint64_t>(st.st_size);
  result.unknown_keys = file_->unknown_key_names();
  if (!writer_.error().empty()) {
    error = writer_.error();
    return false;
  }
  return true;
}

} // namespace tlparse::ingest
