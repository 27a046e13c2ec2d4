// chromium_event: the payload is a Chrome trace event; it is parsed into a chromium_events row
// (name, ph, ts, dur, cat, pid, tid, args, args.compile_id) and handed to the file's span tracker
// (model/span_tracker.h). Unparseable payloads are counted and skipped, like tlparse skips them
// in chromium_events.json.
#include "handlers/handler.h"
#include "ingest/envelope.h"
#include "model/file_model.h"

namespace tlparse::handlers::output {
namespace {
bool validate(simdjson::ondemand::parser& parser, std::string_view metadata) {
  return validate_object(parser, metadata, {});
}

void handle(EventContext& ctx) {
  using simdjson::ondemand::json_type;
  auto& parser = ctx.model.parser();
  index::io::ChromiumEventRecord row;
  row.file_id = ctx.model.file_id();
  row.event_id = ctx.event_id;
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  bool ok = !parser
                 .iterate(ctx.payload.data(), ctx.payload.size(),
                          ctx.payload.size() + simdjson::SIMDJSON_PADDING)
                 .get(doc) &&
            !doc.get_object().get(obj);
  // Copied: the args are parsed again below, which reuses the parser's string buffer.
  std::string name, ph, cat;
  std::string_view args_raw;
  if (ok) {
    for (auto field : obj) {
      std::string_view key;
      simdjson::ondemand::value v;
      json_type t;
      if (field.unescaped_key().get(key) || field.value().get(v) || v.type().get(t)) {
        ok = false;
        break;
      }
      std::string_view s;
      if (t == json_type::string && (key == "name" || key == "ph" || key == "cat")) {
        if (v.get_string().get(s)) {
          ok = false;
          break;
        }
        (key == "name" ? name : key == "ph" ? ph : cat) = std::string(s);
        continue;
      }
      if (t == json_type::number && (key == "ts" || key == "dur")) {
        double d = 0;
        if (!v.get_double().get(d)) {
          (key == "ts" ? row.ts : row.dur) = d;
        }
        continue;
      }
      if (t == json_type::number && (key == "pid" || key == "tid")) {
        int64_t i = 0;
        if (!v.get_int64().get(i)) {
          (key == "pid" ? row.pid : row.tid) = i;
        }
        continue;
      }
      if (ingest::raw_value_json(v, s)) {
        ok = false;
        break;
      }
      if (key == "args") {
        args_raw = s;
      }
    }
  }
  if (!ok) {
    ctx.model.count(index::HealthId::bad_chromium_event, ctx.line, ctx.payload);
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
  if (!args_raw.empty()) {
    // args is inside the payload buffer, so it is padded.
    simdjson::ondemand::document adoc;
    simdjson::ondemand::object aobj;
    if (!parser
             .iterate(args_raw.data(), args_raw.size(),
                      args_raw.size() + simdjson::SIMDJSON_PADDING)
             .get(adoc) &&
        !adoc.get_object().get(aobj)) {
      for (auto field : aobj) {
        std::string_view key;
        simdjson::ondemand::value v;
        if (field.unescaped_key().get(key) || field.value().get(v)) {
          break;
        }
        std::string_view s;
        if (key == "compile_id") {
          json_type t;
          if (!v.type().get(t) && t == json_type::string && !v.get_string().get(s)) {
            row.compile_id = s;
          } else if (!ingest::raw_value_json(v, s)) {
            row.compile_id = s;
          }
          break;
        }
        if (ingest::raw_value_json(v, s)) {
          break;
        }
      }
    }
  }
  row.name = name;
  row.ph = ph;
  row.cat = cat;
  ctx.model.writer().add(row);
  if (row.ts) {
    model::ChromiumPoint p;
    p.event_id = ctx.event_id;
    p.key_id = ctx.key_id;
    p.compile_id = ctx.compile_id;
    p.name = row.name;
    p.cat = row.cat;
    p.ph = row.ph;
    p.ts = *row.ts;
    p.dur = row.dur;
    p.pid = row.pid;
    p.tid = row.tid;
    ctx.model.spans().add(p);
  }
}
} // namespace

const Handler chromium{&validate, &handle};

} // namespace tlparse::handlers::output
