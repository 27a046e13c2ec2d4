// chromium_events.json and a rank's share of the --all-ranks-html combined file: the same bytes
// whatever the rendering cache holds, including when it holds one rendering of a payload and not
// the other (each payload is parsed once, and only the missing rendering is made).
#include "ingest/reader/md5.h"
#include "report/output_folder.h"
#include "report/render_context.h"
#include "support/must.h"
#include "support/test_paths.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/ingest/ingest.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {

constexpr std::uint32_t kRank = 123456;

// A log of chromium events, one per payload, each as PyTorch writes it.
std::string chromium_log(const std::vector<std::string>& payloads) {
  std::string log;
  for (const std::string& p : payloads) {
    log += "V1122 02:58:48.528000 539 torch/_dynamo/utils.py:1] {\"chromium_event\": {}, "
           "\"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0, \"has_payload\": \"" +
           tlparse::ingest::md5_hex(p) + "\"}\n\t" + p + "\n";
  }
  return log;
}

struct Rendered {
  std::string plain;    // chromium_events.json
  std::string combined; // the combined file's part
  std::uint64_t items = 0;
  std::uint64_t cache_hits = 0;
};

class ChromiumIndex {
public:
  explicit ChromiumIndex(const std::vector<std::string>& payloads) : tmp_("report-chromium") {
    const fs::path log = tmp_.path() / "dedicated_log_torch_trace_test.log";
    std::ofstream(log, std::ios::binary) << chromium_log(payloads);
    const fs::path index = tmp_.path() / "index.sqlite";
    REQUIRE(tlparse::ingest::ingest_files({log}, index, {}).ok);
    reader_ = test_support::must(tlparse::index::IndexReader::open(index));
    const auto files = test_support::must(reader_->files());
    REQUIRE(files.size() == 1);
    file_id_ = files[0].id;
  }

  Rendered render(std::size_t cache_bytes) {
    const fs::path out = tmp_.path() / ("out" + std::to_string(++runs_));
    tlparse::report::detail::OutputFolder folder(out);
    std::string error;
    REQUIRE(folder.prepare(error));
    const fs::path part = tmp_.path() / ("part" + std::to_string(runs_));
    const auto r = tlparse::report::detail::render_chromium_events(*reader_, file_id_, folder, part,
                                                                   kRank, cache_bytes);
    REQUIRE(r.ok);
    REQUIRE(r.read_error.empty());
    return {test_support::read_file(out / "chromium_events.json"), test_support::read_file(part),
            r.items, r.cache_hits};
  }

private:
  test_support::TempDir tmp_;
  std::unique_ptr<tlparse::index::IndexReader> reader_;
  std::int64_t file_id_ = 0;
  int runs_ = 0;
};

// The rendering of the one event of a file of repeats of it: plain and combined.
std::pair<std::string, std::string> one_event(const Rendered& r) {
  const std::size_t end = r.plain.find(",\n  {");
  REQUIRE(r.plain.starts_with("[\n  "));
  REQUIRE(end != std::string::npos);
  const std::size_t combined_end = r.combined.find(",\n  {");
  REQUIRE(combined_end != std::string::npos);
  return {r.plain.substr(4, end - 4), r.combined.substr(0, combined_end)};
}

void check_same(const Rendered& r, const Rendered& expected) {
  CHECK(r.items == expected.items);
  CHECK(r.plain == expected.plain);
  CHECK(r.combined == expected.combined);
}

} // namespace

TEST_CASE("chromium events: a payload whose plain rendering is cached gets its combined one",
          "[tlparse][chromium]") {
  // The combined rendering (pid 123456) is longer than the plain one (pid 0): a budget that fits
  // the plain rendering alone caches it and not the combined one.
  ChromiumIndex index({R"J({"name": "dynamo", "ph": "B", "ts": 1.5, "pid": 0, "tid": 3})J",
                       R"J({"name": "dynamo", "ph": "B", "ts": 1.5, "pid": 0, "tid": 3})J",
                       R"J({"name": "dynamo", "ph": "B", "ts": 1.5, "pid": 0, "tid": 3})J"});
  const Rendered all = index.render(1u << 20);
  REQUIRE(all.items == 3);
  CHECK(all.cache_hits == 4); // the second and third events: both renderings
  const auto [plain, combined] = one_event(all);
  CHECK(plain.find("\"pid\": 0,") != std::string::npos);
  CHECK(combined == [&] {
    std::string c = plain;
    c.replace(c.find("\"pid\": 0,"), 9, "\"pid\": 123456,");
    return c;
  }());
  CHECK(all.plain == "[\n  " + plain + ",\n  " + plain + ",\n  " + plain + "\n]");
  CHECK(all.combined == combined + ",\n  " + combined + ",\n  " + combined);

  const Rendered plain_only = index.render(plain.size());
  CHECK(plain_only.cache_hits == 2); // the plain rendering, found twice
  check_same(plain_only, all);
  const Rendered none = index.render(0);
  CHECK(none.cache_hits == 0);
  check_same(none, all);
  // Every budget in between gives the same bytes.
  for (std::size_t budget = 1; budget < plain.size() + combined.size() + 8; budget += 7) {
    INFO(budget);
    check_same(index.render(budget), all);
  }
}

TEST_CASE("chromium events: a payload whose combined rendering is cached gets its plain one",
          "[tlparse][chromium]") {
  // A long pid string: the combined rendering (pid 123456) is the shorter one, so a budget can
  // fit it and not the plain one.
  const std::string payload = R"J({"name": "inductor", "ph": "E", "ts": 9, "pid": ")J" +
                              std::string(200, 'p') + R"J(", "tid": 1, "args": {"b": [1, 2]}})J";
  ChromiumIndex index({payload, payload, payload});
  const Rendered all = index.render(1u << 20);
  REQUIRE(all.items == 3);
  const auto [plain, combined] = one_event(all);
  REQUIRE(combined.size() < plain.size());
  CHECK(combined.find(std::string(200, 'p')) == std::string::npos);
  CHECK(combined.find("\"pid\": 123456,") != std::string::npos);

  const Rendered combined_only = index.render(combined.size());
  CHECK(combined_only.cache_hits == 2); // the combined rendering, found twice
  check_same(combined_only, all);
  for (std::size_t budget = 0; budget < plain.size() + combined.size() + 8; budget += 11) {
    INFO(budget);
    check_same(index.render(budget), all);
  }
}
