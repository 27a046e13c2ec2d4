// The MCP server of `tlparse mcp` (see server.h): the protocol's methods, the tool calls and the
// line loop over stdin/stdout.
#include "mcp/server.h"

#include "mcp/json_rpc.h"

#include <cerrno>
#include <exception>
#include <new>
#include <unistd.h>

namespace tlparse::mcp {
namespace {

using report::JsonValue;

JsonValue text(std::string_view s) {
  return JsonValue::string(std::string(s));
}

std::string compact(const JsonValue& v) {
  std::string out;
  report::write_compact(out, v);
  return out;
}

// A tools/call result: one text content, isError when the tool itself failed.
std::string call_result(std::string body, bool is_error) {
  JsonValue item = JsonValue::object();
  item.set("type", text("text"));
  item.set("text", JsonValue::string(std::move(body)));
  JsonValue content = JsonValue::array();
  content.items().push_back(std::move(item));
  JsonValue result = JsonValue::object();
  result.set("content", std::move(content));
  result.set("isError", JsonValue::boolean(is_error));
  return compact(result);
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

} // namespace

std::string Server::tools_list() const {
  JsonValue list = JsonValue::array();
  for (const Tool& t : tools()) {
    if (t.needs_compare && context_.compare == nullptr) {
      continue; // diff needs --compare: not offered without it
    }
    JsonValue o = JsonValue::object();
    o.set("name", text(t.name));
    o.set("description", text(t.description));
    o.set("inputSchema", input_schema(t));
    JsonValue annotations = JsonValue::object();
    annotations.set("readOnlyHint", JsonValue::boolean(true));
    annotations.set("openWorldHint", JsonValue::boolean(false));
    o.set("annotations", std::move(annotations));
    list.items().push_back(std::move(o));
  }
  JsonValue result = JsonValue::object();
  result.set("tools", std::move(list));
  return compact(result);
}

std::optional<std::string> Server::handle(std::string_view line) {
  Message m = parse_message(line);
  switch (m.kind) {
  case Message::Kind::blank:
  case Message::Kind::response:
  case Message::Kind::notification: // notifications/initialized, cancelled, ...: no reply
    return std::nullopt;
  case Message::Kind::error:
    return error_reply(m.id, m.error, m.error_message);
  case Message::Kind::request:
    break;
  }
  const JsonValue& params = m.params;
  if (m.method == "initialize") {
    std::string version = kProtocolVersions[0];
    if (const JsonValue* asked = params.find("protocolVersion");
        asked != nullptr && asked->kind() == JsonValue::Kind::String) {
      for (const char* v : kProtocolVersions) {
        if (asked->as_string() == v) {
          version = v;
        }
      }
    }
    JsonValue tools_cap = JsonValue::object();
    tools_cap.set("listChanged", JsonValue::boolean(false));
    JsonValue caps = JsonValue::object();
    caps.set("tools", std::move(tools_cap));
    JsonValue info = JsonValue::object();
    info.set("name", text("tlparse"));
    info.set("version", text(version_));
    JsonValue result = JsonValue::object();
    result.set("protocolVersion", text(version));
    result.set("capabilities", std::move(caps));
    result.set("serverInfo", std::move(info));
    result.set("instructions",
               text("Read-only answers from a torch.compile trace index (" + context_.source_name +
                    "): start with compiles, recompiles and graph_breaks; sql for anything "
                    "else over the documented views."));
    return result_reply(m.id, compact(result));
  }
  if (m.method == "ping") {
    return result_reply(m.id, "{}");
  }
  if (m.method == "tools/list") {
    return result_reply(m.id, tools_list());
  }
  if (m.method != "tools/call") {
    return error_reply(m.id, ErrorCode::method_not_found, "Method not found: " + m.method);
  }
  if (!params.is_object()) {
    return error_reply(m.id, ErrorCode::invalid_params, "Invalid params: params must be an object");
  }
  const JsonValue* name = params.find("name");
  if (name == nullptr || name->kind() != JsonValue::Kind::String) {
    return error_reply(m.id, ErrorCode::invalid_params,
                       "Invalid params: name (a string) is missing");
  }
  const Tool* tool = find_tool(name->as_string());
  if (tool == nullptr) {
    return error_reply(m.id, ErrorCode::invalid_params, "Unknown tool: " + name->as_string());
  }
  const JsonValue empty = JsonValue::object();
  const JsonValue* arguments = params.find("arguments");
  if (arguments == nullptr || arguments->kind() == JsonValue::Kind::Null) {
    arguments = &empty;
  }
  if (const auto problem = check_arguments(*tool, *arguments)) {
    return error_reply(m.id, ErrorCode::invalid_params, "Invalid params: " + *problem);
  }
  try {
    const ToolResult r = tool->handler(context_, ToolArgs{arguments});
    if (!r) {
      return result_reply(m.id, call_result(r.error(), true));
    }
    std::string body;
    report::write_pretty(body, *r);
    return result_reply(m.id, call_result(std::move(body), false));
  } catch (const std::bad_alloc&) {
    return error_reply(m.id, ErrorCode::internal_error, "Internal error: out of memory");
  } catch (const std::exception& e) {
    return error_reply(m.id, ErrorCode::internal_error, std::string("Internal error: ") + e.what());
  }
}

int serve(Server& server, int in_fd, int out_fd, const std::atomic<bool>* interrupted) {
  std::string line;
  bool too_long = false;
  char buf[1 << 16];
  auto finish_line = [&]() -> bool {
    std::optional<std::string> reply;
    if (too_long) {
      reply = error_reply(std::nullopt, ErrorCode::invalid_request,
                          "Invalid Request: a message is limited to " +
                              std::to_string(kMaxLineBytes) + " bytes");
    } else {
      reply = server.handle(line);
    }
    line.clear();
    too_long = false;
    return !reply || write_all(out_fd, *reply + "\n");
  };
  for (;;) {
    const ssize_t n = ::read(in_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) {
      if (interrupted != nullptr && interrupted->load()) {
        return 0;
      }
      continue;
    }
    if (n <= 0) {
      break;
    }
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] == '\n') {
        if (!finish_line()) {
          return 1;
        }
      } else if (line.size() >= kMaxLineBytes) {
        too_long = true; // the rest of the line is dropped as it comes
      } else {
        line += buf[i];
      }
    }
  }
  if (!line.empty() || too_long) {
    return finish_line() ? 0 : 1;
  }
  return 0;
}

} // namespace tlparse::mcp
