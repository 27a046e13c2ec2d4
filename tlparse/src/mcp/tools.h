// The tools `tlparse mcp` offers, declared once in one table (name, description, arguments,
// handler): tools/list is generated from it and tools/call checks a call's arguments against it
// before the handler runs. Every handler answers from the index through the read API or the
// documented views (IndexReader::query, docs/INDEX-SCHEMA.md), never from a path in a request,
// and caps what it returns (rows, bytes, time).
#pragma once

#include "tlparse/index/index_reader.h"
#include "tlparse/report/serde_json.h"
#include "tlparse/result.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tlparse::mcp {

// What the tools may read: the source given on the command line and, for `diff`, the one given
// with --compare. Nothing else.
struct ToolContext {
  const index::IndexReader* reader = nullptr;
  std::string source_name;
  const index::IndexReader* compare = nullptr; // null without --compare
  std::string compare_name;
  const std::atomic<bool>* interrupted = nullptr; // Ctrl-C: stop a running query
};

// One declared argument of a tool.
struct ToolArg {
  enum class Type { string, integer };
  const char* name;
  Type type;
  bool required;
  const char* description;
  int64_t minimum = 0, maximum = 0;   // integers: the allowed range
  std::vector<const char*> choices{}; // strings: the allowed values (empty: any)
};

// What a tool returns: a JSON value shown as the text content, or a failure of the tool itself
// (bad SQL, no such compile) reported as isError content.
using ToolResult = Result<report::JsonValue>;

// A call's arguments, already checked against the tool's declaration.
struct ToolArgs {
  const report::JsonValue* object = nullptr;
  std::optional<std::string> string(const char* name) const;
  std::optional<int64_t> integer(const char* name) const;
};

struct Tool {
  const char* name;
  const char* description;
  std::vector<ToolArg> args;
  bool needs_compare = false; // listed only when the server was given --compare
  ToolResult (*handler)(const ToolContext&, const ToolArgs&);
};

// The table.
const std::vector<Tool>& tools();
const Tool* find_tool(std::string_view name);
// The tool's inputSchema (JSON Schema: object, declared properties only).
report::JsonValue input_schema(const Tool& tool);
// Checks `arguments` (an object) against the declaration; an error message when a required one
// is missing, one is unknown, or one has the wrong type, range or value.
std::optional<std::string> check_arguments(const Tool& tool, const report::JsonValue& arguments);

// Caps of every answer (bounded memory per request, and what an agent can read at once).
constexpr int64_t kDefaultRows = 200;
constexpr int64_t kMaxRows = 5000;
constexpr size_t kMaxResultBytes = 1u << 20; // the rows of one answer, as JSON
constexpr size_t kMaxCellBytes = 64u << 10;  // one value of a row
constexpr size_t kDefaultArtifactBytes = 256u << 10;
constexpr size_t kMaxArtifactBytes = 1u << 20;
constexpr int kQuerySeconds = 20;                 // a query running longer is stopped
constexpr int64_t kMaxQueryValueBytes = 64 << 20; // the longest value a query may read or make

} // namespace tlparse::mcp
