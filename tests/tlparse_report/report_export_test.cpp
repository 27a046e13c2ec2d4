// `tlparse -e/--export` (docs/TLPARSE-EXPORT.md) on a small draft-export log written here: the
// issues table, the guard page (stacks, locals, the provenance tree of expressions, cycles
// included), the exported program, tlparse 0.4.3's file numbering, escaping of every log string,
// and malformed export events counted instead of crashing. The byte-level comparison with
// tlparse 0.4.3's export references is in report_compat_all_test.cpp.
#include "support/test_paths.h"
#include "tlparse_cli.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using test_support::kTlparse;
using test_support::quoted;

namespace {

constexpr const char* kPrefix = "V0211 16:42:20.419000 2313073 torch/_logging/structured.py:27] ";

// One envelope per line; the exported program carries a payload (MD5 of its two lines).
const char* const kLog[] = {
    R"J({"str": ["/work/model.py", 0]})J",
    R"J({"create_unbacked_symbol": {"symbol": "u0", "node_id": 1, "vr": "[0, 9]", "user_stack": [{"line": 5, "name": "forward", "filename": 0, "loc": "a = x.item()"}], "stack": []}})J",
    // A cycle (its own id among its arguments) must not hang the page.
    R"J({"expression_created": {"method": "add", "result": "<script>alert(1)</script>", "result_id": 2, "arguments": ["u0", "1"], "argument_ids": [1, 2], "user_stack": [], "stack": []}})J",
    R"J({"guard_added": {"expr": "u0 >= 0", "stack": []}})J",
    R"J({"guard_added": {"expr": "u0 < <b>3</b>", "prefix": "eval", "expr_node_id": 2, "user_stack": [{"line": 7, "name": "forward", "filename": 0, "loc": "assert a < 3"}], "stack": [], "frame_locals": {"loc": "assert a < 3", "locals": {"x": "<i>v</i>", "gone": null}, "symbols": {"u0": "a"}}}})J",
    R"J({"missing_fake_kernel": {"op": "mylib.foo<script>"}})J",
    R"J({"mismatched_fake_kernel": {"op": "mylib.bar", "reason": "shape <differs>"}})J",
    R"J({"propagate_real_tensors_provenance": {"expr": "Eq(u0, 2)", "result": "False"}})J",
    R"J({"exported_program": {}, "has_payload": "c20526a44fbed9905d4ca7075456e602"})J",
};

std::string run(const std::string& args, const fs::path& err) {
  const int rc = std::system(
      (quoted(kTlparse) + " " + args + " --no-browser > /dev/null 2> " + quoted(err)).c_str());
  return std::to_string(rc == -1 ? -1 : WEXITSTATUS(rc));
}

} // namespace

TEST_CASE("tlparse --export writes the export report: issues, guard pages, exported program") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  test_support::TempDir tmp("export");
  const fs::path log = tmp.path() / "export.log";
  {
    std::ofstream f(log);
    for (const char* line : kLog) {
      f << kPrefix << line << "\n";
    }
    f << "\tgraph():\n\t    return x\n";
  }
  const fs::path out = tmp.path() / "out";
  const fs::path err = tmp.path() / "stderr.txt";
  REQUIRE(run(quoted(log) + " --export -o " + quoted(out), err) == "0");
  const std::string stderr_text = test_support::read_file(err);
  INFO("stderr: " << stderr_text);
  // No statistics line in export mode (as tlparse 0.4.3); the malformed event is reported.
  CHECK(stderr_text.find("Stats {") == std::string::npos);
  CHECK(stderr_text.find("1 export event(s) lacked a field") != std::string::npos);

  // One counter over guard pages and exported programs, in log order.
  const fs::path guard_page = out / "-_-_-_-" / "symbolic_guard_information_0.html";
  const fs::path program = out / "-_-_-_-" / "exported_program_1.txt";
  REQUIRE(fs::exists(guard_page));
  REQUIRE(fs::exists(program));
  CHECK(test_support::read_file(program).find("return x") != std::string::npos);
  CHECK(!fs::exists(out / "compile_directory.json")); // export mode writes only its own files

  const std::string index = test_support::read_file(out / "index.html");
  CHECK(index.find("Draft Export Report") != std::string::npos);
  CHECK(index.find("3 issue(s) were found during export") != std::string::npos);
  CHECK(index.find("Guard Evaluated") != std::string::npos);
  CHECK(index.find("Missing Fake Kernel") != std::string::npos);
  CHECK(index.find("Mismatched Fake Kernel") != std::string::npos);
  CHECK(index.find("Data Dependent Error") == std::string::npos); // skipped: no expr_node_id
  CHECK(index.find("href=\"-_-_-_-/symbolic_guard_information_0.html\"") != std::string::npos);
  CHECK(index.find("href=\"-_-_-_-/exported_program_1.txt\"") != std::string::npos);
  CHECK(index.find("u0 &lt; &lt;b&gt;3&lt;/b&gt;") != std::string::npos);
  CHECK(index.find("shape &lt;differs&gt;") != std::string::npos);
  CHECK(index.find("<script>alert") == std::string::npos);
  CHECK(index.find("mylib.foo<script>") == std::string::npos);
  CHECK(index.find("<b>3</b>") == std::string::npos);

  const std::string page = test_support::read_file(guard_page);
  CHECK(page.find("assert a &lt; 3") != std::string::npos); // user stack and locals
  CHECK(page.find("x: &lt;i&gt;v&lt;/i&gt;") != std::string::npos);
  CHECK(page.find("gone:") == std::string::npos); // null locals are left out
  CHECK(page.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(page.find("<script>alert") == std::string::npos);
  CHECK(page.find("Unbacked symbol") != std::string::npos); // the tree reached u0
  CHECK(page.find("/work/model.py") != std::string::npos);  // filenames from the string table
}

TEST_CASE("tlparse --export is refused with --all-ranks-html and --serve, and is in --help") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  test_support::TempDir tmp("export-flags");
  const fs::path err = tmp.path() / "stderr.txt";
  CHECK(run(quoted(tmp.path()) + " --export --all-ranks-html -o " + quoted(tmp.path() / "o"),
            err) == "1");
  CHECK(test_support::read_file(err).find("--export cannot be used with --all-ranks-html") !=
        std::string::npos);
  const fs::path help = tmp.path() / "help.txt";
  REQUIRE(std::system((quoted(kTlparse) + " --help > " + quoted(help)).c_str()) == 0);
  CHECK(test_support::read_file(help).find("-e, --export") != std::string::npos);
}
