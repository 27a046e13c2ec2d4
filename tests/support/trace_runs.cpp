// Traced runs and PyTorch's logs.
#include "support/trace_runs.h"

#include "support/test_paths.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <vector>

namespace test_support {

namespace fs = std::filesystem;

fs::path run_traced_program(const std::string& exe, const fs::path& dir) {
  const fs::path out = dir / "stdout.txt";
  // A compile cache of its own: the run compiles from scratch, as the PyTorch logs it is
  // compared with did, whatever other runs (tests in parallel, other builds) left in the user's.
  const std::string cmd = "TORCH_TRACE='" + dir.string() + "' TORCHINDUCTOR_CACHE_DIR='" +
                          (dir / "inductor-cache").string() + "' '" + exe + "' > '" + out.string() +
                          "' 2>&1";
  const int rc = std::system(cmd.c_str());
  INFO("program output:\n" << read_file(out));
  REQUIRE(rc == 0);
  std::vector<fs::path> logs;
  for (const fs::path& p : trace_files_under(dir)) {
    if (p.extension() == ".log") {
      logs.push_back(p);
    }
  }
  REQUIRE(logs.size() == 1);
  return logs[0];
}

std::optional<fs::path> pytorch_log(const std::string& workload) {
  std::vector<fs::path> roots;
  if (auto shared = shared_dir()) {
    roots.push_back(*shared / "corpus" / "pytorch-2.11" / workload);
  }
  roots.push_back(source_dir() / "tests" / "data" / "pytorch-2.11" / workload);
  for (const fs::path& root : roots) {
    if (fs::is_directory(root)) {
      for (const fs::path& p : trace_files_under(root)) {
        if (p.extension() == ".log") {
          return p;
        }
      }
    }
  }
  return std::nullopt;
}

} // namespace test_support
