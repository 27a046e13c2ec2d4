// chromium_event: the payload is a Chrome trace event; it is parsed into a chromium_events row
// (name, ph, ts, dur, cat, pid, tid, args, args.compile_id) and handed to the file's span tracker
// (trackers/span_tracker.h). Unparseable payloads are counted and skipped, like tlparse skips them
// in chromium_events.json. Like 0.4.3, such an event gets no raw.jsonl row and no
// payloads/<md5>.txt copy (Flow::no_raw_row).
#include "ingest/envelope/envelope.h"
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_state.h"

namespace tlparse::ingest::handlers::output {
namespace {
bool validate(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata, {});
}

// args.compile_id as logged: a string unescaped, any other value as its JSON.
std::string compile_id_of_args(simdjson::ondemand::parser& parser, std::string_view args) {
  std::string out;
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (ingest::open_object(parser, args, doc, obj)) {
    ingest::for_each_field(obj, [&](std::string_view key, simdjson::ondemand::value v, auto) {
      std::string_view text;
      if (key == "compile_id" && !ingest::item_text(v, text)) {
        out = std::string(text);
        return false;
      }
      return !ingest::raw_value_json(v, text);
    });
  }
  return out;
}

void handle(EventContext& ctx) {
  using simdjson::ondemand::json_type;
  auto& parser = ctx.file.parser();
  index::io::ChromiumEventRecord row;
  row.file_id = ctx.file.file_id();
  row.event_id = ctx.event_id;
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  // Copied: the args are parsed again below, which reuses the parser's string buffer.
  std::string name, ph, cat;
  std::string_view args_raw;
  const bool ok = ingest::open_object(parser, ctx.payload, doc, obj) &&
                  ingest::for_each_field(obj, [&](std::string_view key, simdjson::ondemand::value v,
                                                  json_type t) {
                    std::string_view s;
                    if (t == json_type::string && (key == "name" || key == "ph" || key == "cat")) {
                      if (v.get_string().get(s)) {
                        return false;
                      }
                      (key == "name" ? name : key == "ph" ? ph : cat) = std::string(s);
                      return true;
                    }
                    double d = 0;
                    int64_t i = 0;
                    if (t == json_type::number && (key == "ts" || key == "dur")) {
                      if (!v.get_double().get(d)) {
                        (key == "ts" ? row.ts : row.dur) = d;
                      }
                    } else if (t == json_type::number && (key == "pid" || key == "tid")) {
                      if (!v.get_int64().get(i)) {
                        (key == "pid" ? row.pid : row.tid) = i;
                      }
                    } else if (ingest::raw_value_json(v, s)) {
                      return false;
                    } else if (key == "args") {
                      args_raw = s;
                    }
                    return true;
                  });
  if (!ok) {
    ctx.file.count(index::HealthId::bad_chromium_event, ctx.line, ctx.payload);
    return;
  }
  // Large args (cache events carry whole configs) stay only in the payload, which is stored once
  // per distinct content: the column is NULL then.
  constexpr size_t kMaxInlineArgs = 4096;
  if (args_raw.empty()) {
    row.args = "{}";
  } else if (args_raw.size() <= kMaxInlineArgs) {
    row.args = args_raw;
  }
  // args is inside the payload buffer, so it is padded.
  const std::string compile_id = compile_id_of_args(parser, args_raw);
  row.compile_id = compile_id;
  row.name = name;
  row.ph = ph;
  row.cat = cat;
  ctx.file.writer().add(row);
  if (row.ts) {
    ctx.file.spans().add(ChromiumPoint{ctx.event_id, ctx.key_id, ctx.compile_id, name, cat, ph,
                                       *row.ts, row.dur, row.pid, row.tid});
  }
}

} // namespace

const Handler chromium{&validate, &handle, Flow::no_raw_row};

} // namespace tlparse::ingest::handlers::output
