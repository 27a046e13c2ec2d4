// artifact: `<name>_<N>.txt` for encoding "string", `<name>_<N>.json` (pretty-printed by the
// renderer) for "json", fail_parser for any other encoding. A JSON artifact named
// inductor_provenance_tracking_kernel_stack_traces* also gets the `_readable.html` companion.
// Some artifacts feed the model: recompile_reasons and dynamo_graph_break_reason become rows of
// their own (model/reason_text.h), cache hit/miss/bypass artifacts rows of cache_events.
#include "handlers/handler.h"
#include "model/file_model.h"
#include "model/reason_text.h"

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
  const model::ParsedReasons parsed =
      model::parse_recompile_reasons(ctx.model.parser(), ctx.payload);
  int64_t pos = 0;
  for (const model::ParsedReason& r : parsed.reasons) {
    index::io::RecompileReasonRecord row;
    row.file_id = ctx.model.file_id();
    row.event_id = ctx.event_id;
    row.key_id = ctx.key_id;
    row.compile_id = ctx.compile_id;
    row.pos = pos++;
    row.shape = parsed.shape;
    row.reason = r.reason;
    row.cached_entry = r.cached_entry;
    row.guard = r.guard;
    row.user_stack = r.user_stack;
    row.user_file = r.user_file;
    row.user_line = r.user_line;
    ctx.model.writer().add(row);
  }
  ctx.model.facts(ctx.compile_id).note_recompile_reasons(pos);
}

void record_graph_break(EventContext& ctx) {
  const model::ParsedGraphBreak parsed = model::parse_graph_break(ctx.payload);
  index::io::GraphBreakRecord row;
  row.file_id = ctx.model.file_id();
  row.event_id = ctx.event_id;
  row.key_id = ctx.key_id;
  row.compile_id = ctx.compile_id;
  row.reason = parsed.reason;
  row.user_file = parsed.user_file;
  row.user_line = parsed.user_line;
  row.user_stack = parsed.user_stack;
  ctx.model.writer().add(row);
  ctx.model.facts(ctx.compile_id).note_graph_break();
}

std::optional<index::CacheResult> cache_result(std::string_view name) {
  for (const index::CacheResult r :
       {index::CacheResult::hit, index::CacheResult::miss, index::CacheResult::bypass}) {
    const std::string_view word = to_string(r);
    if (name.size() > word.size() && name.ends_with(word) &&
        name.substr(0, name.size() - word.size()).ends_with("cache_")) {
      return r;
    }
  }
  return std::nullopt;
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
    record_graph_break(ctx);
  } else if (const auto r = cache_result(name)) {
    ctx.model.writer().add(index::io::CacheEventRecord{
        ctx.model.file_id(), ctx.event_id, ctx.key_id, ctx.compile_id, out.output_id, name, *r});
    ctx.model.facts(ctx.compile_id).note_cache(*r);
  }
}
} // namespace

const Handler artifact{&validate, &handle};

} // namespace tlparse::handlers::output
