// Schema-checking of trace logs for tests (see trace_scan.h).
#include "schemas/trace_scan.h"

#include "support/test_paths.h"

#include <cctype>
#include <sstream>

namespace torchscope::test {

namespace dom = simdjson::dom;

namespace {

// Violations keep only a few messages each: the first usually says it all.
constexpr size_t kErrorsPerViolation = 3;

bool digits_at(std::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size()) {
    return false;
  }
  for (size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) {
      return false;
    }
  }
  return true;
}

bool char_at(std::string_view s, size_t pos, char c) {
  return pos < s.size() && s[pos] == c;
}

std::string join_errors(const std::vector<SchemaError>& errors) {
  std::string out;
  for (size_t i = 0; i < errors.size() && i < kErrorsPerViolation; ++i) {
    out += (i == 0 ? "" : "; ") + to_string(errors[i]);
  }
  if (errors.size() > kErrorsPerViolation) {
    out += "; ... (" + std::to_string(errors.size()) + " errors)";
  }
  return out;
}

std::string get_string(dom::object o, std::string_view key) {
  std::string_view v;
  if (o.at_key(key).get(v) != simdjson::SUCCESS) {
    return {};
  }
  return std::string(v);
}

} // namespace

std::filesystem::path trace_schema_dir() {
  return test_support::source_dir() / "schemas" / "trace";
}

std::optional<Catalogue> load_catalogue(const std::filesystem::path& file, std::string* error) {
  dom::parser parser;
  dom::element root;
  if (auto err = parser.load(file.string()).get(root); err != simdjson::SUCCESS) {
    *error = file.string() + ": " + simdjson::error_message(err);
    return std::nullopt;
  }
  dom::array kinds;
  dom::array artifacts;
  dom::array context;
  if (root["kinds"].get(kinds) != simdjson::SUCCESS ||
      root["artifacts"].get(artifacts) != simdjson::SUCCESS ||
      root["context_keys"].get(context) != simdjson::SUCCESS) {
    *error = file.string() + ": kinds, artifacts and context_keys must be arrays";
    return std::nullopt;
  }
  Catalogue out;
  for (dom::element entry : kinds) {
    dom::object o;
    std::string_view key;
    if (entry.get(o) != simdjson::SUCCESS || o.at_key("key").get(key) != simdjson::SUCCESS) {
      *error = file.string() + ": a kind without a key";
      return std::nullopt;
    }
    Catalogue::Kind kind{get_string(o, "schema"), get_string(o, "payload_schema"),
                         get_string(o, "payload")};
    if (!out.kinds.emplace(std::string(key), kind).second) {
      *error = file.string() + ": kind '" + std::string(key) + "' is listed twice";
      return std::nullopt;
    }
  }
  for (dom::element entry : artifacts) {
    dom::object o;
    if (entry.get(o) != simdjson::SUCCESS) {
      *error = file.string() + ": an artifact entry is not an object";
      return std::nullopt;
    }
    std::string name = get_string(o, "name");
    out.artifact_names.insert(name);
    if (std::string schema = get_string(o, "payload_schema"); !schema.empty()) {
      out.artifact_payload_schemas.emplace(name, schema);
    }
  }
  for (dom::element entry : context) {
    dom::object o;
    if (entry.get(o) == simdjson::SUCCESS) {
      out.context_keys.push_back(get_string(o, "key"));
    }
  }
  return out;
}

std::optional<std::string_view> glog_message(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c != 'V' && c != 'I' && c != 'W' && c != 'E' && c != 'C') {
      continue;
    }
    size_t p = i + 1;
    // MMDD HH:MM:SS.uuuuuu (tlparse's '.' is unescaped: any character separates the seconds).
    if (!digits_at(line, p, 4) || !char_at(line, p + 4, ' ')) {
      continue;
    }
    p += 5;
    if (!digits_at(line, p, 2) || !char_at(line, p + 2, ':') || !digits_at(line, p + 3, 2) ||
        !char_at(line, p + 5, ':') || !digits_at(line, p + 6, 2) || p + 8 >= line.size() ||
        !digits_at(line, p + 9, 6) || !char_at(line, p + 15, ' ')) {
      continue;
    }
    p += 16;
    size_t pid_end = p;
    while (pid_end < line.size() && std::isdigit(static_cast<unsigned char>(line[pid_end]))) {
      ++pid_end;
    }
    if (pid_end == p) {
      continue;
    }
    // The path runs to the next ':' and may not be empty; the regex would give up the pid's last
    // digit to make it one character long.
    size_t colon = line.find(':', pid_end);
    if (colon == std::string_view::npos || (colon == pid_end && pid_end - p < 2)) {
      continue;
    }
    size_t q = colon + 1;
    size_t line_end = q;
    while (line_end < line.size() && std::isdigit(static_cast<unsigned char>(line[line_end]))) {
      ++line_end;
    }
    if (line_end == q || !char_at(line, line_end, ']') || !char_at(line, line_end + 1, ' ') ||
        line_end + 2 >= line.size()) {
      continue;
    }
    return line.substr(line_end + 2);
  }
  return std::nullopt;
}

TraceScanner::TraceScanner() {
  auto dir = trace_schema_dir();
  auto catalogue = load_catalogue(dir / "event_kinds.json", &error_);
  if (!catalogue) {
    return;
  }
  catalogue_ = std::move(*catalogue);
  dom::parser parser;
  dom::object properties;
  if (auto err = parser.load((dir / "envelope.schema.json").string())["properties"].get(properties);
      err != simdjson::SUCCESS) {
    error_ = "envelope.schema.json has no properties: " + std::string(simdjson::error_message(err));
    return;
  }
  for (auto [key, value] : properties) {
    context_keys_.emplace(key);
  }
}

void TraceScanner::scan_file(const std::filesystem::path& file, const std::string& display_name,
                             ScanCounts* counts) {
  std::string text = test_support::read_file(file);
  std::vector<std::string_view> lines;
  std::string_view rest = text;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    lines.push_back(line);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  ++counts->files;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    ++counts->lines;
    if (line.empty()) {
      continue;
    }
    auto message = glog_message(line);
    if (!message || message->front() != '{') {
      // Another logger's line, stray text, or a tab line no envelope claimed.
      ++counts->not_envelopes;
      continue;
    }
    // Payload lines are the tab lines right after the envelope; the envelope decides whether
    // they are its own (it has has_payload). Empty lines are skipped as tlparse skips them
    // (some exported_program payloads in the corpus hold bare empty lines).
    size_t end = i + 1;
    bool any = false;
    std::string payload;
    while (end < lines.size() && (lines[end].empty() || lines[end].front() == '\t')) {
      if (!lines[end].empty()) {
        payload += any ? "\n" : "";
        payload += lines[end].substr(1);
        any = true;
      }
      ++end;
    }
    bool owns = check_envelope(*message, any ? &payload : nullptr, display_name, i + 1, counts);
    if (owns) {
      counts->lines += end - i - 1;
      i = end - 1;
    }
  }
}

bool TraceScanner::check_envelope(std::string_view json, const std::string* payload,
                                  const std::string& display_name, size_t line_number,
                                  ScanCounts* counts) {
  dom::element root;
  dom::object envelope;
  if (envelope_parser_.parse(json.data(), json.size()).get(root) != simdjson::SUCCESS ||
      root.get(envelope) != simdjson::SUCCESS) {
    ++counts->invalid_json;
    ++counts->invalid_json_by_file[display_name];
    return false;
  }
  ++counts->envelopes;
  auto violation = [&](const std::string& kind, const std::string& what) {
    counts->violations.push_back({display_name, line_number, kind, what});
  };

  std::vector<std::string_view> event_keys;
  for (auto [key, value] : envelope) {
    if (context_keys_.count(std::string(key)) == 0) {
      event_keys.push_back(key);
    }
  }
  dom::element ignored;
  if (event_keys.empty() && envelope.at_key("stack").get(ignored) == simdjson::SUCCESS) {
    event_keys.push_back("stack");
  }
  std::string kind = event_keys.size() == 1 ? std::string(event_keys.front()) : "(none)";

  std::vector<SchemaError> errors;
  if (!schemas_.validate(root, (trace_schema_dir() / "envelope.schema.json").string(), &errors)) {
    violation(kind, "envelope: " + join_errors(errors));
  }
  if (event_keys.size() != 1) {
    std::string keys;
    for (auto k : event_keys) {
      keys += (keys.empty() ? "" : ", ") + std::string(k);
    }
    violation(kind, "an envelope holds exactly one event key, this one has " +
                        std::to_string(event_keys.size()) + (keys.empty() ? "" : ": " + keys));
  }
  bool owns_payload = envelope.at_key("has_payload").get(ignored) == simdjson::SUCCESS &&
                      !ignored.is_null() && payload != nullptr;
  if (event_keys.size() != 1) {
    return owns_payload;
  }

  dom::element metadata = envelope.at_key(kind).value_unsafe();
  auto entry = catalogue_.kinds.find(kind);
  if (entry == catalogue_.kinds.end()) {
    ++counts->unknown_kinds[kind];
    return owns_payload;
  }
  ++counts->per_kind[kind];
  if (entry->second.schema.empty()) {
    violation(kind, "the catalogue gives this kind no schema");
    return owns_payload;
  }
  errors.clear();
  if (!schemas_.validate(metadata, (trace_schema_dir() / entry->second.schema).string(), &errors)) {
    violation(kind, "metadata: " + join_errors(errors));
  }

  // Fixed-shape JSON payloads: those of a kind, and those of a json-encoded named artifact.
  std::string payload_schema = entry->second.payload_schema;
  std::string label = kind;
  if (kind == "artifact" && metadata.type() == dom::element_type::OBJECT) {
    std::string name = get_string(metadata, "name");
    auto artifact = catalogue_.artifact_payload_schemas.find(name);
    if (artifact != catalogue_.artifact_payload_schemas.end() &&
        get_string(metadata, "encoding") == "json") {
      payload_schema = artifact->second;
      label = "artifact:" + name;
    }
  }
  if (payload_schema.empty() || !owns_payload) {
    return owns_payload;
  }
  dom::element value;
  if (payload_parser_.parse(payload->data(), payload->size()).get(value) != simdjson::SUCCESS) {
    ++counts->payload_not_json[label];
    ++counts->payload_not_json_by_file[display_name + " (" + label + ")"];
    return owns_payload;
  }
  ++counts->payloads_checked;
  errors.clear();
  if (!schemas_.validate(value, (trace_schema_dir() / payload_schema).string(), &errors)) {
    violation(label, "payload: " + join_errors(errors));
  }
  return owns_payload;
}

std::string summarize(const ScanCounts& counts) {
  std::ostringstream out;
  out << counts.files << " files, " << counts.lines << " lines, " << counts.envelopes
      << " well-formed envelopes validated, " << counts.payloads_checked
      << " JSON payloads validated\n";
  out << counts.not_envelopes << " lines were not trace envelopes (skipped), "
      << counts.invalid_json << " envelope lines were not valid JSON objects\n";
  out << "envelopes per kind:\n";
  for (const auto& [kind, n] : counts.per_kind) {
    out << "  " << kind << ": " << n << "\n";
  }
  if (!counts.unknown_kinds.empty()) {
    out << "kinds the catalogue does not list (reported, not failed):\n";
    for (const auto& [kind, n] : counts.unknown_kinds) {
      out << "  " << kind << ": " << n << "\n";
    }
  }
  for (const auto& [label, n] : counts.payload_not_json) {
    out << "payload is not JSON: " << label << ": " << n << "\n";
  }
  for (const auto& [file, n] : counts.invalid_json_by_file) {
    out << "invalid envelope JSON in " << file << ": " << n << "\n";
  }
  out << counts.violations.size() << " schema violations\n";
  return out.str();
}

} // namespace torchscope::test
