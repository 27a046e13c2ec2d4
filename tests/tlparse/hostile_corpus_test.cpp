// The hostile corpus (hostile_corpus.h) through the tlparse binary, and tampered indexes through
// `tlparse render`. For every case: the exit status, nothing written or changed outside OUT and
// no symlink inside it, no executable markup in any page, no raw control byte on the terminal,
// every valid event indexed and the counters that say what happened.
#include "hostile_corpus.h"
#include "ingest_test_util.h"
#include "support/html_checks.h"
#include "support/must.h"
#include "support/test_paths.h"

#include <catch2/catch.hpp>
#include <map>

using namespace tlparse_test;
using test_support::must;
namespace fs = std::filesystem;
namespace ti = tlparse::index;

namespace {

// Every entry under `root` (symlinks listed, never followed) with what it is and its size.
void snapshot_into(const fs::path& root, const fs::path& dir,
                   std::map<std::string, std::string>& out) {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const fs::file_status st = e.symlink_status(ec);
    const std::string rel = e.path().lexically_relative(root).generic_string();
    if (fs::is_directory(st)) {
      out[rel] = "dir";
      snapshot_into(root, e.path(), out);
    } else {
      out[rel] = fs::is_symlink(st)        ? "link"
                 : fs::is_regular_file(st) ? "file " + std::to_string(fs::file_size(e.path(), ec))
                                           : "other";
    }
  }
}

std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> out;
  snapshot_into(root, root, out);
  return out;
}

// Without the entries under `prefix`.
std::map<std::string, std::string> without(std::map<std::string, std::string> m,
                                           const std::string& prefix) {
  std::erase_if(
      m, [&](const auto& kv) { return kv.first == prefix || kv.first.starts_with(prefix + "/"); });
  return m;
}

// The first byte a terminal would act on (a control byte other than '\n', DEL, a C1 control in
// UTF-8), as a description; empty when there is none.
std::string raw_control(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xc2 && i + 1 < text.size() &&
                    static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9f;
    if ((c < 0x20 && c != '\n') || c == 0x7f || c1) {
      return "byte " + std::to_string(c) + " at " + std::to_string(i) +
             " in: " + std::string(text.substr(i > 40 ? i - 40 : 0, 80));
    }
  }
  return {};
}

// The report in `out` holds no executable markup and no symlink.
void check_pages(const fs::path& out) {
  int pages = 0;
  for (const auto& [path, what] : snapshot(out)) {
    INFO(path);
    CHECK(what != "link");
    if (path.ends_with(".html") && what.starts_with("file")) {
      ++pages;
      CHECK(test_support::executable_markup(test_support::read_file(out / path)) == "");
    }
  }
  CHECK(pages >= 2); // index.html and failures_and_restarts.html at least
}

std::map<std::string, int64_t> counters_of(const ti::IndexReader& reader, int64_t file_id) {
  std::map<std::string, int64_t> out;
  for (const ti::HealthCounter& h : must(reader.health(file_id))) {
    out[h.counter] += h.count;
  }
  return out;
}

int64_t ok_events(const ti::IndexReader& reader, int64_t file_id) {
  int64_t n = 0;
  REQUIRE(reader.for_each_event(file_id, [&](const ti::Event& e) {
    n += e.status == ti::EventStatus::ok ? 1 : 0;
    return true;
  }));
  return n;
}

// The counter as the report shows it in index.html's data health (render-time counters such as
// output_name_collision live there, not in the index).
int64_t shown_counter(const fs::path& out, const std::string& name) {
  const std::string page = test_support::read_file(out / "index.html");
  const std::string cell = "\">" + name + "</td><td>";
  const std::size_t at = page.find(cell);
  return at == std::string::npos ? 0 : std::stoll(page.substr(at + cell.size()));
}

// Runs tlparse in a fresh folder holding `in/` (the case's input) and `outside/` (a canary).
struct Sandbox {
  test_support::TempDir dir{"hostile"};
  fs::path in() const { return dir.path() / "in"; }
  fs::path out() const { return dir.path() / "out"; }
  Sandbox() {
    fs::create_directories(in());
    fs::create_directories(dir.path() / "outside");
    write_file(dir.path() / "outside/keep.txt", "canary");
  }
  Run run(std::vector<std::string> args) const {
    const auto before = snapshot(dir.path());
    args.insert(args.end(), {"-o", "out"});
    Run r = run_tlparse(args, dir.path());
    INFO(r.err);
    CHECK(without(snapshot(dir.path()), "out") == before);
    CHECK(raw_control(r.err) == "");
    CHECK(raw_control(r.out) == "");
    return r;
  }
};

void run_case(const hostile::Case& c) {
  Sandbox box;
  write_file(box.in() / "case.log", c.log);
  if (c.setup) {
    c.setup(box.in());
  }
  const Run r = box.run(c.args.empty() ? std::vector<std::string>{"in/case.log"} : c.args);
  INFO(r.err);
  REQUIRE(r.code == c.expect.exit_code);
  if (r.code != 0) {
    CHECK_FALSE(fs::exists(box.out()));
    return;
  }
  check_pages(box.out());
  auto reader = must(ti::IndexReader::open(box.out() / "index.sqlite"));
  const auto files = must(reader->files());
  REQUIRE(files.size() == 1);
  if (c.expect.ok_events >= 0) {
    CHECK(ok_events(*reader, files[0].id) == c.expect.ok_events);
  }
  const auto counters = counters_of(*reader, files[0].id);
  for (const auto& [name, value] : c.expect.counters) {
    INFO(name);
    const auto it = counters.find(name);
    const int64_t indexed = it == counters.end() ? 0 : it->second;
    CHECK(std::max(indexed, shown_counter(box.out(), name)) == value);
  }
  for (const std::string& f : c.expect.files) {
    INFO(f);
    CHECK(fs::is_regular_file(box.out() / f));
  }
}

// An index of a small log with outputs of every kind the pages link to.
fs::path sample_index(const fs::path& dir) {
  const fs::path log = dir / "sample.log";
  write_file(log, hostile::line("{\"dynamo_start\": {\"stack\": []}, " + hostile::cid(0, 0) + "}") +
                      hostile::with_payload("{\"artifact\": {\"name\": \"a\", \"encoding\": "
                                            "\"string\"}, " +
                                                hostile::cid(0, 0),
                                            "text") +
                      hostile::with_payload("{\"dump_file\": {\"name\": \"d\"}", "x = 1") +
                      hostile::line("{\"link\": {\"name\": \"l\", \"url\": \"https://x\"}, " +
                                    hostile::cid(0, 0) + "}") +
                      hostile::line("{\"compilation_metrics\": {\"co_name\": \"f\"}, " +
                                    hostile::cid(0, 0) + "}"));
  const fs::path index = dir / "index.sqlite";
  REQUIRE(tlparse::ingest::ingest_files({log}, index, {}).ok);
  return index;
}

} // namespace

TEST_CASE("hostile corpus: every log case keeps valid events, counts what happened and stays "
          "inside OUT",
          "[tlparse][hostile]") {
  for (const hostile::Case& c : hostile::log_cases()) {
    INFO("case: " << c.name);
    run_case(c);
  }
}

TEST_CASE("hostile corpus: a tampered index renders safely or fails clearly",
          "[tlparse][hostile]") {
  struct Tamper {
    const char* name;
    const char* sql;
    int exit_code;
  };
  const Tamper tampers[] = {
      {"a link's URL becomes javascript:",
       "UPDATE outputs SET path='javascript:alert(1)' WHERE kind='link'", 0},
      {"a file's path becomes javascript:",
       "UPDATE outputs SET path='javascript:alert(1)' WHERE kind<>'link' AND artifact='a'", 0},
      {"a file's path leaves the folder",
       "UPDATE outputs SET path='../outside/pwned.html' WHERE kind<>'link' AND artifact='a'", 0},
      {"a file's path is absolute",
       "UPDATE outputs SET path='/tmp/torchscope-pwned.html' WHERE artifact='a'", 0},
      {"a file's path needs index.html as a folder",
       "UPDATE outputs SET path='index.html/x.html' WHERE artifact='a'", 0},
      {"a readable_url becomes data:",
       "UPDATE outputs SET readable_url='data:text/html,<script>alert(1)</script>' "
       "WHERE kind<>'link'",
       0},
      {"names become markup",
       "UPDATE outputs SET name='<script>alert(1)</script>', "
       "artifact='<img src=x onerror=alert(1)>'",
       0},
      {"the log's path names a secret", "UPDATE files SET path='/etc/passwd'", 0},
      {"an output kind the schema does not know", "UPDATE outputs SET kind='bogus'", 1},
      {"a payload size that lies", "UPDATE payloads SET size=size+1000000", 1},
  };
  for (const Tamper& t : tampers) {
    INFO("tamper: " << t.name);
    Sandbox box;
    const fs::path index = sample_index(box.dir.path() / "outside");
    sql(index, t.sql);
    const Run r = box.run({"render", "outside/index.sqlite"});
    INFO(r.err);
    CHECK(r.code == t.exit_code);
    if (r.code != 0) {
      CHECK(r.err.starts_with("Error: "));
      CHECK_FALSE(fs::exists(box.out()));
      continue;
    }
    check_pages(box.out());
    CHECK_FALSE(fs::exists("/tmp/torchscope-pwned.html"));
    // raw.log is never copied from a path the index names.
    CHECK_FALSE(fs::exists(box.out() / "raw.log"));
  }
}

TEST_CASE("hostile corpus: tlparse render --raw-log copies the log it is given",
          "[tlparse][hostile]") {
  Sandbox box;
  const fs::path index = sample_index(box.in());
  const Run r = box.run({"render", "in/index.sqlite", "--raw-log", "in/sample.log"});
  REQUIRE(r.code == 0);
  CHECK(test_support::read_file(box.out() / "raw.log") ==
        test_support::read_file(box.in() / "sample.log"));
}
