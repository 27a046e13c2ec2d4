// artifact: `<name>_<N>.txt` for encoding "string", `<name>_<N>.json` (pretty-printed by the
// renderer) for "json", fail_parser for any other encoding. A JSON artifact named
// inductor_provenance_tracking_kernel_stack_traces* also gets the `_readable.html` companion.
// Some artifacts feed the model: recompile_reasons and dynamo_graph_break_reason become rows of
// their own (model/reason_text.h), cache hit/miss/bypass artifacts rows of cache_events.
#include "ingest/envelope/envelope.h"
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_model.h"
#include "ingest/trackers/reason_text.h"

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
  return ingest::open_object(parser, payload, doc, obj) && !obj.raw_json().get(raw);
}

void record_recompile_reasons(EventContext& ctx) {
  std::vector<index::RecompileReason> reasons =
      model::parse_recompile_reasons(ctx.model.parser(), ctx.payload);
  for (index::RecompileReason& r : reasons) {
    ctx.model.place(ctx, r);
    ctx.model.writer().add(index::io::record_of(r));
  }
  ctx.model.facts(ctx.compile_id).note_recompile_reasons(static_cast<int64_t>(reasons.size()));
}

void record_graph_break(EventContext& ctx) {
  index::GraphBreak row = model::parse_graph_break(ctx.payload);
  ctx.model.place(ctx, row);
  ctx.model.writer().add(index::io::record_of(row));
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
