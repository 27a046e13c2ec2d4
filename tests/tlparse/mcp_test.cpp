// `tlparse mcp`: the binary driven as an MCP client drives it (a child process on two pipes, one
// JSON-RPC message a line, each reply read before the next request), the error codes of
// malformed messages, and the two text readers behind graph_breaks and graph.
#include "ingest_test_util.h"
#include "mcp/json_rpc.h"
#include "mcp/tools.h"
#include "support/test_paths.h"
#include "tlparse/answers/graph_break_id.h"
#include "tlparse/graph/fx_graph.h"
#include "tlparse/report/serde_json.h"

#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>
#include <poll.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using tlparse::report::JsonValue;
namespace fs = std::filesystem;

namespace {

fs::path workload(const std::string& name) {
  return test_support::source_dir() / "tests/data/pytorch-2.11" / name;
}

// A `tlparse mcp` child with its stdin and stdout on pipes.
class McpClient {
public:
  explicit McpClient(const std::vector<std::string>& args) {
    int to_child[2], from_child[2];
    REQUIRE(::pipe(to_child) == 0);
    REQUIRE(::pipe(from_child) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::dup2(to_child[0], STDIN_FILENO);
      ::dup2(from_child[1], STDOUT_FILENO);
      ::close(to_child[0]);
      ::close(to_child[1]);
      ::close(from_child[0]);
      ::close(from_child[1]);
      std::vector<std::string> all = {TLPARSE_BINARY, "mcp"};
      all.insert(all.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& a : all) {
        argv.push_back(a.data());
      }
      argv.push_back(nullptr);
      ::execv(TLPARSE_BINARY, argv.data());
      ::_exit(127);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    in_ = to_child[1];
    out_ = from_child[0];
    std::signal(SIGPIPE, SIG_IGN);
  }
  ~McpClient() {
    close_input();
    if (out_ >= 0) {
      ::close(out_);
    }
    wait();
  }
  McpClient(const McpClient&) = delete;
  McpClient& operator=(const McpClient&) = delete;

  void send(const std::string& line) {
    std::string bytes = line + "\n";
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(in_, bytes.data() + done, bytes.size() - done);
      REQUIRE(n > 0);
      done += static_cast<size_t>(n);
    }
  }
  // The next reply line; "" when none came within `timeout_ms` or the server closed its output.
  std::string read_line(int timeout_ms = 30000) {
    for (;;) {
      const size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      pollfd p{out_, POLLIN, 0};
      if (::poll(&p, 1, timeout_ms) <= 0) {
        return "";
      }
      char buf[65536];
      const ssize_t n = ::read(out_, buf, sizeof buf);
      if (n <= 0) {
        return "";
      }
      buffer_.append(buf, static_cast<size_t>(n));
    }
  }
  JsonValue reply(int timeout_ms = 30000) {
    const std::string line = read_line(timeout_ms);
    INFO(line);
    auto v = tlparse::report::parse_json(line);
    REQUIRE(v);
    REQUIRE(v->is_object());
    CHECK(v->find("jsonrpc")->as_string() == "2.0");
    return *v;
  }
  JsonValue request(int id, const std::string& method, const std::string& params = "{}") {
    send("{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) + ",\"method\":\"" + method +
         "\",\"params\":" + params + "}");
    JsonValue r = reply();
    REQUIRE(r.find("id") != nullptr);
    CHECK(r.find("id")->as_uint() == static_cast<uint64_t>(id));
    return r;
  }
  // tools/call; returns the result object (REQUIREs one).
  JsonValue call(int id, const std::string& tool, const std::string& arguments) {
    JsonValue r =
        request(id, "tools/call", "{\"name\":\"" + tool + "\",\"arguments\":" + arguments + "}");
    INFO(tool << " " << arguments);
    REQUIRE(r.find("result") != nullptr);
    return *r.find("result");
  }
  void close_input() {
    if (in_ >= 0) {
      ::close(in_);
      in_ = -1;
    }
  }
  int wait() {
    if (pid_ <= 0) {
      return status_;
    }
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return status_;
  }

private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  int status_ = -1;
  std::string buffer_;
};

int error_code(const JsonValue& reply) {
  const JsonValue* e = reply.find("error");
  REQUIRE(e != nullptr);
  return static_cast<int>(e->find("code")->as_int());
}

// The text content of a tools/call result, parsed as the JSON it holds.
JsonValue content_json(const JsonValue& result) {
  CHECK_FALSE(result.find("isError")->as_bool());
  const auto& content = result.find("content")->items();
  REQUIRE(content.size() == 1);
  CHECK(content[0].find("type")->as_string() == "text");
  auto v = tlparse::report::parse_json(content[0].find("text")->as_string());
  REQUIRE(v);
  return *v;
}

std::string error_text(const JsonValue& result) {
  CHECK(result.find("isError")->as_bool());
  return result.find("content")->items().at(0).find("text")->as_string();
}

} // namespace

TEST_CASE("mcp a client initializes, lists the tools and calls them", "[tlparse][mcp]") {
  McpClient c({workload("w02_recompile").string()});
  const JsonValue init = c.request(1, "initialize",
                                   R"({"protocolVersion":"2025-03-26","capabilities":{},)"
                                   R"("clientInfo":{"name":"test","version":"1"}})");
  const JsonValue& result = *init.find("result");
  CHECK(result.find("protocolVersion")->as_string() == "2025-03-26");
  CHECK(result.find("capabilities")->find("tools") != nullptr);
  CHECK(result.find("serverInfo")->find("name")->as_string() == "tlparse");
  // Notifications get no reply: the next line answers the ping after them.
  c.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  c.send(R"({"jsonrpc":"2.0","method":"no/such/notification","params":{}})");
  CHECK(c.request(2, "ping").find("result")->is_object());

  const JsonValue list = c.request(3, "tools/list");
  std::vector<std::string> names;
  for (const JsonValue& t : list.find("result")->find("tools")->items()) {
    names.push_back(t.find("name")->as_string());
    CHECK_FALSE(t.find("description")->as_string().empty());
    CHECK(t.find("inputSchema")->find("type")->as_string() == "object");
  }
  CHECK(names == std::vector<std::string>{"compiles", "recompiles", "graph_breaks", "compile_time",
                                          "artifact", "graph", "sql"});

  const JsonValue compiles = content_json(c.call(4, "compiles", "{}"));
  const auto& rows = compiles.find("compiles")->items();
  REQUIRE(rows.size() >= 2);
  CHECK(rows[0].find("compile")->as_string() == "[0/0]");
  CHECK(rows[0].find("status")->as_string() == "ok");
  CHECK(rows[0].find("compile_time_s")->kind() == JsonValue::Kind::Float);
  CHECK_FALSE(compiles.find("truncated")->as_bool());
  const JsonValue one = content_json(c.call(5, "compiles", R"({"limit":1})"));
  CHECK(one.find("compiles")->items().size() == 1);
  CHECK(one.find("truncated")->as_bool());

  const JsonValue recompiles = content_json(c.call(6, "recompiles", "{}"));
  const auto& reasons = recompiles.find("recompiles")->items();
  REQUIRE_FALSE(reasons.empty());
  CHECK(reasons[0].find("compile")->as_string() == "[0/1]");
  CHECK(reasons[0].find("category")->as_string() == "shape");
  CHECK(reasons[0].find("guard")->as_string().find("size mismatch") != std::string::npos);
  CHECK_FALSE(reasons[0].find("suggestion")->as_string().empty());

  const JsonValue listed = content_json(c.call(7, "artifact", R"({"compile":"[0/0]"})"));
  bool has_graph = false;
  for (const JsonValue& a : listed.find("artifacts")->items()) {
    has_graph = has_graph || a.find("artifact")->as_string() == "dynamo_output_graph";
  }
  CHECK(has_graph);
  const JsonValue art = content_json(
      c.call(8, "artifact", R"({"compile":"0/0","name":"dynamo_output_graph","max_bytes":40})"));
  CHECK(art.find("text")->as_string().rfind("class GraphModule", 0) == 0);
  CHECK(art.find("text")->as_string().size() <= 40);
  CHECK(art.find("truncated")->as_bool());
  CHECK(art.find("bytes")->as_uint() > 40);

  const JsonValue graph = content_json(c.call(9, "graph", R"({"compile":"[0/0]"})"));
  CHECK(graph.find("parsed")->as_bool());
  bool has_sin = false, has_output = false;
  for (const JsonValue& n : graph.find("nodes")->items()) {
    has_sin = has_sin || (n.find("name")->as_string() == "sin" &&
                          n.find("target")->as_string() == "torch.sin" &&
                          n.find("op")->as_string() == "call_function" &&
                          !n.find("inputs")->items().empty()); // an edge from the input
    has_output = has_output || n.find("op")->as_string() == "output";
  }
  CHECK(has_sin);
  CHECK(has_output);

  const JsonValue time = content_json(c.call(10, "compile_time", "{}"));
  CHECK(time.find("total")->find("compile_time_s")->as_float() > 0);
  CHECK_FALSE(time.find("spans_by_name")->items().empty());

  const JsonValue sql =
      content_json(c.call(11, "sql", R"({"query":"SELECT compile, category FROM recompiles"})"));
  CHECK(sql.find("columns")->items().size() == 2);
  CHECK(sql.find("rows")->items().at(0).items().at(0).as_string() == "[0/1]");

  // A tool's own failure is content with isError, not a protocol error.
  CHECK(error_text(c.call(12, "sql", R"({"query":"DELETE FROM files"})")).find("not authorized") !=
        std::string::npos);
  CHECK_FALSE(error_text(c.call(13, "sql", R"({"query":"ATTACH '/etc/passwd' AS x"})")).empty());
  CHECK_FALSE(
      error_text(c.call(14, "sql", R"j({"query":"SELECT load_extension('/tmp/x.so')"})j")).empty());
  CHECK_FALSE(error_text(c.call(15, "sql", R"({"query":"SELEC nonsense"})")).empty());
  // Bounded memory: no value over 64 MiB can be made or read.
  CHECK(error_text(c.call(17, "sql", R"j({"query":"SELECT hex(zeroblob(100000000))"})j"))
            .find("too big") != std::string::npos);
  CHECK(error_text(c.call(16, "artifact", R"({"compile":"[9/9]","name":"x' OR '1'='1"})"))
            .find("no artifact") != std::string::npos);

  c.close_input();
  CHECK(c.read_line(5000).empty());
  CHECK(c.wait() == 0);
}

TEST_CASE("mcp malformed messages get JSON-RPC errors, never a crash", "[tlparse][mcp]") {
  McpClient c({workload("w02_recompile").string()});
  c.send("this is not json");
  JsonValue r = c.reply();
  CHECK(error_code(r) == -32700);
  CHECK(r.find("id")->kind() == JsonValue::Kind::Null);
  c.send(R"({"jsonrpc":"2.0","id":1,"method":"ping")"); // cut short
  CHECK(error_code(c.reply()) == -32700);
  c.send(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  CHECK(error_code(c.reply()) == -32600);
  c.send(R"({"jsonrpc":"1.0","id":2,"method":"ping"})");
  r = c.reply();
  CHECK(error_code(r) == -32600);
  CHECK(r.find("id")->as_uint() == 2);
  c.send(R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})");
  CHECK(error_code(c.reply()) == -32600);
  c.send(R"({"jsonrpc":"2.0","id":3,"method":42})");
  CHECK(error_code(c.reply()) == -32600);
  c.send(R"("just a string")");
  CHECK(error_code(c.reply()) == -32600);
  CHECK(error_code(c.request(4, "resources/list")) == -32601);
  CHECK(error_code(c.request(5, "tools/call", R"({"name":"rm_rf"})")) == -32602);
  CHECK(error_code(c.request(6, "tools/call", R"({"arguments":{}})")) == -32602);
  CHECK(error_code(c.request(7, "tools/call", R"({"name":"sql","arguments":{}})")) == -32602);
  CHECK(error_code(c.request(8, "tools/call", R"({"name":"sql","arguments":{"query":1}})")) ==
        -32602);
  CHECK(error_code(c.request(9, "tools/call",
                             R"({"name":"compiles","arguments":{"limit":"all"}})")) == -32602);
  CHECK(error_code(c.request(10, "tools/call", R"({"name":"compiles","arguments":{"limit":0}})")) ==
        -32602);
  CHECK(error_code(c.request(11, "tools/call",
                             R"({"name":"compiles","arguments":{"path":"/etc/passwd"}})")) ==
        -32602);
  CHECK(error_code(c.request(12, "tools/call",
                             R"({"name":"compiles","arguments":{"status":"great"}})")) == -32602);
  CHECK(error_code(c.request(13, "tools/call", R"({"name":"compiles","arguments":[1]})")) ==
        -32602);
  // diff is not offered without --compare.
  CHECK(error_text(*c.request(14, "tools/call", R"({"name":"diff"})").find("result"))
            .find("--compare") != std::string::npos);
  // A line over the cap is refused as a whole, and the server goes on.
  c.send(std::string(2u << 20, ' ') + "{}");
  CHECK(error_code(c.reply()) == -32600);
  // A malformed notification is still answered (its id is unknown), a blank line is not.
  c.send("");
  c.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  CHECK(c.request(15, "ping").find("result") != nullptr);
  c.close_input();
  CHECK(c.wait() == 0);
}

TEST_CASE("mcp graph_breaks return PyTorch's stable id and docs link", "[tlparse][mcp]") {
  McpClient c({workload("w03_data_dependent").string()});
  const JsonValue breaks = content_json(c.call(1, "graph_breaks", "{}"));
  const auto& rows = breaks.find("graph_breaks")->items();
  REQUIRE_FALSE(rows.empty());
  CHECK(rows[0].find("id")->as_string() == "gb0170");
  CHECK(rows[0].find("docs_url")->as_string() ==
        "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html");
  CHECK(rows[0].find("count")->as_uint() == 1);
  CHECK(rows[0].find("user_line")->as_uint() == 7);
}

TEST_CASE("mcp diff compares SOURCE with the --compare run", "[tlparse][mcp]") {
  McpClient c(
      {workload("w13_cache_run1").string(), "--compare", workload("w13_cache_run2").string()});
  bool listed = false;
  for (const JsonValue& t : c.request(1, "tools/list").find("result")->find("tools")->items()) {
    listed = listed || t.find("name")->as_string() == "diff";
  }
  CHECK(listed);
  const JsonValue d = content_json(c.call(2, "diff", "{}"));
  CHECK(d.find("a")->find("cache_misses")->as_uint() == 2);
  CHECK(d.find("b")->find("cache_hits")->as_uint() == 2);
  CHECK(d.find("frames") != nullptr);
  CHECK(error_code(c.request(3, "tools/call", R"({"name":"diff","arguments":{"log":-1}})")) ==
        -32602);
}

TEST_CASE("mcp usage errors and --help", "[tlparse][mcp]") {
  test_support::TempDir tmp;
  const auto help = tlparse_test::run_tlparse({"mcp", "--help"}, tmp.path());
  CHECK(help.code == 0);
  CHECK(help.out.find("--compare") != std::string::npos);
  CHECK(tlparse_test::run_tlparse({"mcp"}, tmp.path()).code == 2);
  CHECK(tlparse_test::run_tlparse({"mcp", "a", "b"}, tmp.path()).code == 2);
  CHECK(tlparse_test::run_tlparse({"mcp", "nope.log"}, tmp.path()).code == 1);
  CHECK(tlparse_test::run_tlparse({"--help"}, tmp.path()).out.find("tlparse mcp") !=
        std::string::npos);
}

TEST_CASE("mcp message classification", "[tlparse][mcp]") {
  using tlparse::mcp::Message;
  using tlparse::mcp::parse_message;
  CHECK(parse_message("  \r").kind == Message::Kind::blank);
  CHECK(parse_message(R"({"jsonrpc":"2.0","id":"a","result":{}})").kind == Message::Kind::response);
  const Message req = parse_message(R"({"jsonrpc":"2.0","id":"x","method":"ping"})");
  CHECK(req.kind == Message::Kind::request);
  CHECK(req.id->as_string() == "x");
  CHECK(parse_message(R"({"jsonrpc":"2.0","id":null,"method":"ping"})").kind ==
        Message::Kind::error);
  CHECK(parse_message(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})").kind ==
        Message::Kind::error);
  CHECK(parse_message(R"({"jsonrpc":"2.0","id":1,"method":"x","params":3})").kind ==
        Message::Kind::error);
  CHECK(tlparse::mcp::error_reply(std::nullopt, tlparse::mcp::ErrorCode::parse_error,
                                  "bad \"x\"\n") ==
        R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad \"x\"\n"}})");
}

TEST_CASE("mcp graph break ids and FX graph nodes from text", "[tlparse][mcp]") {
  const auto id = tlparse::answers::graph_break_id(
      "Reason\n For more details about this graph break, please visit: "
      "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html\n");
  CHECK(id.id == "gb0124");
  CHECK(id.docs_url == "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html");
  CHECK(tlparse::answers::graph_break_id("no link here http://x/gbx").id.empty());

  const auto nodes = tlparse::graph::parse_fx_graph(
                         "class GraphModule(torch.nn.Module):\n"
                         "    def forward(self, L_x_: \"f32[8][1]cpu\", y):\n"
                         "        # File: m.py:3 in f, code: z = x.relu()\n"
                         "        relu: \"f32[8][1]cpu\" = L_x_.relu();  L_x_ = None\n"
                         "        mm = torch.ops.aten.mm.default(relu, y, [1, 2]);  relu = None\n"
                         "        w = self.weight\n"
                         "        return (mm,)\n")
                         .nodes;
  REQUIRE(nodes.size() == 6);
  CHECK(nodes[0].op == "placeholder");
  CHECK(nodes[0].type == "f32[8][1]cpu");
  CHECK(nodes[1].name == "y");
  CHECK(nodes[2].op == "call_method");
  CHECK(nodes[2].target == "relu");
  CHECK(nodes[2].args == std::vector<std::string>{"L_x_"});
  CHECK(nodes[2].source == "File: m.py:3 in f, code: z = x.relu()");
  CHECK(nodes[3].op == "call_function");
  CHECK(nodes[3].target == "torch.ops.aten.mm.default");
  CHECK(nodes[3].args == std::vector<std::string>{"relu", "y", "[1, 2]"});
  CHECK(nodes[4].op == "get_attr");
  CHECK(nodes[5].op == "output");
  CHECK(nodes[5].args == std::vector<std::string>{"mm"});
  CHECK(tlparse::graph::parse_fx_graph("def call(args):\n    buf0 = empty(3)\n").empty());
}
