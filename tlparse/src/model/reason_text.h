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

namespace tlparse::model {

struct ParsedReason {
  std::string reason;                      // as logged, without the user stack
  std::optional<std::string> cached_entry; // "0/1" when the reason starts with "0/1: "
  std::string guard;                       // the reason without that prefix
  std::optional<std::string> user_stack;   // the frames after "User stack trace:"
  std::optional<std::string> user_file;    // innermost `File "...", line N` of that stack
  std::optional<int64_t> user_line;
};

struct ParsedReasons {
  index::ReasonShape shape = index::ReasonShape::text;
  std::vector<ParsedReason> reasons;
};

// `payload` must be followed by simdjson::SIMDJSON_PADDING readable bytes.
ParsedReasons parse_recompile_reasons(simdjson::ondemand::parser& parser, std::string_view payload);

struct ParsedGraphBreak {
  std::string reason;
  std::optional<std::string> user_file;
  std::optional<int64_t> user_line;
  std::optional<std::string> user_stack;
};

ParsedGraphBreak parse_graph_break(std::string_view text);

} // namespace tlparse::model
