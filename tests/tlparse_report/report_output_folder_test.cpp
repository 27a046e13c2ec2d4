// The renderer's last line of defence: nothing is written outside the output folder, whatever
// path the index hands it.
#include "report/output_folder.h"
#include "support/test_paths.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

using tlparse::report::detail::OutputFolder;
namespace fs = std::filesystem;

TEST_CASE("output folder refuses absolute, parent and malformed paths") {
  for (const char* bad :
       {"/etc/passwd", "../x", "a/../../x", "a//b", "./a", "a/", "", "a\\b", "a/./b", ".."}) {
    INFO(bad);
    CHECK_FALSE(OutputFolder::is_safe_relative_path(bad));
  }
  for (const char* good :
       {"index.html", "-_0_0_0/x_3.txt", "payloads/abc.txt", "dump_file/eval_with_key_1.html",
        "-_0_0_0/torch._functorch.config_6.txt", "\xE2\x9C\x85.txt", "..a/b.."}) {
    INFO(good);
    CHECK(OutputFolder::is_safe_relative_path(good));
  }
}

TEST_CASE("output folder writes inside the root and counts refusals") {
  test_support::TempDir tmp("report-folder");
  OutputFolder folder(tmp.path() / "out");
  std::string error;
  REQUIRE(folder.prepare(error));
  CHECK(folder.write_file("a/b/c.txt", "hello"));
  CHECK(test_support::read_file(tmp.path() / "out" / "a" / "b" / "c.txt") == "hello");
  CHECK_FALSE(folder.write_file("../escape.txt", "x"));
  CHECK_FALSE(fs::exists(tmp.path() / "escape.txt"));
  CHECK(folder.refused() == 1);
  CHECK(folder.files_written() == 1);
}

TEST_CASE("output folder does not follow a symlink planted inside it") {
  test_support::TempDir tmp("report-folder");
  fs::create_directories(tmp.path() / "out");
  fs::create_directories(tmp.path() / "elsewhere");
  fs::create_directory_symlink(tmp.path() / "elsewhere", tmp.path() / "out" / "link");
  fs::create_symlink(tmp.path() / "elsewhere" / "f.txt", tmp.path() / "out" / "file_link.txt");
  OutputFolder folder(tmp.path() / "out");
  std::string error;
  REQUIRE(folder.prepare(error));
  CHECK_FALSE(folder.write_file("link/x.txt", "x"));
  CHECK_FALSE(folder.write_file("file_link.txt", "x"));
  CHECK_FALSE(fs::exists(tmp.path() / "elsewhere" / "x.txt"));
  CHECK_FALSE(fs::exists(tmp.path() / "elsewhere" / "f.txt"));
  CHECK(folder.refused() == 2);
}

TEST_CASE(
    "output folder refuses a link at any depth, even one pointing back inside, and says when a "
    "file is in a folder's way") {
  test_support::TempDir tmp("report-folder-deep");
  fs::create_directories(tmp.path() / "out/a/b");
  fs::create_directories(tmp.path() / "elsewhere/c");
  fs::create_directory_symlink(tmp.path() / "elsewhere", tmp.path() / "out/a/b/deep");
  fs::create_directory_symlink(tmp.path() / "out/a", tmp.path() / "out/back");
  std::ofstream(tmp.path() / "out/a/plain") << "mine";
  OutputFolder folder(tmp.path() / "out");
  std::string error;
  REQUIRE(folder.prepare(error));
  CHECK(folder.write_file("a/b/ok.txt", "x"));          // real folders made earlier are used
  CHECK(folder.write_file("a/new/deeper/ok.txt", "x")); // and new ones are made
  CHECK_FALSE(folder.write_file("a/b/deep/c/x.txt", "x"));
  CHECK_FALSE(folder.write_file("a/b/deep/c/y.txt", "x")); // a refused folder stays refused
  CHECK_FALSE(folder.write_file("back/z.txt", "x"));
  CHECK(folder.refused() == 3);
  CHECK_FALSE(fs::exists(tmp.path() / "elsewhere/c/x.txt"));
  CHECK_FALSE(fs::exists(tmp.path() / "out/a/z.txt"));
  CHECK(folder.io_errors() == 0);
  CHECK_FALSE(folder.write_file("a/plain/x.txt", "x"));
  CHECK(folder.io_errors() == 1);
  CHECK(folder.first_error().find("a file is in the way") != std::string::npos);
  CHECK(test_support::read_file(tmp.path() / "out/a/plain") == "mine");
}
