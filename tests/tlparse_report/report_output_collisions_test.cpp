// Output names that cannot all exist at once are renamed before the report writes anything
// (report/output_collisions.h), and every renamed set can be written.
#include "report/output_collisions.h"
#include "report/output_folder.h"
#include "report/render_context.h"
#include "support/test_paths.h"

#include <catch2/catch.hpp>
#include <set>

namespace rd = tlparse::report::detail;
namespace ti = tlparse::index;

namespace {

std::vector<ti::Output> outputs_of(const std::vector<std::string>& paths) {
  std::vector<ti::Output> out;
  for (const std::string& p : paths) {
    ti::Output o;
    o.id = static_cast<int64_t>(out.size());
    o.kind = ti::OutputKind::payload_text;
    o.path = p;
    out.push_back(o);
  }
  return out;
}

std::vector<std::string> paths_of(const std::vector<ti::Output>& outputs) {
  std::vector<std::string> out;
  for (const ti::Output& o : outputs) {
    out.push_back(o.path);
  }
  return out;
}

// Writes every path into a fresh folder: all must succeed.
void check_writable(const std::vector<ti::Output>& outputs) {
  test_support::TempDir tmp("collisions");
  rd::OutputFolder folder(tmp.path() / "out");
  std::string error;
  REQUIRE(folder.prepare(error));
  for (const ti::Output& o : outputs) {
    INFO(o.path);
    CHECK(folder.write_file(o.path, "x"));
  }
}

} // namespace

TEST_CASE("collisions: a file another output needs as a folder is renamed, once") {
  auto outputs = outputs_of({"dump_file/x.html", "dump_file/x.html/y.html", "-_0_0_0/k_0.txt",
                             "-_0_0_0/k_0.txt/deeper_1.txt", "payloads/x.txt",
                             "payloads/x.txt/y.txt", "plain.txt"});
  CHECK(rd::rename_colliding_outputs(outputs) == 3);
  CHECK(paths_of(outputs) ==
        std::vector<std::string>{"dump_file/x_collision1.html", "dump_file/x.html/y.html",
                                 "-_0_0_0/k_0_collision1.txt", "-_0_0_0/k_0.txt/deeper_1.txt",
                                 "payloads/x_collision1.txt", "payloads/x.txt/y.txt", "plain.txt"});
  check_writable(outputs);
}

TEST_CASE("collisions: chains, taken names, the report's own files and links") {
  auto outputs = outputs_of({"a", "a/b", "a/b/c", "a_collision1", "index.html/x.html", "raw.log",
                             "collisions", "same.txt", "same.txt"});
  outputs.push_back(outputs.front());
  outputs.back().kind = ti::OutputKind::link;
  outputs.back().path = "a"; // a link's path is a URL: never renamed
  CHECK(rd::rename_colliding_outputs(outputs) == 4);
  const auto paths = paths_of(outputs);
  CHECK(paths[0] == "a_collision2");
  CHECK(paths[1] == "a/b_collision1");
  CHECK(paths[2] == "a/b/c");
  CHECK(paths[4] == "collisions_1/index.html_x.html"); // "collisions" is a file
  CHECK(paths[5] == "collisions_1/raw.log");
  CHECK(paths[7] == "same.txt"); // the same path twice: the later one wins, as in tlparse
  CHECK(paths.back() == "a");
  std::set<std::string> files(paths.begin(), paths.end() - 1);
  for (const std::string& p : files) {
    const auto next = files.lower_bound(p + "/");
    CHECK_FALSE((next != files.end() && next->starts_with(p + "/")));
  }
  outputs.pop_back();
  check_writable(outputs);
}

TEST_CASE("collisions: a renamed segment stays within the file system's limit") {
  const std::string long_name(250, 'n');
  auto outputs = outputs_of({long_name + ".html", long_name + ".html/y"});
  CHECK(rd::rename_colliding_outputs(outputs) == 1);
  CHECK(outputs[0].path.size() <= 255);
  CHECK(outputs[0].path.ends_with("_collision1.html"));
  check_writable(outputs);
}

TEST_CASE("only the last output of a path is written; links always are") {
  std::vector<ti::Output> outputs =
      outputs_of({"a.txt", "b.txt", "a.txt", "https://x", "c.txt", "a.txt", "https://x", "b.txt"});
  outputs[3].kind = ti::OutputKind::link;
  outputs[6].kind = ti::OutputKind::link;
  const std::vector<bool> writes = rd::last_writers(outputs);
  CHECK(writes == std::vector<bool>{false, false, false, true, true, true, true, true});
  CHECK(rd::last_writers({}).empty());
}
