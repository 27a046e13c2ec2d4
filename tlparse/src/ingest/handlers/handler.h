// The event-handler interface and the ONE registry table. Each row of the table comes from the
// event-kind catalogue (schemas/trace/event_kinds.json through event_kinds.gen.h): its key,
// whether tlparse 0.4.3 knows it, the handler for its `output` behaviour (which file the
// compatible report writes) and, for kinds that become rows beyond a file (stacks, shapes,
// symbols), a recorder. Adding a kind is a catalogue line, plus a handler file if it needs one.
#pragma once

#include "tlparse/compile_id.h"
#include "tlparse/index/schema.gen.h"

#include <cstdint>
#include <optional>
#include <simdjson.h>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tlparse::ingest {
class FileState;
}

namespace tlparse::ingest::handlers {

struct EventContext {
  explicit EventContext(FileState& f) : file(f) {}
  FileState& file;
  int64_t event_id = 0;
  int64_t line = 0;
  std::string_view key;         // the key being handled
  std::string_view metadata;    // its value as JSON text (padded buffer)
  std::optional<CompileId> cid; // raw id; nullopt when a key had the wrong type
  int64_t key_id = 0;           // compile-directory entry
  int64_t compile_id = 0;       // the compile it belongs to
  bool has_payload = false;
  std::string_view payload; // joined payload lines (padded buffer)
  std::string_view declared_md5;
  std::string_view envelope; // the whole envelope as logged (excerpts of bad lines)
  // Set by outputs that hold the payload itself (tlparse's PayloadFile/PayloadReformatFile).
  std::optional<std::string> payload_filename;
  // The envelope's `subgraph_name` (regional compilation), stamped on every output it produces.
  std::optional<std::string> subgraph;
  // Large values of `metadata` stored once by content (FileState::store_value): views of their
  // bytes in the envelope and their payload ids, in envelope order. The event's row leaves them
  // out of its envelope (envelope_cuts).
  std::vector<std::pair<std::string_view, int64_t>> cut_values;
};

// Where a key puts its line in the order of work (docs/TLPARSE-INGEST.md, "The order of work on
// one line"). Most kinds are ordinary events; the few that are not say so here, in their handler,
// rather than in the line loop.
enum class Flow {
  event,             // payload, rank filter, `ok`, handlers, payloads/<md5>.txt, raw.jsonl row
  whole_line,        // handled before the payload and the rank filter; the line ends there,
                     // stored as `interned`: never `ok`, never a raw.jsonl row (str)
  no_raw_row,        // an event with neither a raw.jsonl row nor payloads/<md5>.txt (chromium)
  names_event_alone, // names the event only when no other catalogue key does (stack)
};

struct Handler {
  // tlparse's Envelope typing for this key's value (ctx.key, ctx.metadata, ctx.line; nothing
  // has been written yet): false means fail_json. nullptr: any value.
  bool (*validate)(EventContext& ctx) = nullptr;
  // Produces outputs and index rows. nullptr: nothing to do.
  void (*handle)(EventContext& ctx) = nullptr;
  Flow flow = Flow::event;
};

struct KindEntry {
  std::string_view key;
  bool known_to_tlparse = true;
  const Handler* output = nullptr;   // from the catalogue's `output` column
  const Handler* recorder = nullptr; // index rows beyond the output, by kind
  Flow flow = Flow::event;           // the output's, else the recorder's
};

// The registry: one entry per catalogue kind, in catalogue order.
const std::vector<KindEntry>& registry();
// Index into registry() or -1 for a key the catalogue does not list.
int find_kind(std::string_view key);

// Output behaviours (catalogue `output` column); defined in the handler files.
namespace output {
extern const Handler intern, none, chromium, payload_txt, sentinel_txt, graph_dump, guards_html,
    output_code, ddp_split_child, aot_bwd_metrics_html, bwd_metrics_html, link, artifact,
    dump_file_html, metrics_html, export_only;
}
// Recorders for kinds whose data becomes rows of the index (stacks, shapes, symbols, type checks).
namespace record {
extern const Handler stack, dynamo_start, symbolic_shape_specialization, guard_added_fast, symbol,
    describe_storage, describe_tensor, describe_source;
}

// Helpers shared by handler files.
// Checks fields of a JSON object: each spec is {name, type, required}; type is one of
// "u32", "i32", "u64", "i64", "f64", "str", "bool", "arr", "obj", "any".
struct FieldSpec {
  std::string_view name;
  std::string_view type;
  bool required = false;
};
bool validate_object(simdjson::ondemand::parser& parser, std::string_view json,
                     std::initializer_list<FieldSpec> specs);
// Reads a string field of a JSON object (nullopt if absent or not a string).
std::optional<std::string> string_field(simdjson::ondemand::parser& parser, std::string_view json,
                                        std::string_view name);
// The named fields of a JSON object, by position in `names`: a string value unescaped, any other
// non-null value as raw JSON (copies). Fields not found, or an invalid object, stay empty.
struct NamedFields {
  std::vector<std::optional<std::string>> strings;
  std::vector<std::optional<std::string>> raws;
};
NamedFields collect_fields(simdjson::ondemand::parser& parser, std::string_view json,
                           std::initializer_list<std::string_view> names);
// Stores the stack given as raw JSON (nothing when absent or not a valid stack) for the event;
// its id and frames.
std::optional<int64_t> add_stack_json(EventContext& ctx, const std::optional<std::string>& raw,
                                      index::StackRole role,
                                      std::vector<index::StackFrame>& frames);

} // namespace tlparse::ingest::handlers
