// JSON-RPC 2.0 framing for `tlparse mcp` (the Model Context Protocol over stdio): one message per
// line. A line is parsed and checked here, before any tool sees it, so every malformed message
// (not JSON, too large, a batch, a wrong "jsonrpc", an id that is neither a string nor an
// integer) becomes an error reply with the right code, never an exception or a crash. The parser
// is report::parse_json (strict, depth-limited); lines are capped by the reader (mcp/server.h).
#pragma once

#include "tlparse/report/serde_json.h"

#include <optional>
#include <string>
#include <string_view>

namespace tlparse::mcp {

// The JSON-RPC 2.0 error codes the server answers with.
enum class ErrorCode : int {
  parse_error = -32700,
  invalid_request = -32600,
  method_not_found = -32601,
  invalid_params = -32602,
  internal_error = -32603,
};

// What one line holds.
struct Message {
  enum class Kind {
    request,      // has an id: answer it
    notification, // no id: never answered, not even with an error
    response,     // a reply to a request of ours (we send none): ignored
    error,        // malformed: answer `error` with `id` (null when unknown)
    blank,        // only whitespace: ignored
  };
  Kind kind = Kind::blank;
  std::optional<report::JsonValue> id; // a string or an integer; nullopt: null
  std::string method;
  report::JsonValue params = report::JsonValue::object(); // absent params read as {}
  ErrorCode error = ErrorCode::invalid_request;
  std::string error_message;
};

// Classifies one line (without its '\n').
Message parse_message(std::string_view line);

// A reply line (no trailing newline): `result` is a JSON value already serialised.
std::string result_reply(const std::optional<report::JsonValue>& id, std::string_view result_json);
std::string error_reply(const std::optional<report::JsonValue>& id, ErrorCode code,
                        std::string_view message);

} // namespace tlparse::mcp
