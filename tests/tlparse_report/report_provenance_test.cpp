// `tlparse -i` (docs/TLPARSE-PROVENANCE.md) on tlparse's own provenance test logs (JIT and AOT,
// old and new mapping formats, with and without debug handles): every compile folder gets its
// page, the pages link pre-grad, post-grad and code lines through the embedded line mappings,
// and nothing on them comes from the network.
#include "support/test_paths.h"
#include "tlparse/report/serde_json.h"
#include "tlparse_cli.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

namespace fs = std::filesystem;
using test_support::kTlparse;
using test_support::quoted;

namespace {

// Line-mapping entries of a page by pane ("pre", "post", "py", "cpp").
std::map<std::string, int> mapped_lines_by_pane(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"lineMappings\">";
  const auto start = page.find(open);
  REQUIRE(start != std::string::npos);
  const auto end = page.find("</script>", start);
  const auto json =
      tlparse::report::parse_json(page.substr(start + open.size(), end - start - open.size()));
  REQUIRE(json);
  std::map<std::string, int> out;
  for (const auto& [from, targets] : json->members()) {
    ++out[from.substr(0, from.find('-'))];
    CHECK(!targets.items().empty());
  }
  return out;
}

} // namespace

TEST_CASE("tlparse -i writes a linked, self-contained highlighter page for every compile") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  const auto shared = test_support::shared_dir();
  if (!shared) {
    TORCHSCOPE_SKIP("the shared corpus is absent (docs/BUILDING.md, Test data)");
  }
  // log -> the page with the mappings and the code pane it links (py: JIT, cpp: AOT)
  const std::map<std::string, std::pair<std::string, std::string>> cases = {
      {"inductor_provenance_jit_log", {"-_0_0_0", "py"}},
      {"inductor_provenance_jit_debug_handle_log", {"-_0_0_0", "py"}},
      {"inductor_provenance_jit_cuda_log", {"-_0_0_0", "py"}},
      {"inductor_provenance_aot_log", {"-_-_-_-", "cpp"}},
      {"inductor_provenance_aot_log_old", {"-_-_-_-", "cpp"}}, // inductor_*_grad_graph names
      {"inductor_provenance_aot_debug_handle_log", {"-_-_-_-", "cpp"}},
      {"inductor_provenance_aot_cuda_log", {"-_-_-_-", "cpp"}},
  };
  for (const auto& [name, expected] : cases) {
    SECTION(name) {
      const fs::path log = *shared / "corpus/tlparse-tests/inputs" / (name + ".txt");
      REQUIRE(fs::exists(log));
      test_support::TempDir tmp("provenance");
      const fs::path out = tmp.path() / "out";
      REQUIRE(std::system((quoted(kTlparse) + " " + quoted(log) + " -i -o " + quoted(out) +
                           " --no-browser > /dev/null 2>&1")
                              .c_str()) == 0);
      const fs::path page = out / ("provenance_tracking_" + expected.first + ".html");
      REQUIRE(fs::exists(page));
      const std::string html = test_support::read_file(page);
      const auto panes = mapped_lines_by_pane(html);
      CHECK(panes.count("pre") == 1);
      CHECK(panes.count("post") == 1);
      CHECK(panes.count(expected.second) == 1);
      // Self-contained: no script, style or image fetched from elsewhere.
      CHECK(html.find("src=\"http") == std::string::npos);
      CHECK(html.find("<link") == std::string::npos);
      // Listed on the index page.
      CHECK(test_support::read_file(out / "index.html")
                .find("provenance_tracking_" + expected.first + ".html") != std::string::npos);
    }
  }
}
