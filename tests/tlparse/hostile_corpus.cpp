// See hostile_corpus.h. Every case is built from a few lines of code so that what it attacks is
// readable here; bytes no text editor shows (NUL, ESC, invalid UTF-8) are written as escapes.
#include "hostile_corpus.h"

#include "ingest/reader/md5.h"

#include <sys/stat.h>

namespace hostile {
namespace fs = std::filesystem;

std::string line(std::string_view envelope) {
  return "V1122 02:46:30.969000 452 torch/_dynamo/utils.py:2126] " + std::string(envelope) + "\n";
}

std::string with_payload(std::string_view head, std::string_view payload,
                         std::string_view declared) {
  const std::string digest =
      declared.empty() ? tlparse::ingest::md5_hex(payload) : std::string(declared);
  std::string out = line(std::string(head) + ", \"has_payload\": \"" + digest + "\"}");
  std::size_t start = 0;
  while (true) {
    const std::size_t nl = payload.find('\n', start);
    out += '\t';
    out +=
        payload.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    out += '\n';
    if (nl == std::string_view::npos) {
      break;
    }
    start = nl + 1;
  }
  return out;
}

std::string cid(int64_t frame, int64_t compile) {
  return "\"frame_id\": " + std::to_string(frame) +
         ", \"frame_compile_id\": " + std::to_string(compile) + ", \"attempt\": 0";
}

namespace {

std::string artifact(std::string_view name, std::string_view payload, int64_t frame = 0,
                     int64_t compile = 0) {
  return with_payload("{\"artifact\": {\"name\": \"" + std::string(name) +
                          "\", \"encoding\": \"string\"}, " + cid(frame, compile),
                      payload);
}

std::string dump_file(std::string_view name, std::string_view payload) {
  return with_payload("{\"dump_file\": {\"name\": \"" + std::string(name) + "\"}", payload);
}

// A few well-formed events of one compile that every case may mix in: what must survive.
std::string valid_events() {
  return line(
             "{\"dynamo_start\": {\"stack\": [{\"line\": 1, \"name\": \"f\", \"filename\": 0}]}, " +
             cid(0, 0) + "}") +
         artifact("kept", "still here") +
         line("{\"compilation_metrics\": {\"co_name\": \"f\", \"graph_op_count\": 1}, " +
              cid(0, 0) + "}");
}
constexpr int64_t kValidEvents = 3;

// Deterministic bytes (an LCG), so a failure reproduces.
std::string garbage(std::size_t n, uint32_t seed) {
  std::string out(n, '\0');
  for (char& c : out) {
    seed = seed * 1664525u + 1013904223u;
    c = static_cast<char>(seed >> 24);
  }
  return out;
}

Case make(std::string name, std::string log, Expect expect) {
  Case c;
  c.name = std::move(name);
  c.log = std::move(log);
  c.expect = std::move(expect);
  return c;
}

} // namespace

std::vector<Case> log_cases() {
  std::vector<Case> cases;
  const auto ok = [](int64_t n, std::map<std::string, int64_t> counters = {}) {
    Expect e;
    e.ok_events = n;
    e.counters = std::move(counters);
    return e;
  };

  // --- Output names that cannot all exist (a file needed as a folder).
  cases.push_back(make("collision: dump_file x and x.html/y",
                       dump_file("x", "a = 1") + dump_file("x.html/y", "b = 2") + valid_events(),
                       ok(2 + kValidEvents, {{"output_name_collision", 1}})));
  cases.back().expect.files = {"dump_file/x.html/y.html", "dump_file/x_collision1.html"};
  cases.push_back(make("collision: artifact k and k_0.txt/deeper",
                       artifact("k", "v") + artifact("k_0.txt/deeper", "w") + valid_events(),
                       ok(2 + kValidEvents, {{"output_name_collision", 1}})));
  cases.push_back(make("collision: has_payload names x and x.txt/y",
                       line("{\"dynamo_start\": {\"stack\": []}, " + cid(0, 0) + "}") +
                           with_payload("{\"some_unknown_key\": {}", "p1", "x") +
                           with_payload("{\"some_unknown_key\": {}", "p2", "x.txt/y"),
                       ok(3, {{"output_name_collision", 1}, {"fail_payload_md5", 2}})));

  // --- Terminal escapes: ESC, BEL, OSC and CR from a log must reach stderr escaped.
  {
    Case c = make("terminal: escapes in an unknown key, a failed line and a JSON \\u001b",
                  line("{\"\\u001b]0;pwned\\u0007evil\\r\": 1}") +
                      line("{not json \x1b[31mRED\x07\x1b]8;;http://x\x1b\\") +
                      line("{\"some\\u001b[2Jkey\": {\"v\": \"\\u001b[31m\"}}") + valid_events(),
                  ok(2 + kValidEvents, {{"fail_json", 2}, {"unknown", 2}}));
    c.args = {"in/case.log", "-v"}; // verbose also prints every unknown key
    cases.push_back(std::move(c));
  }

  // --- Script injection in every string field that reaches a page.
  cases.push_back(make(
      "script injection in every string field",
      line(R"J({"str": ["/h/<script>alert(1)</script>.py", 0]})J") +
          line(
              R"J({"dynamo_start": {"stack": [{"line": 1, "name": "<img src=x onerror=alert(1)>", )J"
              R"J("filename": 0, "loc": "\"onmouseover=alert(1)"}]}, )J" +
              cid(0, 0) + "}") +
          artifact("<svg onload=alert(1)>", "<script>alert(1)</script>") +
          dump_file("<script>", "x = '<script>alert(1)</script>'") +
          line(R"J({"link": {"name": "<script>n", "url": "javascript:alert(1)"}, )J" + cid(0, 0) +
               "}") +
          line(R"J({"link": {"name": "d", "url": "data:text/html,<script>alert(1)</script>"}, )J" +
               cid(0, 0) + "}") +
          line(
              R"J({"compilation_metrics": {"co_name": "<script>f", "fail_type": "<b onclick=x>", )J"
              R"J("fail_reason": "</pre><script>alert(1)</script>", )J"
              R"J("restart_reasons": ["<iframe src=javascript:alert(1)>"]}, )J" +
              cid(0, 0) + "}") +
          line(R"J({"<script>alert('key')</script>": 1})J"),
      ok(7, {{"unknown", 1}})));

  // --- Path traversal and unsafe bytes in output names.
  cases.push_back(make("path traversal in artifact and dump_file names",
                       artifact("../../../outside/pwned", "x") + dump_file("/etc/passwd", "y") +
                           dump_file("..", "z") + artifact("a/../../b", "w") +
                           artifact("nul\\u0000byte\\u0007bel", "v") + valid_events(),
                       ok(5 + kValidEvents, {{"unsafe_output_name", 5}})));
  cases.push_back(make("NUL and control bytes inside lines",
                       std::string("V1122 02:46:30.969000 452 x.py:1] {\"a\0\x01\": 1}\n", 42) +
                           std::string("\0\0\0\n", 4) + "\x7f\x1b[A\r\n" + valid_events(),
                       ok(kValidEvents)));

  // --- Truncation, invalid UTF-8, garbage.
  {
    const std::string events = valid_events();
    cases.push_back(make("truncated inside the last envelope",
                         events + line("{\"artifact\": {\"name\": \"cut").substr(0, 70),
                         ok(kValidEvents, {{"truncated_last_line", 1}})));
    const std::string cut_payload = artifact("cut", "line one\nline two\nline three");
    cases.push_back(make("truncated inside a payload",
                         events + cut_payload.substr(0, cut_payload.size() - 6),
                         ok(kValidEvents + 1, {{"truncated_last_line", 1}})));
  }
  cases.push_back(make("invalid UTF-8 in envelopes and payloads",
                       line("{\"bad\": \"\xff\xfe\xc3\x28\"}") +
                           artifact("utf8", "ok\n\xed\xa0\x80 surrogate\n\xf8\x88\x80\x80\x80") +
                           valid_events(),
                       ok(1 + kValidEvents, {{"invalid_utf8", 3}})));
  cases.push_back(make("binary garbage around valid events",
                       garbage(4096, 1) + "\n" + valid_events() + garbage(65536, 2) + "\n" +
                           line("{\"dynamo_start\": {\"stack\": []}, " + cid(1, 0) + "}"),
                       ok(kValidEvents + 1)));

  // --- JSON shapes: deep nesting, huge numbers, duplicate keys, overflowing ids.
  cases.push_back(
      make("deep nesting in an envelope and a JSON payload",
           line("{\"deep\": " + std::string(100000, '[') + std::string(100000, ']') + "}") +
               with_payload("{\"artifact\": {\"name\": \"deep\", \"encoding\": "
                            "\"json\"}, " +
                                cid(0, 0),
                            std::string(50000, '[') + std::string(50000, ']')) +
               valid_events(),
           ok(-1)));
  cases.push_back(
      make("huge numbers and overflowing ids",
           line("{\"dynamo_start\": {\"stack\": []}, \"frame_id\": 1e400, \"frame_compile_id\": 0, "
                "\"attempt\": 0}") +
               line("{\"dynamo_start\": {\"stack\": []}, \"frame_id\": 18446744073709551616, "
                    "\"frame_compile_id\": 4294967296, \"attempt\": -1}") +
               line("{\"compilation_metrics\": {\"graph_op_count\": 1e999999, \"co_firstlineno\": "
                    "-99999999999999999999999}, " +
                    cid(0, 0) + "}") +
               line("{\"str\": [\"big\", 99999999999999999999]}") + valid_events(),
           ok(-1)));
  cases.push_back(
      make("duplicate keys",
           line("{\"dynamo_start\": {\"stack\": []}, \"dynamo_start\": {\"stack\": 1}, " +
                cid(0, 0) + ", \"frame_id\": 7}") +
               line("{\"link\": {\"name\": \"a\", \"name\": \"b\", \"url\": "
                    "\"https://x\", \"url\": \"javascript:alert(1)\"}, " +
                    cid(0, 0) + "}") +
               valid_events(),
           ok(-1)));

  // --- Counters that must count each event once.
  cases.push_back(
      make("str: an index bound again to another string, and one beyond the table",
           line("{\"str\": [\"a.py\", 0]}") + line("{\"str\": [\"b.py\", 0]}") +
               line("{\"str\": [\"a.py\", 1]}") + line("{\"str\": [\"a.py\", 1]}") +
               line("{\"str\": [\"far.py\", 4194304]}") +
               line("{\"str\": [\"last.py\", 4194303]}") + valid_events(),
           ok(kValidEvents, {{"string_rebound", 1}, {"string_index_beyond_table", 1}})));
  {
    // 33 MB of payload in 64 KB lines: over the 32 MB limit, cut once.
    std::string payload;
    const std::string chunk(65535, 'x');
    for (int i = 0; i < 33 * 16; ++i) {
      payload += chunk;
      payload += '\n';
    }
    payload.pop_back();
    cases.push_back(
        make("a payload over the size limit counts once and is no MD5 mismatch",
             artifact("huge", payload) + valid_events(),
             ok(1 + kValidEvents, {{"payload_too_large", 1}, {"fail_payload_md5", 0}})));
  }

  // --- Log folders: symlink loops, FIFOs, a symlink to a file outside.
  {
    Case c = make("a log folder with a symlink loop and a FIFO", valid_events(), ok(kValidEvents));
    c.setup = [](const fs::path& in) {
      fs::create_directory(in / "logs");
      fs::create_symlink("b.log", in / "logs/a.log");
      fs::create_symlink("a.log", in / "logs/b.log");
      ::mkfifo((in / "logs/fifo.log").c_str(), 0600);
      fs::copy_file(in / "case.log", in / "logs/real.log");
    };
    c.args = {"in/logs"};
    cases.push_back(std::move(c));
  }
  {
    Case c = make("a log that is a symlink to a file outside its folder", valid_events(),
                  ok(kValidEvents, {{"log_symlink_outside", 1}}));
    c.setup = [](const fs::path& in) {
      fs::create_directory(in / "logs");
      fs::create_symlink(fs::absolute(in / "case.log"), in / "logs/x.log");
    };
    c.args = {"in/logs"};
    cases.push_back(std::move(c));
  }
  {
    Case c = make("a FIFO given as the log is refused, not waited on", "", Expect{});
    c.expect.exit_code = 1;
    c.setup = [](const fs::path& in) { ::mkfifo((in / "fifo.log").c_str(), 0600); };
    c.args = {"in/fifo.log"};
    cases.push_back(std::move(c));
  }
  return cases;
}

bool write_shape(std::string_view shape, uint64_t n, std::ostream& out) {
  if (shape == "small-events" || shape == "compile-ids") {
    const bool many_compiles = shape == "compile-ids";
    out << line("{\"str\": [\"/src/model.py\", 0]}");
    for (uint64_t i = 0; i < n; ++i) {
      const auto frame = static_cast<int64_t>(many_compiles ? i : 0);
      if (many_compiles || i == 0) {
        out << line("{\"dynamo_start\": {\"stack\": [{\"line\": 1, \"name\": \"f\", "
                    "\"filename\": 0}]}, " +
                    cid(frame, 0) + "}");
      }
      out << artifact("a", "v" + std::to_string(i % 100), frame, 0);
    }
    return true;
  }
  if (shape == "deep-stack") {
    out << line("{\"str\": [\"/src/a_rather_long_module_name_for_a_realistic_frame.py\", 0]}");
    std::string env = "{\"dynamo_start\": {\"stack\": [";
    for (uint64_t i = 0; i < n; ++i) {
      env += (i ? ", " : "") + std::string("{\"line\": ") + std::to_string(i) +
             ", \"name\": \"function_number_" + std::to_string(i) +
             "_with_a_name\", \"filename\": 0, \"loc\": \"x = f(x)  # frame " + std::to_string(i) +
             "\"}";
    }
    env += "]}, " + cid(0, 0) + "}";
    out << line(env);
    return true;
  }
  if (shape == "str-max") {
    out << line("{\"str\": [\"/src/model.py\", 4194303]}");
    out << line("{\"dynamo_start\": {\"stack\": [{\"line\": 1, \"name\": \"f\", \"filename\": "
                "4194303}]}, " +
                cid(0, 0) + "}");
    return true;
  }
  return false;
}

} // namespace hostile
