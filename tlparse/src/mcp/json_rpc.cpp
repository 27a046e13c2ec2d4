// JSON-RPC 2.0 message checks and reply lines for `tlparse mcp` (see json_rpc.h).
#include "mcp/json_rpc.h"

#include <string>

namespace tlparse::mcp {
namespace {

using report::JsonValue;

bool is_blank(std::string_view s) {
  for (const char c : s) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
      return false;
    }
  }
  return true;
}

bool valid_id(const JsonValue& v) {
  return v.kind() == JsonValue::Kind::String || v.kind() == JsonValue::Kind::Int ||
         v.kind() == JsonValue::Kind::UInt;
}

Message error(ErrorCode code, std::string message, std::optional<JsonValue> id = std::nullopt) {
  Message m;
  m.kind = Message::Kind::error;
  m.error = code;
  m.error_message = std::move(message);
  m.id = std::move(id);
  return m;
}

} // namespace

Message parse_message(std::string_view line) {
  if (is_blank(line)) {
    return {};
  }
  std::optional<JsonValue> doc = report::parse_json(line);
  if (!doc) {
    return error(ErrorCode::parse_error, "Parse error: the line is not one JSON value");
  }
  if (doc->kind() == JsonValue::Kind::Array) {
    // MCP 2025-06-18 dropped JSON-RPC batching; one message per line.
    return error(ErrorCode::invalid_request, "Invalid Request: batches are not supported");
  }
  if (!doc->is_object()) {
    return error(ErrorCode::invalid_request, "Invalid Request: a message is a JSON object");
  }
  const JsonValue* id = doc->find("id");
  std::optional<JsonValue> good_id;
  if (id != nullptr) {
    if (!valid_id(*id)) {
      return error(ErrorCode::invalid_request,
                   "Invalid Request: id must be a string or an integer");
    }
    good_id = *id;
  }
  const JsonValue* version = doc->find("jsonrpc");
  if (version == nullptr || version->kind() != JsonValue::Kind::String ||
      version->as_string() != "2.0") {
    return error(ErrorCode::invalid_request, "Invalid Request: jsonrpc must be \"2.0\"", good_id);
  }
  const JsonValue* method = doc->find("method");
  if (method == nullptr) {
    if (good_id && (doc->find("result") != nullptr || doc->find("error") != nullptr)) {
      Message m;
      m.kind = Message::Kind::response;
      return m;
    }
    return error(ErrorCode::invalid_request, "Invalid Request: method is missing", good_id);
  }
  if (method->kind() != JsonValue::Kind::String) {
    return error(ErrorCode::invalid_request, "Invalid Request: method must be a string", good_id);
  }
  Message m;
  m.kind = good_id ? Message::Kind::request : Message::Kind::notification;
  m.id = std::move(good_id);
  m.method = method->as_string();
  if (const JsonValue* params = doc->find("params")) {
    if (params->kind() != JsonValue::Kind::Object && params->kind() != JsonValue::Kind::Array) {
      return error(ErrorCode::invalid_request,
                   "Invalid Request: params must be an object or an array", m.id);
    }
    m.params = *params;
  }
  return m;
}

std::string result_reply(const std::optional<JsonValue>& id, std::string_view result_json) {
  std::string out = "{\"jsonrpc\":\"2.0\",\"id\":";
  if (id) {
    report::write_compact(out, *id);
  } else {
    out += "null";
  }
  out += ",\"result\":";
  out += result_json;
  out += '}';
  return out;
}

std::string error_reply(const std::optional<JsonValue>& id, ErrorCode code,
                        std::string_view message) {
  std::string out = "{\"jsonrpc\":\"2.0\",\"id\":";
  if (id) {
    report::write_compact(out, *id);
  } else {
    out += "null";
  }
  out += ",\"error\":{\"code\":" + std::to_string(static_cast<int>(code)) + ",\"message\":";
  report::write_json_string(out, message);
  out += "}}";
  return out;
}

} // namespace tlparse::mcp
