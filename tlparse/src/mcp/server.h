// The Model Context Protocol server of `tlparse mcp`: JSON-RPC 2.0 over stdin/stdout, one
// message per line (docs/ANSWERS.md, "For agents: tlparse mcp"). It answers initialize, ping,
// tools/list and tools/call from the tool table (mcp/tools.h); notifications get no reply. It is
// read-only and reads nothing but the index(es) in its ToolContext.
#pragma once

#include "mcp/tools.h"

#include <optional>
#include <string>
#include <string_view>

namespace tlparse::mcp {

// The longest request line read; a longer one is answered with -32600 and skipped.
constexpr size_t kMaxLineBytes = 1u << 20;
// The protocol versions understood, the latest first.
constexpr const char* kProtocolVersions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

class Server {
public:
  Server(ToolContext context, std::string version)
      : context_(std::move(context)), version_(std::move(version)) {}
  // The reply line to one request line, or nullopt when none is due (notifications, responses,
  // blank lines).
  std::optional<std::string> handle(std::string_view line);

private:
  std::string tools_list() const;
  ToolContext context_;
  std::string version_;
};

// Reads request lines from `in_fd` until end of input (or Ctrl-C) and writes each reply line to
// `out_fd`. Returns 0, or 1 when the output could not be written.
int serve(Server& server, int in_fd, int out_fd, const std::atomic<bool>* interrupted);

} // namespace tlparse::mcp
