// artifact: `<name>_<N>.txt` for encoding "string", `<name>_<N>.json` (pretty-printed by the
// renderer) for "json", fail_parser for any other encoding. A JSON artifact named
// inductor_provenance_tracking_kernel_stack_traces* also gets the `_readable.html` companion.
// Some artifacts are also taken apart: recompile_reasons and dynamo_graph_break_reason become rows
// of their own (trackers/reason_text.h), cache hit/miss/bypass artifacts rows of cache_events.
#include "ingest/envelope/envelope.h"
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_state.h"
#include "ingest/trackers/reason_text.h"

namespace tlparse::ingest::handlers::output {
namespace {
constexpr std::string_view kReadablePrefix = "inductor_provenance_tracking_kernel_stack_traces";

bool validate(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata,
                         {{"name", "str", true}, {"encoding", "str", true}});
}

bool payload_is_object(simdjson::ondemand::parser& parser, std::string_view payload) {
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  std::string_view raw;
  return ingest::open_object(parser, payload, doc, obj) && !obj.raw_json().get(raw);
}

void record_recompile_reasons(EventContext& ctx) {
  std::vector<index::RecompileReason> reasons =
      parse_recompile_reasons(ctx.file.parser(), ctx.payload);
  for (index::RecompileReason& r : reasons) {
    ctx.file.place(ctx, r);
    ctx.file.writer().add(index::io::record_of(r));
  }
  ctx.file.facts(ctx.compile_id).note_recompile_reasons(static_cast<int64_t>(reasons.size()));
}

void record_graph_break(EventContext& ctx) {
  index::GraphBreak row = parse_graph_break(ctx.payload);
  ctx.file.place(ctx, row);
  ctx.file.writer().add(index::io::record_of(row));
  ctx.file.facts(ctx.compile_id).note_graph_break();
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
  auto& parser = ctx.file.parser();
  const auto name = string_field(parser, ctx.metadata, "name").value_or("");
  const auto encoding = string_field(parser, ctx.metadata, "encoding").value_or("");
  FileState::Emitted out;
  if (encoding == "string") {
    out = ctx.file.add_compile_file(ctx, name, "txt", index::OutputKind::payload_text, true);
  } else if (encoding == "json") {
    auto readable = FileState::Readable::none;
    if (std::string_view(name).starts_with(kReadablePrefix)) {
      readable = payload_is_object(parser, ctx.payload) ? FileState::Readable::companion
                                                        : FileState::Readable::empty_url;
    }
    out = ctx.file.add_compile_file(ctx, name, "json", index::OutputKind::json_pretty, true,
                                    readable);
  } else {
    ++ctx.file.stats().fail_parser;
    ctx.file.count(index::HealthId::fail_parser, ctx.line, "Unsupported encoding: " + encoding);
    return;
  }
  if (name == "recompile_reasons") {
    record_recompile_reasons(ctx);
  } else if (name == "dynamo_graph_break_reason") {
    record_graph_break(ctx);
  } else if (const auto r = cache_result(name)) {
    ctx.file.writer().add(index::io::CacheEventRecord{ctx.file.file_id(), ctx.event_id, ctx.key_id,
                                                      ctx.compile_id, out.output_id, name, *r});
    ctx.file.facts(ctx.compile_id).note_cache(*r);
  }
}
} // namespace

const Handler artifact{&validate, &handle};

} // namespace tlparse::ingest::handlers::output
