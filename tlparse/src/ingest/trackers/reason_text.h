// Taking apart the texts PyTorch writes about recompiles and graph breaks, so the index holds
// them as rows. recompile_reasons comes in three shapes in PyTorch 2.11 logs: a JSON list of
// strings, a JSON string, and plain text; in each, a reason may be followed by
// "User stack trace:" and the user's frames. dynamo_graph_break_reason is text: "Graph break in
// user code at FILE:LINE", "Graph Break Reason: ...", "User code traceback:" and the frames, then
// the framework's traceback. Nothing here fails: text that fits no pattern is kept whole.
#pragma once

#include "tlparse/index/schema.gen.h"

#include <cstdint>
#include <optional>
#include <simdjson.h>
#include <string>
#include <string_view>
#include <vector>

namespace tlparse::ingest {

// The rows of a recompile_reasons payload, with their text columns (reason, cached_entry, guard,
// user_stack, user_file, user_line), `pos` and `shape` set; the caller sets where they come from.
// `payload` must be followed by simdjson::SIMDJSON_PADDING readable bytes.
std::vector<index::RecompileReason> parse_recompile_reasons(simdjson::ondemand::parser& parser,
                                                            std::string_view payload);

// The graph_breaks row of a dynamo_graph_break_reason text, its text columns set (reason,
// user_file, user_line, user_stack).
index::GraphBreak parse_graph_break(std::string_view text);

} // namespace tlparse::ingest
