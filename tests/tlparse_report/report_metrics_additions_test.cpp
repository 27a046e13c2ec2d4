// The per-compile page's additions beyond tlparse 0.4.3 (docs/TLPARSE-INGEST.md): the symbols a
// compile created and the metrics PyTorch records when the compiled code first runs, both keys
// 0.4.3 did not know. On the committed w02_recompile log (dynamic-shape recompiles).
#include "support/test_paths.h"
#include "tlparse_cli.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using test_support::kTlparse;
using test_support::quoted;

TEST_CASE("a compile's page lists its created symbols and its runtime metrics") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  fs::path log;
  for (const auto& e : fs::directory_iterator(test_support::source_dir() /
                                              "tests/data/pytorch-2.11/w02_recompile")) {
    if (e.path().extension() == ".log") {
      log = e.path();
    }
  }
  REQUIRE(!log.empty());
  test_support::TempDir tmp("metrics-additions");
  const fs::path out = tmp.path() / "out";
  REQUIRE(std::system((quoted(kTlparse) + " " + quoted(log) + " -o " + quoted(out) +
                       " --no-browser > /dev/null 2>&1")
                          .c_str()) == 0);
  int with_symbols = 0, with_runtime = 0;
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with("compilation_metrics_")) {
      continue;
    }
    const std::string page = test_support::read_file(e.path());
    CHECK(page.find("<h2>Created symbols</h2>") != std::string::npos);
    with_symbols += page.find("<td>backed</td>") != std::string::npos ? 1 : 0;
    with_runtime += page.find("<h3>compilation_metrics_runtime") != std::string::npos ? 1 : 0;
  }
  CHECK(with_symbols > 0); // the dynamic recompile creates s0, s1, ...
  CHECK(with_runtime > 0);
}
