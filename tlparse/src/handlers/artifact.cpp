// artifact: `<name>_<N>.txt` for encoding "string", `<name>_<N>.json` (pretty-printed by the
// renderer) for "json", fail_parser for any other encoding. A JSON artifact named
// inductor_provenance_tracking_kernel_stack_traces* also gets the `_readable.html` companion.
// Some artifacts feed the model: recompile_reasons, dynamo_graph_break_reason, cache hit/miss.
#include "handlers/handler.h"
#include "model/file_model.h"

namespace tlparse::handlers::output {
namespace {
constexpr std::string_view kReadablePrefix = "inductor_provenance_tracking_kernel_stack_traces";

bool validate(simdjson::ondemand::parser& parser, std::string_view metadata) {
  return validate_object(parser, metadata, {{"name", "str", true}, {"encoding", "str", true}});
}

bool payload_is_object(simdjson::ondemand::parser& parser, std::string_view payload) {
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  std::string_view raw;
  return !parser
              .iterate(payload.data(), payload.size(), payload.size() + simdjson::SIMDJSON_PADDING)
              .get(doc) &&
         !doc.get_object().get(obj) && !obj.raw_json().get(raw);
}

void record_recompile_reasons(EventContext& ctx) {
  auto& parser = ctx.model.parser();
  simdjson::ondemand::document doc;
  if (parser
          .iterate(ctx.payload.data(), ctx.payload.size(),
                   ctx.payload.size() + simdjson::SIMDJSON_PADDING)
          .get(doc)) {
    return;
  }
  simdjson::ondemand::array arr;
  if (doc.get_array().get(arr)) {
    return;
  }
  for (auto item : arr) {
    std::string_view s;
    if (item.get_string().get(s)) {
      return;
    }
    ctx.model.writer().add_recompile_reason(ctx.model.file_id(), ctx.event_id, ctx.key_id, s);
  }
}

std::string_view cache_result(std::string_view name) {
  for (std::string_view r : {"hit", "miss", "bypass"}) {
    if (name.size() > r.size() && name.ends_with(r) &&
        name.substr(0, name.size() - r.size()).ends_with("cache_")) {
      return r;
    }
  }
  return {};
}

void handle(EventContext& ctx) {
  auto& parser = ctx.model.parser();
  const auto name = string_field(parser, ctx.metadata, "name").value_or("");
  const auto encoding = string_field(parser, ctx.metadata, "encoding").value_or("");
  model::FileModel::Emitted out;
  if (encoding == "string") {
    out = ctx.model.add_compile_file(ctx, name, "txt", index::OutputKind::payload_text, true);
  } else if (encoding == "json") {
    auto readable = model::FileModel::Readable::none;
    if (std::string_view(name).starts_with(kReadablePrefix)) {
      readable = payload_is_object(parser, ctx.payload) ? model::FileModel::Readable::companion
                                                        : model::FileModel::Readable::empty_url;
    }
    out = ctx.model.add_compile_file(ctx, name, "json", index::OutputKind::json_pretty, true,
                                     readable);
  } else {
    ++ctx.model.stats().fail_parser;
    ctx.model.count(index::HealthId::fail_parser, ctx.line, "Unsupported encoding: " + encoding);
    return;
  }
  if (name == "recompile_reasons") {
    record_recompile_reasons(ctx);
  } else if (name == "dynamo_graph_break_reason") {
    ctx.model.writer().add_graph_break(ctx.model.file_id(), ctx.event_id, ctx.key_id, ctx.payload);
  } else if (auto r = cache_result(name); !r.empty()) {
    ctx.model.writer().add_cache_event(ctx.model.file_id(), ctx.event_id, out.output_id, name, r);
  }
}
} // namespace

const Handler artifact{&validate, &handle};

} // namespace tlparse::handlers::output
