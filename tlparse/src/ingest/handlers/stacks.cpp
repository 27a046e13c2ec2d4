// Stacks: `stack` (a stack logged with no compile context: the unknown-stack trie of index.html)
// and dynamo_start (the user stack that reached a compile: the stack trie, and the compile's user
// location in the index). dynamo_start's metadata is {stack: Option<[frame]>}; a malformed stack
// is a type error (fail_json), as is a `stack` value that is not a list of frames.
#include "ingest/envelope/envelope.h"
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_state.h"

namespace tlparse::ingest::handlers {

std::optional<int64_t> add_stack_json(EventContext& ctx, const std::optional<std::string>& raw,
                                      index::StackRole role,
                                      std::vector<index::StackFrame>& frames) {
  if (!raw) {
    return std::nullopt;
  }
  const std::string json = ingest::padded_copy(*raw);
  if (!ctx.file.parse_stack(std::string_view(json.data(), raw->size()), frames, ctx.line)) {
    return std::nullopt;
  }
  return ctx.file.writer().add_stack(ctx.file.file_id(), ctx.event_id, role, frames);
}

namespace record {
namespace {

// A `stack` line names its event only when no other key does (Flow::names_event_alone). Its
// frames are checked once before anything is written and read again when it is handled.
bool stack_is_frames(EventContext& ctx) {
  std::vector<index::StackFrame> frames;
  return ctx.file.parse_stack(ctx.metadata, frames, ctx.line);
}

void add_unknown_stack(EventContext& ctx) {
  std::vector<index::StackFrame> frames;
  if (ctx.file.parse_stack(ctx.metadata, frames, ctx.line)) {
    ctx.file.writer().add_stack(ctx.file.file_id(), ctx.event_id, index::StackRole::unknown,
                                frames);
  }
}

bool validate(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata, {{"stack", "arr"}});
}

void handle(EventContext& ctx) {
  const NamedFields f = collect_fields(ctx.file.parser(), ctx.metadata, {"stack"});
  std::vector<index::StackFrame> frames;
  if (const auto id = add_stack_json(ctx, f.raws[0], index::StackRole::dynamo_start, frames)) {
    ctx.file.facts(ctx.compile_id).note_user_stack(*id, frames);
  }
}
} // namespace

const Handler stack{&stack_is_frames, &add_unknown_stack, Flow::names_event_alone};
const Handler dynamo_start{&validate, &handle};

} // namespace record
} // namespace tlparse::ingest::handlers
