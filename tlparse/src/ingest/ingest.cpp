// The per-line algorithm of tlparse 0.4.3 (docs/TLPARSE-INGEST.md, "The order of work on one
// line"), streamed: reader ->
// glog prefix -> envelope -> registry handlers -> model -> index writer. Counters match 0.4.3;
// where 0.4.3 throws data away (a wrong-typed envelope and its payload, invalid UTF-8) we count
// the same but keep what we can and say so in the health table.
#include "tlparse/ingest/ingest.h"

#include "common/content_hash.h"
#include "ingest/envelope/envelope.h"
#include "ingest/handlers/handler.h"
#include "ingest/reader/glog_prefix.h"
#include "ingest/reader/line_reader.h"
#include "ingest/reader/md5.h"
#include "ingest/trackers/file_model.h"
#include "ingest/writer/index_writer.h"
#include "tlparse/ingest/log_files.h"
#include "tlparse/text/terminal_text.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <functional>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>

namespace tlparse::ingest {
namespace {

using index::HealthId;

// With the line buffer, the envelope copy and zlib's output buffer this keeps peak RSS under
// 150 MB whatever the log; longer payloads are truncated and counted once as payload_too_large
// (their MD5 is not checked: the cut is ours, not a mismatch in the log).
using index::kMaxPayloadBytes;
constexpr uint64_t kMaxMessagesPerFile = 1000;

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

struct VerifiedPayload {
  std::string declared;
  size_t size = 0;
  int64_t payload_id = 0;
  bool matches = false;
};

// The envelope key that names a region of a regionally compiled graph (docs/TLPARSE-INGEST.md).
constexpr std::string_view kSubgraphKey = "subgraph_name";

// Values of an envelope stored by content, to leave out of its row (EventContext::cut_values).
using CutValues = std::vector<std::pair<std::string_view, int64_t>>;

class FileIngest {
public:
  // `abort` stops the file like a cancel (another file failed).
  FileIngest(index::IndexWriter& writer, const IngestOptions& options,
             const std::atomic<bool>* abort = nullptr)
      : writer_(writer), options_(options), abort_(abort) {}

  // Ingests `path` as file `file_id`. `progress` is told the bytes read so far.
  bool run(const std::filesystem::path& path, int64_t file_id, FileResult& result,
           std::string& error, const std::function<void(uint64_t)>& progress);
  bool cancelled() const { return cancelled_; }

private:
  void message(const std::string& m) {
    if (options_.on_message && messages_ < kMaxMessagesPerFile) {
      ++messages_;
      options_.on_message(m);
    }
  }
  void process_line(const Line& line);
  bool validate_fields(const Envelope& env, const std::vector<int>& kinds, int64_t line);
  void read_payload();
  std::optional<int64_t> store_payload(std::string_view declared, int64_t line);
  void store_event(const Line& line, const GlogPrefix& prefix, std::string_view envelope,
                   const Envelope& env, index::EventStatus status, std::string_view kind,
                   bool known, std::optional<int64_t> key_id, std::optional<int64_t> payload_id,
                   std::optional<std::string_view> payload_filename, bool raw_jsonl,
                   int64_t event_id, const CutValues& cuts = {});

  bool stopped() const {
    return (options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed)) ||
           (abort_ != nullptr && abort_->load(std::memory_order_relaxed));
  }

  index::IndexWriter& writer_;
  const IngestOptions& options_;
  const std::atomic<bool>* abort_;
  std::unique_ptr<model::FileModel> model_;
  LineReader* reader_ = nullptr;
  EnvelopeParser envelope_parser_;
  std::string envelope_buf_;
  std::string pathname_buf_; // the glog pathname of the line being processed
  std::string cut_envelope_; // the stored envelope of an event with cut values
  std::string payload_;
  uint64_t payload_lines_ = 0;
  bool payload_truncated_ = false; // the last payload read was cut at kMaxPayloadBytes
  std::vector<uint64_t> stray_payload_lines_;
  std::optional<uint32_t> expected_rank_;
  uint64_t messages_ = 0;
  std::unordered_map<common::ContentKey, VerifiedPayload, common::ContentKeyHash>
      verified_; // trusted on a match
  Md5 md5_;
  std::vector<int> kinds_;
  std::string_view main_value_; // the raw value of the event's own key, inside envelope_buf_
  bool cancelled_ = false;
};

bool FileIngest::validate_fields(const Envelope& env, const std::vector<int>& kinds, int64_t line) {
  const auto& reg = handlers::registry();
  bool ok = true;
  for (size_t i = 0; i < env.fields.size(); ++i) {
    const auto& f = env.fields[i];
    const int k = kinds[i];
    if (k < 0 || !reg[static_cast<size_t>(k)].known_to_tlparse) {
      continue; // unknown to tlparse: never a type error
    }
    const auto& entry = reg[static_cast<size_t>(k)];
    if (k == handlers::str_kind()) {
      continue; // checked when interning
    }
    if (k == handlers::stack_kind()) {
      std::vector<index::StackFrame> frames;
      if (f.type != simdjson::ondemand::json_type::null &&
          !model_->parse_stack(f.raw_value, frames, line)) {
        ok = false;
      }
      continue;
    }
    if (f.type == simdjson::ondemand::json_type::null) {
      continue; // Option<...> = None
    }
    for (const handlers::Handler* h : {entry.output, entry.recorder}) {
      if (h != nullptr && h->validate != nullptr && !h->validate(model_->parser(), f.raw_value)) {
        ok = false;
      }
    }
  }
  return ok;
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
      model_->count(HealthId::invalid_utf8, static_cast<int64_t>(line.number), line.text);
      continue;
    }
    if (line.text.empty()) {
      model_->count(HealthId::blank_lines, static_cast<int64_t>(line.number));
      continue;
    }
    if (line.text.front() != '\t') {
      reader_->push_back();
      break;
    }
    if (line.no_newline) {
      model_->count(HealthId::truncated_last_line, static_cast<int64_t>(line.number), line.text);
    }
    if (payload_truncated_ || payload_.size() + line.text.size() > kMaxPayloadBytes) {
      if (!payload_truncated_) {
        model_->count(HealthId::payload_too_large, static_cast<int64_t>(line.number));
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
      ++model_->stats().fail_payload_md5;
      model_->count(HealthId::fail_payload_md5, line, declared);
    }
    return it->second.payload_id;
  }
  md5_.update(payload_);
  const Md5Digest digest = md5_.finish();
  const bool matches = md5_matches(digest, declared);
  if (!matches && !payload_truncated_) {
    ++model_->stats().fail_payload_md5;
    model_->count(HealthId::fail_payload_md5, line, declared);
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

void FileIngest::store_event(const Line& line, const GlogPrefix& prefix, std::string_view envelope,
                             const Envelope& env, index::EventStatus status, std::string_view kind,
                             bool known, std::optional<int64_t> key_id,
                             std::optional<int64_t> payload_id,
                             std::optional<std::string_view> payload_filename, bool raw_jsonl,
                             int64_t event_id, const CutValues& cuts) {
  const auto part = [](const std::optional<uint32_t>& v) {
    return v ? std::optional<int64_t>(*v) : std::nullopt;
  };
  index::io::EventRecord row;
  row.id = event_id;
  row.file_id = model_->file_id();
  row.line = static_cast<int64_t>(line.number);
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
  if (main_value_.data() >= envelope.data() &&
      main_value_.data() + main_value_.size() <= envelope.data() + envelope.size() &&
      !main_value_.empty()) {
    row.value_offset = main_value_.data() - envelope.data();
    row.value_length = static_cast<int64_t>(main_value_.size());
  }
  row.payload_md5 = env.has_payload;
  row.payload_id = payload_id;
  row.payload_filename = payload_filename;
  row.in_raw_jsonl = raw_jsonl;
  if (raw_jsonl && env.key_conflict) {
    ++model_->stats().fail_key_conflict;
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

void FileIngest::process_line(const Line& line) {
  const auto lineno = static_cast<int64_t>(line.number);
  auto& stats = model_->stats();
  if (line.too_long) {
    ++stats.fail_glog;
    model_->count(HealthId::line_too_long, lineno, line.text);
    return;
  }
  if (!line.valid_utf8) {
    model_->count(HealthId::invalid_utf8, lineno, line.text);
    return;
  }
  if (line.text.empty()) {
    model_->count(HealthId::blank_lines, lineno);
    return;
  }
  if (line.no_newline) {
    model_->count(HealthId::truncated_last_line, lineno, line.text);
  }
  auto prefix = parse_glog_prefix(line.text);
  if (!prefix) {
    ++stats.fail_glog;
    model_->count(HealthId::fail_glog, lineno, line.text);
    if (line.text.front() == '\t') {
      model_->count(HealthId::stray_payload_lines, lineno, line.text);
    }
    message("Failed to parse glog prefix on line " + std::to_string(lineno));
    return;
  }
  // The line's bytes are the reader's: reading the payload's lines may move them. What is used
  // after that is copied first (the envelope, the pathname); `text` is the envelope's copy.
  envelope_buf_.assign(line.text.substr(prefix->payload_offset));
  envelope_buf_.reserve(envelope_buf_.size() + simdjson::SIMDJSON_PADDING);
  pathname_buf_.assign(prefix->pathname);
  prefix->pathname = pathname_buf_;
  const std::string_view envelope(envelope_buf_.data(), envelope_buf_.size());
  const std::string_view text = envelope;
  Envelope env;
  envelope_parser_.parse(envelope, env);
  const int64_t event_id = writer_.next_id<index::Event>();

  // Unknown keys are counted for every line whose envelope deserialises (serde collects them
  // before anything else happens), including other-rank lines.
  kinds_.clear();
  for (const auto& f : env.fields) {
    kinds_.push_back(handlers::find_kind(f.key));
  }
  const bool fields_ok = env.is_object && !env.type_error && validate_fields(env, kinds_, lineno);
  const auto& reg = handlers::registry();

  // The event kind: the first catalogue kind other than `stack`, else `stack`, else the first
  // unknown key.
  std::string_view kind;
  bool known = true;
  int main_kind = -1;
  main_value_ = {};
  if (env.is_object) {
    for (size_t i = 0; i < env.fields.size(); ++i) {
      const int k = kinds_[i];
      if (k >= 0 && k != handlers::stack_kind()) {
        main_kind = k;
        kind = env.fields[i].key;
        main_value_ = env.fields[i].raw_value;
        known = reg[static_cast<size_t>(k)].known_to_tlparse;
        break;
      }
    }
    if (main_kind < 0) {
      for (size_t i = 0; i < env.fields.size(); ++i) {
        if (kinds_[i] == handlers::stack_kind()) {
          kind = "stack";
          main_value_ = env.fields[i].raw_value;
          main_kind = handlers::stack_kind();
          break;
        }
      }
    }
    if (main_kind < 0 && !env.fields.empty()) {
      kind = env.fields.front().key;
      main_value_ = env.fields.front().raw_value;
      known = false;
    }
  }

  if (!fields_ok) {
    ++stats.fail_json;
    constexpr size_t kMaxQuoted = 300; // messages quote the line, not a 16 MB envelope
    message("Failed to parse metadata JSON: " +
            ::tlparse::text::terminal_safe(text.substr(0, kMaxQuoted)) +
            (text.size() > kMaxQuoted ? "..." : "") + "\n" + env.error);
    if (!env.is_object) {
      ++stats.fail_json; // the raw.jsonl re-parse fails too
      model_->count(HealthId::fail_json, lineno, text);
      return; // its payload lines stay in the stream and count as fail_glog
    }
    model_->count(HealthId::fail_json, lineno, text);
    // Kept: the event is stored (tlparse drops it), its payload lines are still counted as
    // fail_glog for compatibility but attached to it.
    std::optional<int64_t> payload_id;
    if (env.has_payload) {
      read_payload();
      stats.fail_glog += payload_lines_;
      payload_id = store_payload(*env.has_payload, lineno);
    }
    model_->count(HealthId::type_drift_kept, lineno, text);
    store_event(line, *prefix, envelope, env, index::EventStatus::bad_envelope,
                kind.empty() ? "(none)" : kind, known, std::nullopt, payload_id, std::nullopt, true,
                event_id);
    return;
  }

  for (size_t i = 0; i < env.fields.size(); ++i) {
    const int k = kinds_[i];
    if (k < 0 || !reg[static_cast<size_t>(k)].known_to_tlparse) {
      ++stats.unknown;
      model_->note_unknown_key(env.fields[i].key, lineno);
      if (options_.verbose) {
        message("Unknown field " + ::tlparse::text::terminal_safe(env.fields[i].key));
      }
    }
  }

  // str: intern and stop (never `ok`, never a raw.jsonl row).
  for (size_t i = 0; i < env.fields.size(); ++i) {
    if (kinds_[i] != handlers::str_kind()) {
      continue;
    }
    auto& parser = model_->parser();
    simdjson::ondemand::document doc;
    simdjson::ondemand::array arr;
    std::string_view s;
    uint64_t idx = 0;
    bool ok = false;
    const auto& raw = env.fields[i].raw_value;
    if (open_array(parser, raw, doc, arr)) {
      std::string value;
      size_t pos = 0;
      bool good = true;
      for (auto item : arr) {
        if (pos == 0) {
          good = good && !item.get_string().get(s);
          if (good) {
            value.assign(s);
          }
        } else if (pos == 1) {
          good = good && !item.get_uint64().get(idx) && idx <= UINT32_MAX;
        } else {
          good = false;
        }
        ++pos;
        if (!good) {
          break;
        }
      }
      if (good && pos == 2) {
        ok = true;
        model_->intern(static_cast<int64_t>(idx), std::move(value), lineno);
      }
    }
    if (!ok) {
      ++stats.fail_json;
      model_->count(HealthId::fail_json, lineno, text);
    }
    store_event(line, *prefix, envelope, env, index::EventStatus::interned, "str", true,
                std::nullopt, std::nullopt, std::nullopt, false, event_id);
    return;
  }

  std::optional<int64_t> payload_id;
  if (env.has_payload) {
    read_payload();
    payload_id = store_payload(*env.has_payload, lineno);
  }

  if (env.rank) {
    if (!expected_rank_) {
      expected_rank_ = env.rank;
      message("Detected rank: Some(" + std::to_string(*env.rank) + ")");
    }
  }
  if (expected_rank_ && env.rank != expected_rank_) {
    ++stats.other_rank;
    store_event(line, *prefix, envelope, env, index::EventStatus::other_rank,
                kind.empty() ? "(none)" : kind, known, std::nullopt, payload_id, std::nullopt, true,
                event_id);
    return;
  }
  ++stats.ok;
  const std::optional<CompileId> cid =
      env.cid_valid ? std::optional<CompileId>(env.cid) : std::nullopt;
  const model::FileModel::KeyRef key = model_->key_for(cid, lineno);
  const int64_t key_id = key.key_id;

  handlers::EventContext ctx(*model_);
  ctx.event_id = event_id;
  ctx.line = lineno;
  ctx.cid = cid;
  ctx.key_id = key_id;
  ctx.compile_id = key.compile_id;
  ctx.has_payload = env.has_payload.has_value();
  ctx.payload = std::string_view(payload_.data(), env.has_payload ? payload_.size() : 0);
  ctx.declared_md5 = env.has_payload.value_or("");
  // `subgraph_name` is not a kind (tlparse 0.4.3 counts it as an unknown key, and so do we): it
  // groups the event's outputs by region on the pages. A value that is not a string is ignored.
  for (const auto& f : env.fields) {
    if (f.key == kSubgraphKey && f.type == simdjson::ondemand::json_type::string) {
      simdjson::ondemand::document doc;
      std::string_view name;
      if (!model_->parser()
               .iterate(f.raw_value.data(), f.raw_value.size(),
                        f.raw_value.size() + simdjson::SIMDJSON_PADDING)
               .get(doc) &&
          !doc.get_string().get(name)) {
        ctx.subgraph = std::string(name);
      }
    }
  }
  // Handlers run in registry (catalogue) order, like tlparse runs its parsers in table order.
  bool is_chromium = false;
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
    if (k == handlers::chromium_kind()) {
      is_chromium = true;
    }
    ctx.key = env.fields[i].key;
    ctx.metadata = env.fields[i].raw_value;
    if (k == handlers::stack_kind()) {
      std::vector<index::StackFrame> frames;
      if (model_->parse_stack(ctx.metadata, frames, lineno)) {
        writer_.add_stack(model_->file_id(), event_id, index::StackRole::unknown, frames);
      }
      continue;
    }
    for (const handlers::Handler* h :
         {entry.known_to_tlparse ? entry.output : nullptr, entry.recorder}) {
      if (h != nullptr && h->handle != nullptr) {
        h->handle(ctx);
      }
    }
  }
  std::optional<std::string> payload_filename = ctx.payload_filename;
  if (!payload_filename && env.has_payload && !payload_.empty() && !is_chromium) {
    ctx.key = kind;
    payload_filename = model_->add_payload_copy(ctx);
  }
  std::optional<std::string_view> pf;
  if (payload_filename) {
    pf = *payload_filename;
  }
  store_event(line, *prefix, envelope, env, index::EventStatus::ok, kind.empty() ? "(none)" : kind,
              known, key_id, payload_id, pf, !is_chromium, event_id, ctx.cut_values);
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
  model_ = std::make_unique<model::FileModel>(writer_, file_id, options_);
  if (const auto target = symlink_outside(path)) {
    model_->count(HealthId::log_symlink_outside, 0, *target);
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
  model_->finish(expected_rank_, lines);
  result.path = path;
  result.file_id = file_id;
  result.stats = model_->stats();
  result.health.assign(model_->health().begin(), model_->health().end());
  result.bytes = static_cast<uint64_t>(st.st_size);
  result.unknown_keys = model_->unknown_key_names();
  if (!writer_.error().empty()) {
    error = writer_.error();
    return false;
  }
  return true;
}

// Progress over all files, from whichever worker reads: one total, reported in order.
class SharedProgress {
public:
  SharedProgress(const IngestOptions& options, size_t files) : options_(options), done_(files, 0) {}
  void set_total(uint64_t total) { total_ = total; }
  void update(size_t file, uint64_t done) {
    if (!options_.on_progress) {
      return;
    }
    std::lock_guard lock(mutex_);
    done_[file] = done;
    uint64_t sum = 0;
    for (const uint64_t d : done_) {
      sum += d;
    }
    options_.on_progress(sum, total_);
  }

private:
  const IngestOptions& options_;
  std::mutex mutex_;
  std::vector<uint64_t> done_;
  uint64_t total_ = 0;
};

// Removes the part files of a parallel ingest, whatever happens.
struct PartFiles {
  std::vector<std::filesystem::path> paths;
  ~PartFiles() {
    for (const auto& p : paths) {
      std::error_code ec;
      std::filesystem::remove(p, ec);
    }
  }
};

} // namespace

IngestResult ingest_files(const std::vector<std::filesystem::path>& logs,
                          const std::filesystem::path& index_path, const IngestOptions& options) {
  IngestResult result;
  const size_t n = logs.size();
  // Messages of parallel files must not interleave mid-line.
  std::mutex message_mutex;
  IngestOptions opts = options;
  if (options.on_message) {
    opts.on_message = [&](const std::string& m) {
      std::lock_guard lock(message_mutex);
      options.on_message(m);
    };
  }
  SharedProgress progress(options, n);
  // File i's ids start after the bytes of the files before it: a file has fewer rows in any table
  // than bytes, so each part's ids lie past the index's when it is merged, and it is appended as
  // stored (IndexWriter::merge_part; a part that outgrows its range, such as a gzip log's, has
  // its ids moved instead). The index is the same whatever the number of workers.
  std::vector<int64_t> id_base(n, 0);
  {
    uint64_t total = 0;
    for (size_t i = 0; i < n; ++i) {
      id_base[i] = static_cast<int64_t>(std::min<uint64_t>(total, INT64_MAX / 4));
      std::error_code ec;
      const auto size = std::filesystem::file_size(logs[i], ec);
      total += ec ? 0 : size;
    }
    progress.set_total(total);
  }
  // File 0 goes straight into the index; the others into parts, merged in order as they finish.
  // Workers are bounded (each holds a file's buffers), so memory does not grow with the files.
  const size_t wanted =
      options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  const size_t workers = std::min<size_t>({n, wanted, kMaxIngestThreads});
  PartFiles parts;
  for (size_t i = 1; i < n; ++i) {
    parts.paths.push_back(index_path.string() + ".part" + std::to_string(i));
  }
  std::vector<FileResult> files(n);
  std::vector<std::string> errors(n);
  enum class State : char { pending, done, failed, cancelled };
  std::vector<State> state(n, State::pending);
  std::mutex mutex;
  std::condition_variable changed;
  std::atomic<size_t> next{0};
  std::atomic<bool> abort{false}; // set when a file fails: the others stop at their next line
  index::IndexWriter writer;
  if (!writer.open(index_path.string(), index::IndexWriter::Role::index, &result.error)) {
    return result;
  }
  const auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      std::string error;
      bool ok = true;
      bool was_cancelled = false;
      const auto report = [&](uint64_t done) { progress.update(i, done); };
      if (!abort.load()) {
        if (i == 0) {
          FileIngest ingest(writer, opts, &abort);
          ok = ingest.run(logs[0], 1, files[0], error, report);
          was_cancelled = ingest.cancelled();
        } else {
          index::IndexWriter part;
          ok = part.open(parts.paths[i - 1].string(), index::IndexWriter::Role::part, &error);
          if (ok) {
            part.start_ids_after(id_base[i]);
            FileIngest ingest(part, opts, &abort);
            ok = ingest.run(logs[i], static_cast<int64_t>(i + 1), files[i], error, report);
            was_cancelled = ingest.cancelled();
            ok = ok && part.finish(false, &error);
          }
        }
      } else {
        ok = false;
        was_cancelled = true;
      }
      if (!ok && !was_cancelled) {
        abort = true;
      }
      const std::lock_guard lock(mutex);
      state[i] = ok ? State::done : was_cancelled ? State::cancelled : State::failed;
      errors[i] = std::move(error);
      changed.notify_all();
    }
  };
  // One worker runs on this thread; several run on threads of their own while this one merges.
  std::vector<std::thread> threads;
  if (workers == 1) {
    work();
  } else {
    for (size_t w = 0; w < workers; ++w) {
      threads.emplace_back(work);
    }
  }
  // Merge in file order as the parts finish (the first file is already in the index).
  bool complete = true;
  for (size_t i = 0; i < n && complete; ++i) {
    State st;
    {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return state[i] != State::pending; });
      st = state[i];
    }
    if (st != State::done) {
      complete = false;
      break;
    }
    if (i > 0) {
      std::string error;
      if (!writer.merge_part(parts.paths[i - 1].string(), &error)) {
        errors[i] = std::move(error);
        complete = false;
        abort = true;
        break;
      }
      std::error_code ec;
      std::filesystem::remove(parts.paths[i - 1], ec);
    }
  }
  abort = abort || !complete;
  for (std::thread& t : threads) {
    t.join();
  }
  result.cancelled = options.cancel != nullptr && options.cancel->load();
  if (complete && !result.cancelled) {
    std::string error;
    if (writer.finish(options.search_table, &error)) {
      result.ok = true;
      result.files = std::move(files);
    } else {
      result.error = std::move(error);
    }
  } else {
    for (size_t i = 0; i < n && result.error.empty(); ++i) {
      if (!errors[i].empty() && state[i] != State::cancelled) {
        result.error = errors[i];
      }
    }
    if (result.error.empty()) {
      result.error = "cancelled";
    }
    std::string ignored;
    (void)writer.finish(false, &ignored);
  }
  if (!result.ok) {
    result.files.clear();
    std::error_code ec;
    std::filesystem::remove(index_path, ec);
  }
  return result;
}

} // namespace tlparse::ingest
