// Shape-environment events that become rows of the index: symbolic_shape_specialization,
// guard_added_fast, create_symbol / create_unbacked_symbol, and the describe_* type checks
// (their required fields are what tlparse 0.4.3's structs require).
#include "ingest/envelope/envelope.h"
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_state.h"

namespace tlparse::ingest::handlers::record {
namespace {

void add_stacks(EventContext& ctx, const std::optional<std::string>& stack,
                const std::optional<std::string>& user_stack) {
  std::vector<index::StackFrame> frames;
  add_stack_json(ctx, stack, index::StackRole::stack, frames);
  add_stack_json(ctx, user_stack, index::StackRole::user_stack, frames);
}

// The items of a JSON list as metadata_lists rows (strings unescaped, other items as JSON).
void add_list(EventContext& ctx, std::string_view field, const std::optional<std::string>& raw) {
  if (!raw) {
    return;
  }
  const std::string json = ingest::padded_copy(*raw);
  simdjson::ondemand::document doc;
  simdjson::ondemand::array arr;
  if (ingest::open_array(ctx.file.parser(), std::string_view(json.data(), raw->size()), doc, arr)) {
    ctx.file.add_list(ctx.event_id, field, arr);
  }
}

bool validate_spec(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata,
                         {{"symbol", "str"},
                          {"sources", "arr"},
                          {"value", "str"},
                          {"reason", "str"},
                          {"stack", "arr"},
                          {"user_stack", "arr"}});
}
void handle_spec(EventContext& ctx) {
  const NamedFields f =
      collect_fields(ctx.file.parser(), ctx.metadata,
                     {"symbol", "sources", "value", "reason", "stack", "user_stack"});
  ctx.file.writer().add(
      index::io::SpecializationRecord{ctx.file.file_id(), ctx.event_id, f.strings[0].value_or(""),
                                      f.strings[2].value_or(""), f.strings[3].value_or("")});
  add_list(ctx, "sources", f.raws[1]);
  add_stacks(ctx, f.raws[4], f.raws[5]);
}

bool validate_guard(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata,
                         {{"expr", "str"}, {"stack", "arr"}, {"user_stack", "arr"}});
}
void handle_guard(EventContext& ctx) {
  const NamedFields f =
      collect_fields(ctx.file.parser(), ctx.metadata, {"expr", "stack", "user_stack"});
  ctx.file.writer().add(
      index::io::GuardAddedFastRecord{ctx.file.file_id(), ctx.event_id, f.strings[0].value_or("")});
  add_stacks(ctx, f.raws[1], f.raws[2]);
}

void handle_symbol(EventContext& ctx) {
  const NamedFields f = collect_fields(ctx.file.parser(), ctx.metadata,
                                       {"symbol", "val", "vr", "source", "stack", "user_stack"});
  ctx.file.writer().add(
      index::io::CreatedSymbolRecord{ctx.file.file_id(), ctx.event_id, f.strings[0].value_or(""),
                                     f.strings[1] ? *f.strings[1] : f.raws[1].value_or(""),
                                     f.strings[2].value_or(""), f.strings[3].value_or("")});
  add_stacks(ctx, f.raws[4], f.raws[5]);
}

bool validate_storage(EventContext& ctx) {
  return validate_object(
      ctx.file.parser(), ctx.metadata,
      {{"id", "u64", true}, {"describer_id", "u64", true}, {"size", "u64", true}});
}
bool validate_tensor(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata,
                         {{"id", "u64", true},
                          {"describer_id", "u64", true},
                          {"ndim", "u64", true},
                          {"dtype", "str", true},
                          {"device", "str", true},
                          {"size", "arr", true}});
}
bool validate_source(EventContext& ctx) {
  return validate_object(
      ctx.file.parser(), ctx.metadata,
      {{"describer_id", "u64", true}, {"id", "u64", true}, {"source", "str", true}});
}
} // namespace

const Handler symbolic_shape_specialization{&validate_spec, &handle_spec};
const Handler guard_added_fast{&validate_guard, &handle_guard};
const Handler symbol{nullptr, &handle_symbol};
const Handler describe_storage{&validate_storage, nullptr};
const Handler describe_tensor{&validate_tensor, nullptr};
const Handler describe_source{&validate_source, nullptr};

} // namespace tlparse::ingest::handlers::record
