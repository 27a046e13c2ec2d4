// fuzz_mcp_request: libFuzzer over what `tlparse mcp` reads from a client and from a log before
// any tool answers. The input is taken whole and line by line: each line is classified as a
// JSON-RPC message (mcp/json_rpc.h), and a message that is an error must give a reply line that
// is one valid JSON object; the same bytes are read as a graph break reason and as a printed FX
// graph (mcp/tools.h): never a crash, and what they return comes from the text.
#include "mcp/json_rpc.h"
#include "mcp/tools.h"
#include "tlparse/answers/graph_break_id.h"
#include "tlparse/graph/fx_graph.h"
#include "tlparse/report/serde_json.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_mcp_request: %s\n", what);
    std::abort();
  }
}

void one_line(std::string_view line) {
  using tlparse::mcp::Message;
  const Message m = tlparse::mcp::parse_message(line);
  if (m.kind == Message::Kind::error) {
    const std::string reply = tlparse::mcp::error_reply(m.id, m.error, m.error_message);
    check(reply.find('\n') == std::string::npos, "a reply holds a newline");
    const auto parsed = tlparse::report::parse_json(reply);
    check(parsed && parsed->is_object() && parsed->find("error") != nullptr,
          "an error reply is not a JSON object with an error");
  }
  if (m.kind == Message::Kind::request) {
    check(m.id.has_value(), "a request without an id");
    const std::string reply = tlparse::mcp::result_reply(m.id, "{}");
    check(tlparse::report::parse_json(reply).has_value(), "a result reply is not JSON");
  }
  if (m.kind == Message::Kind::notification) {
    check(!m.id.has_value(), "a notification with an id");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  one_line(text);
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      nl = text.size();
    }
    one_line(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  const auto id = tlparse::answers::graph_break_id(text);
  check(id.docs_url.size() <= text.size() && (id.id.empty() || id.id.rfind("gb", 0) == 0),
        "a graph break id not from the text");
  for (const auto& node : tlparse::graph::parse_fx_graph(text).nodes) {
    check(!node.name.empty() && node.name.size() <= text.size(), "an FX node without a name");
  }
  return 0;
}
