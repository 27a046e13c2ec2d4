// chromium_event: the payload is a Chrome trace event; it is parsed into a chromium_events row
// (name, ph, ts, cat, pid, tid, args, args.compile_id). Unparseable payloads are counted and
// skipped, like tlparse skips them in chromium_events.json.
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
  index::ChromiumRow row;
  row.file_id = ctx.model.file_id();
  row.event_id = ctx.event_id;
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  bool ok = !parser
                 .iterate(ctx.payload.data(), ctx.payload.size(),
                          ctx.payload.size() + simdjson::SIMDJSON_PADDING)
                 .get(doc) &&
            !doc.get_object().get(obj);
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
        (key == "name" ? row.name : key == "ph" ? row.ph : row.cat) = std::string(s);
        continue;
      }
      if (t == json_type::number && key == "ts") {
        double d = 0;
        if (!v.get_double().get(d)) {
          row.ts = d;
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
  // per distinct content; the reader takes args from the payload when this column is empty.
  constexpr size_t kMaxInlineArgs = 4096;
  row.args = args_raw.empty()                   ? "{}"
             : args_raw.size() > kMaxInlineArgs ? ""
                                                : std::string(args_raw);
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
            row.compile_id = std::string(s);
          } else if (!ingest::raw_value_json(v, s)) {
            row.compile_id = std::string(s);
          }
          break;
        }
        if (ingest::raw_value_json(v, s)) {
          break;
        }
      }
    }
  }
  ctx.model.writer().add_chromium(row);
}
} // namespace

const Handler chromium{&validate, &handle};

} // namespace tlparse::handlers::output
