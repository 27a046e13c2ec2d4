// dynamo_start: records the user stack that reached a compile (the stack trie of index.html, and
// the compile's user location in the index).
// The metadata is {stack: Option<[frame]>}; a malformed stack is a type error (fail_json).
#include "ingest/envelope/envelope.h"
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_model.h"

namespace tlparse::handlers {

std::optional<int64_t> add_stack_json(EventContext& ctx, const std::optional<std::string>& raw,
                                      index::StackRole role,
                                      std::vector<index::StackFrame>& frames) {
  if (!raw) {
    return std::nullopt;
  }
  const std::string json = ingest::padded_copy(*raw);
  if (!ctx.model.parse_stack(std::string_view(json.data(), raw->size()), frames, ctx.line)) {
    return std::nullopt;
  }
  return ctx.model.writer().add_stack(ctx.model.file_id(), ctx.event_id, role, frames);
}

namespace record {
namespace {

bool validate(simdjson::ondemand::parser& parser, std::string_view metadata) {
  return validate_object(parser, metadata, {{"stack", "arr"}});
}

void handle(EventContext& ctx) {
  const NamedFields f = collect_fields(ctx.model.parser(), ctx.metadata, {"stack"});
  std::vector<index::StackFrame> frames;
  if (const auto id = add_stack_json(ctx, f.raws[0], index::StackRole::dynamo_start, frames)) {
    ctx.model.facts(ctx.compile_id).note_user_stack(*id, frames);
  }
}
} // namespace

const Handler dynamo_start{&validate, &handle};

} // namespace record
} // namespace tlparse::handlers
