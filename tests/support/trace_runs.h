// Running a traced program and finding PyTorch's logs, for the tests that compare our sample
// programs' traces with PyTorch 2.11's logs of the matching workloads.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace test_support {

// Runs `exe` with TORCH_TRACE=`dir` and a compile cache of its own under `dir` (its output goes
// to dir/stdout.txt, shown if it fails) and returns the one .log it wrote. A Catch2 REQUIRE
// fails when it exits non-zero or writes another number of logs.
std::filesystem::path run_traced_program(const std::string& exe, const std::filesystem::path& dir);

// PyTorch 2.11's log of `workload` ("w01_mlp_train"): ../shared's corpus when present, else the
// copy under tests/data/pytorch-2.11; nullopt when neither has it.
std::optional<std::filesystem::path> pytorch_log(const std::string& workload);

} // namespace test_support
