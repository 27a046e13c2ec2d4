// The machine-readable outputs, byte-compatible with tlparse 0.4.3: compile_directory.json,
// chromium_events.json (streamed) and raw.jsonl (streamed).
#include "report/render_context.h"
#include "tlparse/report/serde_json.h"

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>

namespace tlparse::report::detail {

void render_compile_directory(RenderContext& ctx) {
  // serde's BTreeMap: keys sorted; ids with the same display share one entry. The index streams
  // the entries by display name, each followed by its listed outputs.
  // Streamed in write_pretty's layout, one artifact at a time: the file lists every output.
  StreamedFile file;
  if (!ctx.folder.open_stream(files::compile_directory, file)) {
    ctx.note_write(false, files::compile_directory);
    return;
  }
  std::string& text = file.buffer();
  std::optional<std::string> display; // the entry being written
  bool first_artifact = true;
  const auto close_entry = [&] {
    if (display) {
      text.append(first_artifact ? "[]\n  }" : "\n    ]\n  }");
    }
  };
  ctx.check(ctx.reader.for_each_key_with_outputs(
      ctx.file.id, index::IndexReader::KeyOrder::display,
      [&](const index::CompileKey& key, const index::Output* listed) {
        if (!display || *display != key.display) {
          close_entry();
          text.append(!display ? "{\n  " : ",\n  ");
          display = key.display;
          write_json_string(text, key.display);
          text.append(": {\n    \"artifacts\": ");
          first_artifact = true;
        }
        if (listed == nullptr) {
          return true;
        }
        index::Output o = *listed;
        ctx.plan.apply(o);
        JsonValue a = JsonValue::object();
        a.set("url", JsonValue::string(o.path));
        a.set("name", JsonValue::string(o.name));
        a.set("number", o.number < 0
                            ? JsonValue::integer(o.number)
                            : JsonValue::unsigned_integer(static_cast<std::uint64_t>(o.number)));
        a.set("suffix", JsonValue::string(o.suffix));
        a.set("readable_url",
              o.readable_url ? JsonValue::string(*o.readable_url) : JsonValue::null());
        text.append(first_artifact ? "[\n      " : ",\n      ");
        first_artifact = false;
        write_pretty(text, a, 6);
        file.flush_if_large();
        return true;
      }));
  close_entry();
  text.append(display ? "\n}" : "{}");
  ctx.note_write(ctx.folder.finish_stream(file), files::compile_directory);
}

namespace {

// `text`, pretty-printed at indent 0, as an element of the top-level array (indent 2).
std::string indented_element(const std::string& text) {
  std::string indented;
  indented.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    indented.push_back(c);
    if (c == '\n') {
      indented.append("  ");
    }
  }
  return indented;
}

} // namespace

StreamedResult render_chromium_events(const index::IndexReader& reader, std::int64_t file_id,
                                      OutputFolder& folder,
                                      const std::filesystem::path& combined_part,
                                      std::uint32_t combined_pid, std::size_t cache_bytes) {
  StreamedResult result;
  StreamedFile file;
  if (!folder.open_stream(files::chromium_events, file)) {
    result.ok = false;
    return result;
  }
  // The landing's combined file: the same parse, `pid` set to the rank (tlparse's multi-rank
  // rule), so no second pass over the index re-reads and re-parses every payload.
  std::FILE* combined = nullptr;
  std::string combined_buffer;
  bool combined_failed = false;
  if (!combined_part.empty()) {
    combined = std::fopen(combined_part.c_str(), "wbx");
    combined_failed = combined == nullptr;
  }
  const auto flush_combined = [&](bool force) {
    if (combined != nullptr && (force || combined_buffer.size() >= (1u << 20))) {
      combined_failed = combined_failed ||
                        std::fwrite(combined_buffer.data(), 1, combined_buffer.size(), combined) !=
                            combined_buffer.size();
      combined_buffer.clear();
    }
  };
  // The renderings by payload: -1 the event as logged, -2 the combined file's. Either may be
  // cached without the other (the cache takes what fits), so each is made only when missing.
  RenderCache cache(cache_bytes);
  std::uint64_t count = 0;
  std::string scratch;
  std::string pretty_scratch;
  std::string combined_scratch;
  const auto render_element = [&](const JsonValue& value, std::string& out) {
    scratch.clear();
    write_pretty(scratch, value);
    out = indented_element(scratch);
  };
  const Status read = reader.for_each_chromium_event(
      file_id, [&](const index::ChromiumEvent&, std::string_view payload) {
        const std::string content_key = RenderCache::key_of(payload);
        const std::string* pretty = cache.find(-1, content_key);
        const std::string* pretty_combined =
            combined != nullptr ? cache.find(-2, content_key) : nullptr;
        if (pretty == nullptr || (combined != nullptr && pretty_combined == nullptr)) {
          auto parsed = parse_json(payload); // once, for whichever rendering is missing
          if (!parsed) {
            return true; // unparseable payloads are skipped, as in tlparse
          }
          if (pretty == nullptr) {
            render_element(*parsed, pretty_scratch);
            cache.insert(-1, content_key, pretty_scratch);
            pretty = &pretty_scratch;
          }
          if (combined != nullptr && pretty_combined == nullptr) {
            if (parsed->is_object()) {
              parsed->set("pid", JsonValue::unsigned_integer(combined_pid));
              render_element(*parsed, combined_scratch);
            } else {
              combined_scratch = *pretty;
            }
            cache.insert(-2, content_key, combined_scratch);
            pretty_combined = &combined_scratch;
          }
        }
        file.buffer().append(count == 0 ? "[\n  " : ",\n  ");
        file.buffer().append(*pretty);
        file.flush_if_large();
        if (combined != nullptr) {
          combined_buffer.append(count == 0 ? "" : ",\n  ");
          combined_buffer.append(*pretty_combined);
          flush_combined(false);
        }
        ++count;
        return true;
      });
  file.buffer().append(count == 0 ? "[]" : "\n]");
  result.ok = folder.finish_stream(file);
  if (combined != nullptr) {
    flush_combined(true);
    combined_failed = std::fclose(combined) != 0 || combined_failed;
  }
  if (combined_failed) {
    result.ok = false;
    result.read_error = "cannot write " + combined_part.string();
  }
  if (result.read_error.empty() && !read.ok()) {
    result.read_error = read.error();
  }
  result.items = count;
  result.cache_hits = cache.hits();
  return result;
}

namespace {

template <class Int>
void append_decimal(std::string& out, Int value) {
  char buf[24];
  const auto res = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, res.ptr);
}

} // namespace

StreamedResult render_raw_jsonl(const index::IndexReader& reader, const index::File& info,
                                OutputFolder& folder) {
  StreamedResult result;
  StreamedFile file;
  if (!folder.open_stream(files::raw_jsonl, file)) {
    result.ok = false;
    return result;
  }
  std::string& out = file.buffer();
  // Line 1: the string table, gaps as null; an empty table is [null] like tlparse's.
  out.append("{\"string_table\":[");
  // Streamed: a row is written once the next index shows it was the last binding of its own.
  std::int64_t next_slot = 0; // slots [0, next_slot) are written
  std::optional<std::int64_t> held_idx;
  std::string held_value;
  const auto write_held = [&] {
    for (; next_slot < *held_idx; ++next_slot) {
      out.append(next_slot == 0 ? "null" : ",null");
      if ((next_slot & 0xffff) == 0) {
        file.flush_if_large();
      }
    }
    if (next_slot > 0) {
      out.push_back(',');
    }
    write_json_string(out, held_value);
    ++next_slot;
    file.flush_if_large();
  };
  const Status table = reader.for_each_string(info.id, [&](std::int64_t idx, std::string_view v) {
    if (held_idx && *held_idx != idx) {
      write_held();
    }
    held_idx = idx;
    held_value.assign(v);
    return true;
  });
  if (!table) {
    result.read_error = table.error();
  }
  if (held_idx) {
    write_held();
  }
  if (next_slot == 0) {
    out.append("null");
  }
  out.append("]}\n");

  // Each envelope is re-read into the same buffers (no tree, no allocation once they have
  // grown), and each row written straight into the output: the envelope's members in key order
  // with the members tlparse adds merged in, which replace same-named envelope keys (such rows
  // are normally excluded by the ingest as key conflicts).
  JsonMembers members;
  const Status read = reader.for_each_event(info.id, [&](const index::Event& e) {
    if (!e.in_raw_jsonl) {
      return true;
    }
    if (!members.read(e.envelope)) {
      return true; // not a JSON object: tlparse drops the row
    }
    // The added members, in key order (lineno, pathname, payload_filename, thread, timestamp).
    enum class Added { lineno, pathname, payload_filename, thread, timestamp, end };
    static constexpr std::string_view kAddedKeys[] = {"lineno", "pathname", "payload_filename",
                                                      "thread", "timestamp"};
    const auto skip_absent = [&](int a) {
      return a == static_cast<int>(Added::payload_filename) && !e.payload_filename ? a + 1 : a;
    };
    const auto write_added = [&](int a) {
      out.push_back('"');
      out.append(kAddedKeys[a]);
      out.append("\":");
      switch (static_cast<Added>(a)) {
      case Added::lineno:
        append_decimal(out, e.source_line);
        break;
      case Added::pathname:
        write_json_string(out, e.pathname);
        break;
      case Added::payload_filename:
        write_json_string(out, *e.payload_filename);
        break;
      case Added::thread:
        append_decimal(out, static_cast<std::uint64_t>(e.thread)); // stored as int64
        break;
      case Added::timestamp:
        write_json_string(out, index::raw_jsonl_timestamp(e, info.timestamp_year));
        break;
      case Added::end:
        break;
      }
    };
    constexpr int kEnd = static_cast<int>(Added::end);
    int a = skip_absent(0);
    out.push_back('{');
    bool first = true;
    const auto comma = [&] {
      if (!first) {
        out.push_back(',');
      }
      first = false;
    };
    for (std::size_t m = 0; m < members.size(); ++m) {
      const JsonMembers::Member member = members[m];
      while (a < kEnd && kAddedKeys[a] < member.key) {
        comma();
        write_added(a);
        a = skip_absent(a + 1);
      }
      if (a < kEnd && kAddedKeys[a] == member.key) {
        continue; // replaced by the added member, written in its turn
      }
      comma();
      out.append(member.member);
    }
    for (; a < kEnd; a = skip_absent(a + 1)) {
      comma();
      write_added(a);
    }
    out.append("}\n");
    file.flush_if_large();
    ++result.items;
    return true;
  });
  result.ok = folder.finish_stream(file);
  if (result.read_error.empty() && !read) {
    result.read_error = read.error();
  }
  return result;
}

} // namespace tlparse::report::detail
